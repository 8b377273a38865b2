#pragma once
// torch's default CPU generator is one per process, and LibTorch has no per-thread stand-in for it: module
// initialization (torch::nn::init takes no generator) and dropout without one draw from it. A run seeds it,
// initializes its model from it and, on one CPU device, draws each step's dropout masks from it; meanwhile
// the window builds models for its previews on other threads (the model summary, the experiment's checks,
// the weights preview), whose initialization draws from it too, and would shift the run's numbers: two runs
// with one seed could differ. So everyone who touches it takes turns through one lock, and a preview gives it
// back as it found it (BorrowedDefaultCpuGenerator): a run then draws exactly what it would alone.
// (CPU ranks of a data-parallel run draw from step generators of their own, model/step_generator.h; a CUDA
// device's default generator is touched by no preview.)

#include <torch/torch.h>

#include <cstdint>
#include <mutex>

namespace wb {

// Held by a run while it seeds torch's default CPU generator, draws from it (initialization, dropout) or
// reads or sets its state (checkpoints); recursive, so a hold inside a hold (a build that runs a forward
// pass) is fine.
std::unique_lock<std::recursive_mutex> holdDefaultCpuGenerator();

// The same for a draw on `device`'s default generator: held for the CPU, an empty lock for a CUDA device.
std::unique_lock<std::recursive_mutex> holdDefaultGenerator(const torch::Device& device);

// For a scope that is no part of any run (a preview building a model to read its names, shapes or a
// weights file's fit): the default CPU generator held and seeded with `seed`, as a run seeds it before it
// builds its model (so the preview's model is the run's); at the end its state before is put back and it is
// let go. CUDA generators are left alone (torch::manual_seed would reseed them under a training GPU).
class BorrowedDefaultCpuGenerator {
 public:
  explicit BorrowedDefaultCpuGenerator(uint64_t seed);
  ~BorrowedDefaultCpuGenerator();
  BorrowedDefaultCpuGenerator(const BorrowedDefaultCpuGenerator&) = delete;
  BorrowedDefaultCpuGenerator& operator=(const BorrowedDefaultCpuGenerator&) = delete;

 private:
  std::unique_lock<std::recursive_mutex> m_hold;
  torch::Tensor m_state;
};

}  // namespace wb
