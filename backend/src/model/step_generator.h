#pragma once
// The random stream a training step draws its dropout masks from, per thread. The ranks of an in-process
// data-parallel run are threads: drawing from torch's one global CPU generator, each rank's masks would
// depend on how the threads happen to interleave, and no run (and no resume) could repeat. Each rank instead
// seeds its own stream before every step from (seed, rank, step); layers that draw (StepDropout) use it when
// it is set for the calling thread and draw from torch's generators exactly as before when it is not, so
// runs on one device, and their checkpoints, are unchanged.

#include <torch/torch.h>

#include <cstdint>
#include <optional>

namespace wb {

// This thread's step generator (a CPU generator), or nullptr when none is set: the default.
torch::Generator* stepGenerator();

// Sets this thread's step generator; std::nullopt clears it.
void setStepGenerator(std::optional<torch::Generator> generator);

// Before each step of a rank on `device`, on the rank's thread. CPU: this thread's step generator, created on
// the first call, is seeded with `seed`. CUDA: this thread's step generator is cleared and the device's
// default CUDA generator (which dropout on its tensors draws from; each in-process rank has a device of its
// own) is seeded with `seed`.
void seedStepGenerator(const torch::Device& device, uint64_t seed);

// Sets this thread's step generator for a scope (a rank's thread body) and restores the previous one at its
// end, so a thread that goes on to run a single-device run does not keep drawing from a rank's stream.
class StepGeneratorScope {
 public:
  explicit StepGeneratorScope(std::optional<torch::Generator> generator = std::nullopt);
  ~StepGeneratorScope();
  StepGeneratorScope(const StepGeneratorScope&) = delete;
  StepGeneratorScope& operator=(const StepGeneratorScope&) = delete;

 private:
  std::optional<torch::Generator> m_previous;
};

}  // namespace wb
