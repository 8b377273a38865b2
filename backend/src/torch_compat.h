#pragma once
// The one place where LibTorch 1.13 (Debian) and 2.x (pip torch, CUDA) differ for us.
// Everything else in the engine is written against the API both share.

#include <torch/torch.h>
#include <torch/version.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

#define WB_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace c10d {
class ProcessGroup;
class Backend;
}  // namespace c10d

namespace wb::compat {

// c10d's Gloo and NCCL process groups derive from ProcessGroup in 1.x and from Backend in 2.x; both bases
// have the collectives we call (allreduce, broadcast, allgather with their options).
#if WB_TORCH_AT_LEAST(2, 0)
using CollectiveBackend = c10d::Backend;
#else
using CollectiveBackend = c10d::ProcessGroup;
#endif

inline const char* torchVersion() {
  return TORCH_VERSION;
}

// What torch::autograd::impl::grad_accumulator returns: std::shared_ptr<Node> up to 2.12,
// c10::intrusive_ptr<Node> from 2.13. Both hold the node alive and compare by address.
using GradAccumulatorPtr =
    decltype(torch::autograd::impl::grad_accumulator(std::declval<const at::Tensor&>()));

// Device names and memory come from the CUDA runtime, whose headers only exist in CUDA builds of LibTorch;
// the definitions live in util/cuda_memory.cpp behind WB_WITH_CUDA.
std::string cudaDeviceName(int64_t index);
int64_t cudaDeviceMemory(int64_t index);

// The key of a parameter's entry in an optimizer's state map (`Optimizer::state_`): 1.x keys it by the
// address of the parameter's TensorImpl written as text (c10::guts::to_string of the pointer), 2.x by the
// address itself. Taking the map type keeps the choice out of version macros.
template <typename StateMap>
typename StateMap::key_type optimizerStateKey(const torch::Tensor& parameter) {
  using Key = typename StateMap::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream key;
    key << static_cast<const void*>(parameter.unsafeGetTensorImpl());
    return key.str();
  } else {
    return static_cast<Key>(parameter.unsafeGetTensorImpl());
  }
}

// Autocast's switches changed in 2.4: see torch_compat_autocast.h (apart, to keep ATen/autocast_mode.h out of
// the translation units that do not need it).

}  // namespace wb::compat
