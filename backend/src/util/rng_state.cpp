#include "util/rng_state.h"

#include <ATen/CPUGeneratorImpl.h>

#include <mutex>

#include "util/default_cpu_generator.h"

#ifdef WB_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#endif

namespace wb {
namespace {

torch::Tensor stateOf(at::Generator generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void setStateOf(at::Generator generator, const torch::Tensor& state) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

}  // namespace

std::vector<std::pair<std::string, torch::Tensor>> captureRngStates() {
  std::vector<std::pair<std::string, torch::Tensor>> states;
  {
    const auto turn = holdDefaultCpuGenerator();  // not a preview's borrowed state
    states.emplace_back("cpu", stateOf(at::detail::getDefaultCPUGenerator()));
  }
#ifdef WB_WITH_CUDA
  if (torch::cuda::is_available()) {
    for (int64_t i = 0; i < static_cast<int64_t>(torch::cuda::device_count()); ++i) {
      states.emplace_back(
          "cuda:" + std::to_string(i),
          stateOf(at::cuda::detail::getDefaultCUDAGenerator(static_cast<c10::DeviceIndex>(i))));
    }
  }
#endif
  return states;
}

void restoreRngStates(const std::vector<std::pair<std::string, torch::Tensor>>& states) {
  for (const auto& [name, state] : states) {
    if (name == "cpu") {
      const auto turn = holdDefaultCpuGenerator();  // a preview's borrowing would put its old state back
      setStateOf(at::detail::getDefaultCPUGenerator(), state);
      continue;
    }
#ifdef WB_WITH_CUDA
    if (name.rfind("cuda:", 0) == 0 && torch::cuda::is_available()) {
      const int64_t index = std::stoll(name.substr(5));
      if (index < static_cast<int64_t>(torch::cuda::device_count())) {
        setStateOf(at::cuda::detail::getDefaultCUDAGenerator(static_cast<c10::DeviceIndex>(index)), state);
      }
    }
#endif
  }
}

}  // namespace wb
