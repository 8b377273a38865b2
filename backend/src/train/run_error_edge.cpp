#include "train/run_error_edge.h"

#include <c10/util/Exception.h>

#include <new>

#include "distributed/collective_error.h"
#include "train/non_finite_loss_error.h"
#include "workbench/errors.h"

namespace wb {

RunError classifyRunError(std::exception_ptr error, const RunErrorHints& hints) {
  try {
    std::rethrow_exception(error);
  } catch (const c10::OutOfMemoryError& e) {
    return {ErrorKind::OutOfMemory, std::string("Out of device memory: ") + e.what_without_backtrace(),
            hints.out_of_memory};
  } catch (const NonFiniteLossError& e) {
    return {ErrorKind::NonFinite, e.what(), hints.non_finite};
  } catch (const ExperimentChangedError& e) {
    return {ErrorKind::ExperimentChanged, e.what(), e.hint()};
  } catch (const UserError& e) {
    return {ErrorKind::BadInput, e.what(), e.hint()};
  } catch (const CollectiveError& e) {
    return {ErrorKind::Device, e.what(),
            "Another rank failed, died or hangs: its own message is in its output (ranks other than 0 also "
            "log to "
            "rank-N.log in the run folder). The last checkpoint is intact; resume the run once all ranks can "
            "run. "
            "train.collective_timeout sets how long ranks wait for each other."};
  } catch (const c10::Error& e) {
    const std::string text = e.what_without_backtrace();
    if (text.find("CUDA") != std::string::npos) {
      return {ErrorKind::Device, "CUDA error: " + text,
              "Check the GPU with nvidia-smi, or train on \"cpu\"."};
    }
    return {ErrorKind::Internal, "LibTorch error: " + text,
            "This is likely a bug in the workbench or an unsupported model. " + hints.log_kept};
  } catch (const std::bad_alloc&) {
    return {ErrorKind::OutOfMemory, "Out of host memory.", hints.out_of_host_memory};
  } catch (const std::exception& e) {
    return {ErrorKind::Internal, e.what(), hints.log_kept};
  } catch (...) {
    return {ErrorKind::Internal, "Unknown error", hints.log_kept};
  }
}

}  // namespace wb
