#pragma once
// The one place where LibTorch 1.13 (Debian) and 2.x (pip torch, CUDA) differ for us.
// Everything else in the engine is written against the API both share.

#include <torch/torch.h>
#include <torch/version.h>

#define WB_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace wb::compat {

inline const char* torchVersion() { return TORCH_VERSION; }

}  // namespace wb::compat
