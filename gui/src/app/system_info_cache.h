#pragma once
// The machine's devices, LibTorch and BLAS, asked of the engine once: the device picker and the About box
// read it, and querying CUDA again on every form load would be wasted time.

#include "workbench/system_info.h"

namespace wb::gui {

const SystemInfo& systemInfo();

}  // namespace wb::gui
