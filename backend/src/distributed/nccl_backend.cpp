// NCCL: c10d's CUDA process group, one rank per GPU. Only in CUDA builds of LibTorch (USE_C10D_NCCL).
#include "distributed/collective_backends.h"

#ifdef WB_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <cstdlib>
#include <mutex>

#include "distributed/collective_error.h"

namespace wb {

void prepareNcclEnvironment() {
  // NCCL enforces the timeout only with blocking waits; its default asynchronous error handling (2.x)
  // tears the whole process down instead — the window with it, before the run can be marked failed. Unless
  // the user chose otherwise: blocking waits that throw, no teardown, no heartbeat monitor. Once per
  // process: glibc's setenv may move the environment while another thread's getenv reads it (each rank
  // thread's ProcessGroupNCCL reads these), so it must not run beside them.
  static std::once_flag once;
  std::call_once(once, [] {
    for (const char* name : {"TORCH_NCCL_BLOCKING_WAIT", "NCCL_BLOCKING_WAIT"}) ::setenv(name, "1", 0);
    for (const char* name : {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "NCCL_ASYNC_ERROR_HANDLING"})
      ::setenv(name, "0", 0);
    ::setenv("TORCH_NCCL_ENABLE_MONITORING", "0", 0);
    // Start and end CUDA events around each collective: its duration on the GPU (Work::getDuration), the
    // communication time of the metrics, which a host clock cannot see (the work completes as it is queued).
    ::setenv("TORCH_NCCL_ENABLE_TIMING", "1", 0);
  });
}

#ifdef WB_WITH_NCCL

bool ncclAvailable() {
  return true;
}

c10::intrusive_ptr<compat::CollectiveBackend> makeNcclBackend(const c10::intrusive_ptr<c10d::Store>& store,
                                                              int rank, int size,
                                                              std::chrono::milliseconds timeout) {
  // The environment it reads was set before the rank threads started (trainLocalRanks); here, on a rank
  // thread, setenv would race the other ranks' constructors. Already done: call_once only waits.
  prepareNcclEnvironment();
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, options);
}

#else

bool ncclAvailable() {
  return false;
}

c10::intrusive_ptr<compat::CollectiveBackend> makeNcclBackend(const c10::intrusive_ptr<c10d::Store>&, int,
                                                              int, std::chrono::milliseconds) {
  throw CollectiveError(
      "This LibTorch build has no NCCL, so several CUDA devices cannot train together; use a CUDA build of "
      "LibTorch with NCCL (pip torch), or one device.");
}

#endif

}  // namespace wb
