#include "train/training_host.h"

#include <algorithm>

#include "util/fast_paths.h"
#include "util/host_allocator.h"
#include "workbench/system_info.h"

namespace wb {

int64_t coresPerRank(const TrainConfig& train, int64_t ranks_on_this_machine) {
  return std::max<int64_t>(1, (train.threads > 0 ? train.threads : coresAvailable()) /
                                  std::max<int64_t>(1, ranks_on_this_machine));
}

std::string configureTrainingThreads(const TrainConfig& train, std::optional<int64_t> cores_per_rank) {
  if (!cores_per_rank) return configureThreads(train.threads, train.blas_threads);
  return configureThreads(
      *cores_per_rank, std::max<int64_t>(1, train.blas_threads > 0 ? train.blas_threads : *cores_per_rank));
}

TrainingHost prepareTrainingHost(const TrainConfig& train, torch::Device device,
                                 std::optional<int64_t> cores_per_rank) {
  TrainingHost host;
  host.threads = configureTrainingThreads(train, cores_per_rank);
  host.host_memory = keepFreedHostMemoryForReuse();
  if (device.is_cuda()) host.cuda_switches = applyCudaBackendSwitches(train);
  return host;
}

}  // namespace wb
