#include "train/device_selection.h"

#include "workbench/errors.h"

namespace wb {

std::string checkDevice(const std::string& id) {
  if (id == "cpu") return {};
  if (id.rfind("cuda", 0) != 0) return "unknown device \"" + id + "\": use \"cpu\" or \"cuda:N\"";
  if (!torch::cuda::is_available()) {
    return "device \"" + id + "\" is not available: this LibTorch build or machine has no CUDA GPU; use \"cpu\"";
  }
  int64_t index = 0;
  if (id.size() > 5) {
    try {
      index = std::stoll(id.substr(5));
    } catch (const std::exception&) {
      return "device \"" + id + "\" is not of the form cuda:N";
    }
  }
  const int64_t count = static_cast<int64_t>(torch::cuda::device_count());
  if (index < 0 || index >= count) {
    return "device \"" + id + "\" does not exist: this machine has " + std::to_string(count) +
           " CUDA device(s), cuda:0 to cuda:" + std::to_string(count - 1);
  }
  return {};
}

std::string checkAmp(const std::string& amp, const std::vector<std::string>& devices) {
  if (amp != "fp16") return {};
  bool all_cuda = !devices.empty();
  for (const auto& d : devices) all_cuda = all_cuda && d.rfind("cuda", 0) == 0;
  if (!all_cuda) {
    return "fp16 mixed precision needs CUDA devices (the CPU has no fast float16); use \"bf16\", which runs "
           "on the CPU and on CUDA";
  }
  if (!torch::cuda::is_available()) {
    return "fp16 mixed precision needs a CUDA GPU and this machine or LibTorch build has none; use \"bf16\" "
           "on the CPU";
  }
  return {};
}

torch::Device resolveDevice(const std::string& id) {
  const std::string problem = checkDevice(id);
  if (!problem.empty()) throw UserError("train.devices: " + problem + ".");
  return torch::Device(id == "cuda" ? std::string("cuda:0") : id);
}

}  // namespace wb
