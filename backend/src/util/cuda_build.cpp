#include "util/cuda_build.h"

namespace wb {

bool cudaCompiled() {
#ifdef WB_WITH_CUDA
  return true;
#else
  return false;
#endif
}

}  // namespace wb
