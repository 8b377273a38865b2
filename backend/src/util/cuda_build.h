#pragma once
// Whether this build compiled the engine's CUDA code (a CUDA LibTorch: WB_WITH_CUDA), whatever the machine
// has.

namespace wb {

bool cudaCompiled();

}  // namespace wb
