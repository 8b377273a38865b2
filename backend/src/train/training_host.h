#pragma once
// This process made ready to train, one way for a run (each of its ranks on this machine), a compression
// pass's fine-tuning, the finders and the benchmark: the intra-op and BLAS threads (train.threads and
// train.blas_threads, or with several ranks each rank's share of the cores, so the ranks do not oversubscribe
// them), freed host memory kept for reuse, and on CUDA the backend switches train.* asks for. The caller logs
// the lines it returns where its log wants them.

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>

#include "workbench/experiment.h"

namespace wb {

// Each rank's share of this machine's cores: train.threads (every core when 0) over the ranks on it, at least
// one.
int64_t coresPerRank(const TrainConfig& train, int64_t ranks_on_this_machine);

// Sets the threads: train.threads and train.blas_threads as they are, or with `cores_per_rank` (several
// ranks) that many intra-op threads and as many BLAS threads unless train.blas_threads says otherwise.
// configureThreads' line.
std::string configureTrainingThreads(const TrainConfig& train, std::optional<int64_t> cores_per_rank);

struct TrainingHost {
  std::string threads;                       // configureThreads' line
  std::string host_memory;                   // what freed host memory does now
  std::optional<std::string> cuda_switches;  // on CUDA: cuDNN benchmark, TF32
};

// Threads, host memory and, on a CUDA `device`, the backend switches, in that order.
TrainingHost prepareTrainingHost(const TrainConfig& train, torch::Device device,
                                 std::optional<int64_t> cores_per_rank = std::nullopt);

}  // namespace wb
