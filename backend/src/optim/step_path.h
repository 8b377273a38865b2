#pragma once
// Which update an optimizer of ours runs. Auto, what training uses: on CUDA the fused kernels where this
// LibTorch has them (2.x), else the foreach ops (1.13); on the CPU what it did before them (the CPU-fused
// Adam/AdamW pass, LibTorch's step for the others), which is faster there. The others force one path
// wherever the tensors are, so tests can check on CPU tensors what runs on CUDA.

#include <torch/torch.h>

#include <vector>

namespace wb {

enum class StepPath {
  Auto,
  Fused,     // LibTorch's fused multi-tensor kernels (Foreach where this LibTorch has none for the device)
  Foreach,   // _foreach_ ops with host learning rates and step counts
  LibTorch,  // the base class's step (and, for Adam/AdamW, the CPU-fused pass where it applies)
};

// Our optimizers (fused_adam.h, fused_sgd.h, foreach_optimizers.h) say which update their next step takes:
// the run log names it (stepDescription in fused_adam.h), tests check it.
class ReportsStepPath {
 public:
  virtual ~ReportsStepPath() = default;
  // Fused, Foreach or LibTorch (the base class's step, or for Adam/AdamW the CPU-fused pass).
  virtual StepPath nextStepPath() const = 0;
  // Forces a path for the next steps (tests); StepPath::Auto is what training uses.
  virtual void setStepPath(StepPath path) = 0;
};

// The parameters of `groups` fit one list update: every one on the device and in the floating dtype of the
// first, dense, its gradient (where it has one) a dense tensor of the same dtype, device and strides.
bool listUpdatable(const std::vector<torch::optim::OptimizerParamGroup>& groups);

// The device of the first parameter of `groups` (the CPU when there is none).
torch::Device groupsDevice(const std::vector<torch::optim::OptimizerParamGroup>& groups);

// Each group's learning rate in a float32 0-dim tensor on the group's device, which a fused step reads: a
// CUDA graph replays with whatever was staged last.
class StagedLearningRates {
 public:
  // Each group's options' lr into its tensor (made on the first call). A value already staged is not written
  // again: step() stages too, and inside a graph capture an unneeded fill_ would be recorded with the value
  // of capture time and overwrite, at every replay, the rate staged before it.
  void stage(const std::vector<torch::optim::OptimizerParamGroup>& groups);
  size_t size() const { return m_tensors.size(); }
  const torch::Tensor& operator[](size_t group) const { return m_tensors[group]; }
  const std::vector<torch::Tensor>& tensors() const { return m_tensors; }

 private:
  std::vector<torch::Tensor> m_tensors;
  std::vector<double> m_values;
};

// What `requested` comes to for `groups`: Fused, Foreach or LibTorch. `has_fused_kernel`: this LibTorch has
// the optimizer's fused kernel for CUDA (its CPU kernel came later: WB_HAS_FUSED_CPU_KERNELS).
StepPath resolveStepPath(StepPath requested, const std::vector<torch::optim::OptimizerParamGroup>& groups,
                         bool has_fused_kernel);

}  // namespace wb
