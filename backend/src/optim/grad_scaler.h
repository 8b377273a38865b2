#pragma once
// Dynamic loss scaling for fp16 mixed precision: torch.cuda.amp.GradScaler (torch.amp.GradScaler("cuda"))
// with the same defaults and the same arithmetic, for one optimizer whose gradients live on one device.
//
// Per optimizer step (any number of scale(loss).backward() calls for gradient accumulation before it):
//   scaler.unscale(optimizer);        // optional: needed only to clip or inspect true gradients
//   clip the gradients;               // on unscaled gradients
//   scaler.step(optimizer);           // no step where a gradient is inf/NaN
//   scaler.update();                  // backoff or growth of the scale; also when the step was skipped
//
// The scale, the growth tracker and the count of skipped steps stay on the device (1-element tensors, as in
// torch): unscale() and update() never wait for the device, and neither does step() for an optimizer whose
// step runs on the device (optim/device_step.h: the fused kernels take found_inf and change nothing when it
// is set, as torch's fused Adam/AdamW/SGD do). For any other optimizer step() reads found_inf back once, as
// torch's does. Whether a step was skipped is therefore not known on the host when it happens: a caller
// counts every step (the learning-rate schedule moves on, as in a Python loop that calls scheduler.step()
// after scaler.step()) and reads skippedSteps() with the other metrics. On CUDA the fused ATen kernels torch
// uses do the work; elsewhere (CPU, which LibTorch 1.13 has no kernels for) plain tensor ops with the same
// semantics do, so the scaler is testable without a GPU. Nothing is allocated per step after the first, so
// the whole sequence can be captured in a CUDA graph.

#include <torch/torch.h>

#include <cstdint>
#include <nlohmann/json.hpp>

namespace wb {

struct GradScalerOptions {
  double init_scale = 65536.0;  // 2^16
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  bool enabled = true;  // disabled: scale() returns the loss unchanged and step() always steps
};

// What a checkpoint stores to resume the scaler exactly (torch's GradScaler.state_dict() holds the same).
struct GradScalerState {
  double scale = 65536.0;
  int64_t growth_tracker = 0;  // consecutive clean steps since the last change of the scale
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  int64_t skipped_steps = 0;  // ours, not torch's: optimizer steps skipped for inf/NaN gradients so far

  nlohmann::json toJson() const;
  static GradScalerState fromJson(const nlohmann::json& j);
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});

  bool enabled() const { return m_options.enabled; }

  // loss × scale (the scale is created on the loss's device at the first call, like torch's lazy init).
  torch::Tensor scale(const torch::Tensor& loss);

  // Divides the optimizer's gradients by the scale in place and records whether any is inf/NaN, without a
  // host synchronization. At most once per optimizer step (a second call before update() throws, as torch).
  // fp16 gradients (fp16 parameters) are refused as torch refuses them: keep the weights in float32.
  void unscale(torch::optim::Optimizer& optimizer);

  // The optimizer's step unless a gradient was inf/NaN. An optimizer with a device step (DeviceStep) takes
  // the scale and found_inf into its kernels: no host read, and gradients not unscaled yet are unscaled
  // there. Any other is unscaled first if unscale() was not called, and stepped after one host read of
  // found_inf.
  void step(torch::optim::Optimizer& optimizer);

  // Adjusts the scale after step(): ×backoff_factor and tracker 0 on an overflow, else tracker + 1 and, when
  // it reaches growth_interval, ×growth_factor (if still finite) and tracker 0. No host synchronization.
  void update();

  // The current scale (reads the device: for metrics at logging time, not every step). options.init_scale
  // before the first scale(); 1.0 when disabled (torch returns 1.0 too).
  double currentScale() const;

  // Optimizer steps skipped for inf/NaN gradients so far (reads the device: at logging time).
  int64_t skippedSteps() const;
  // Whether the last step() skipped the optimizer step (false before the first step()); reads the device.
  bool lastStepSkipped() const;

  // Reads the device (scale, tracker): call at checkpoint time.
  GradScalerState state() const;
  // Before or after the first scale(); the options' factors and interval are replaced by the state's.
  void loadState(const GradScalerState& state);

 private:
  enum class Stage { Ready, Unscaled, Stepped };

  void ensureScale(const torch::Device& device);
  // found_inf of the optimizer's gradients multiplied by `inv_scale` (1: only checked).
  void checkAndUnscale(torch::optim::Optimizer& optimizer, const torch::Tensor& inv_scale);

  GradScalerOptions m_options;
  double m_init_scale;
  int64_t m_init_growth_tracker = 0;
  int64_t m_init_skipped_steps = 0;
  torch::Tensor m_scale;           // float32 [1]
  torch::Tensor m_growth_tracker;  // int32 [1]
  torch::Tensor m_found_inf;       // float32 [1]; this step's from unscale() (or step()) on, the last's after
  torch::Tensor m_skipped_steps;   // float64 []: the steps skipped so far, counted on the device
  Stage m_stage = Stage::Ready;
  bool m_checked = false;  // m_found_inf holds this step's check (from unscale() or step() to update())
};

}  // namespace wb
