#pragma once
// What an optimizer whose step runs wholly on the device offers beside torch::optim::Optimizer's step():
// fp16 loss scaling without a host read (the kernels take the scaler's grad_scale and found_inf, and a step
// with inf/NaN gradients changes nothing, as torch's fused Adam/AdamW/SGD do under GradScaler), and a step a
// CUDA graph can capture (learning rates and step counts in device tensors, nothing read back, nothing
// allocated after the first step). The loss scaler and the graphed step ask for it with dynamic_cast; an
// optimizer without it keeps LibTorch's step and the scaler's one host read, as torch does for those.

#include <torch/torch.h>

#include <vector>

namespace wb {

class DeviceStep {
 public:
  virtual ~DeviceStep() = default;

  // Whether the next step takes the device path: every parameter with a gradient on a CUDA device, in a dtype
  // and layout the kernels take (and, on LibTorch 1.13, false: no fused kernels there).
  virtual bool stepsOnDevice() const = 0;

  // Whether that step may be captured in a CUDA graph: it reads its learning rates from the device tensors
  // stageLearningRates() writes, and no host value. For the log when graphs are refused, a reason otherwise.
  virtual bool capturable() const = 0;

  // Copies each group's learning rate (its options' lr) into the device tensor the step reads. Called outside
  // a graph before each replay (so a live learning-rate change reaches a captured step) and by step().
  virtual void stageLearningRates() = 0;

  // One step: the gradients divided by `grad_scale` inside the kernels (undefined: they are true gradients
  // already), and nothing at all changed — weights, moments, step counts — where `found_inf` is nonzero
  // (undefined: always steps). Only when stepsOnDevice().
  virtual void stepScaled(const torch::Tensor& grad_scale, const torch::Tensor& found_inf) = 0;

  // Every device tensor a captured step reads or writes, in an order that stays the same while none is
  // replaced: the parameters, their state (undefined where a parameter has none yet), the step counts and
  // the staged learning rates. A CUDA graph holds them and compares them before each replay
  // (step/graph_capture_plan.h): a replaced one means the graph must be captured again.
  virtual std::vector<torch::Tensor> graphTensors() const = 0;
};

}  // namespace wb
