// NCCL: c10d's CUDA process group, one rank per GPU. Only in CUDA builds of LibTorch (USE_C10D_NCCL).
#include "distributed/collective_backends.h"

#ifdef WB_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "distributed/collective_error.h"

namespace wb {

#ifdef WB_WITH_NCCL

bool ncclAvailable() { return true; }

c10::intrusive_ptr<compat::CollectiveBackend> makeNcclBackend(const c10::intrusive_ptr<c10d::Store>& store,
                                                              int rank, int size, std::chrono::milliseconds timeout) {
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, options);
}

#else

bool ncclAvailable() { return false; }

c10::intrusive_ptr<compat::CollectiveBackend> makeNcclBackend(const c10::intrusive_ptr<c10d::Store>&, int, int,
                                                              std::chrono::milliseconds) {
  throw CollectiveError(
      "This LibTorch build has no NCCL, so several CUDA devices cannot train together; use a CUDA build of "
      "LibTorch with NCCL (pip torch), or one device.");
}

#endif

}  // namespace wb
