#include "distributed/device_selection.h"

#include <algorithm>
#include <set>

#include "workbench/errors.h"

namespace wb {
namespace {

// Whether this build can run several ranks of a kind: the macros come from the wb_distributed target, which
// defines them when LibTorch's c10d has the backend (Gloo for CPU ranks, NCCL for CUDA ranks).
#ifdef WB_WITH_GLOO
constexpr bool kHaveGloo = true;
#else
constexpr bool kHaveGloo = false;
#endif
#ifdef WB_WITH_NCCL
constexpr bool kHaveNccl = true;
#else
constexpr bool kHaveNccl = false;
#endif

std::string quotedDevices(const std::vector<std::string>& devices) {
  std::string text;
  for (size_t i = 0; i < devices.size(); ++i) text += (i == 0 ? "\"" : ", \"") + devices[i] + "\"";
  return text;
}

}  // namespace

std::optional<int64_t> cudaIndex(const std::string& id) {
  if (id == "cuda") return 0;
  const std::string prefix = "cuda:";
  if (id.size() <= prefix.size() || id.size() > prefix.size() + 4 ||
      id.compare(0, prefix.size(), prefix) != 0) {
    return std::nullopt;
  }
  if (!std::all_of(id.begin() + static_cast<std::ptrdiff_t>(prefix.size()), id.end(),
                   [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoll(id.substr(prefix.size()));
}

std::string checkDevice(const std::string& id) {
  if (id == "cpu") return {};
  if (id.rfind("cuda", 0) != 0) return "unknown device \"" + id + "\": use \"cpu\" or \"cuda:N\"";
  const std::optional<int64_t> index = cudaIndex(id);
  if (!index) return "device \"" + id + "\" is not of the form cuda:N";
  if (!torch::cuda::is_available()) {
    return "device \"" + id +
           "\" is not available: this LibTorch build or machine has no CUDA GPU; use \"cpu\"";
  }
  const int64_t count = static_cast<int64_t>(torch::cuda::device_count());
  if (*index >= count) {
    return "device \"" + id + "\" does not exist: this machine has " + std::to_string(count) +
           " CUDA device(s), cuda:0 to cuda:" + std::to_string(count - 1);
  }
  return {};
}

std::vector<ValidationIssue> checkDeviceSet(const std::vector<std::string>& devices) {
  std::vector<ValidationIssue> issues;
  if (devices.empty()) {
    issues.push_back({"train.devices", "no device is listed: list at least one, such as \"cpu\""});
    return issues;
  }
  std::vector<std::string> cpus;
  std::vector<std::string> cudas;
  std::set<int64_t> seen;
  for (size_t i = 0; i < devices.size(); ++i) {
    const std::string& id = devices[i];
    if (id == "cpu") {
      cpus.push_back(id);
    } else if (const std::optional<int64_t> index = cudaIndex(id)) {
      cudas.push_back(id);
      if (!seen.insert(*index).second) {
        const std::string canonical = "cuda:" + std::to_string(*index);
        const std::string alias = id == canonical ? "" : " (it is " + canonical + ")";
        issues.push_back(
            {"train.devices[" + std::to_string(i) + "]",
             "\"" + id + "\" is listed twice" + alias + ": each CUDA device runs one rank, name it once"});
      }
    }
  }
  if (!cpus.empty() && !cudas.empty()) {
    issues.push_back(
        {"train.devices",
         "mixes CPU and CUDA devices (" + quotedDevices(devices) +
             "): the ranks of one run train all on the CPU (over Gloo) or all on CUDA devices "
             "(over NCCL); list only CUDA devices, or only \"cpu\" (\"cpu:N\" for N CPU ranks)"});
    return issues;
  }
  if (cpus.size() > 1 && !kHaveGloo) {
    issues.push_back(
        {"train.devices", "this LibTorch build has no Gloo (c10d's CPU backend), which " +
                              std::to_string(cpus.size()) +
                              " CPU ranks need to average their gradients: list one \"cpu\", or rebuild with "
                              "c10d's Gloo headers (Debian: libgloo-dev)"});
  }
  if (cudas.size() > 1 && !kHaveNccl) {
    issues.push_back(
        {"train.devices", "this LibTorch build has no NCCL (c10d's CUDA backend), which " +
                              std::to_string(cudas.size()) +
                              " CUDA devices need to average their gradients: list one CUDA device, or build "
                              "against a CUDA LibTorch with NCCL"});
  }
  return issues;
}

std::string checkAmp(Precision amp, const std::vector<std::string>& devices) {
  if (amp != Precision::Fp16) return {};
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
  const std::optional<int64_t> index = cudaIndex(id);
  if (!index) return torch::Device(torch::kCPU);
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(*index));
}

}  // namespace wb
