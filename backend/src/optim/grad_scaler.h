#pragma once
// Dynamic loss scaling for fp16 mixed precision: torch.cuda.amp.GradScaler (torch.amp.GradScaler("cuda"))
// with the same defaults and the same arithmetic, for one optimizer whose gradients live on one device.
//
// Per optimizer step (any number of scale(loss).backward() calls for gradient accumulation before it):
//   scaler.unscale(optimizer);        // optional: needed only to clip or inspect true gradients
//   clip the gradients;               // on unscaled gradients
//   bool stepped = scaler.step(optimizer);  // skips optimizer.step() when a gradient is inf/NaN
//   scaler.update();                  // backoff or growth of the scale; also when the step was skipped
//
// The scale and growth tracker stay on the device (float32 / int32 1-element tensors, as in torch):
// unscale() and update() never wait for the device; step() reads found_inf back once, as torch does.
// On CUDA the fused ATen kernels torch uses do the work; elsewhere (CPU, which LibTorch 1.13 has no kernels
// for) plain tensor ops with the same semantics do, so the scaler is testable without a GPU.

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

  // Unscales if unscale() was not called this step, then runs optimizer.step() unless a gradient was
  // inf/NaN. Returns whether the optimizer stepped. One host read (found_inf) per call.
  bool step(torch::optim::Optimizer& optimizer);

  // Adjusts the scale after step(): ×backoff_factor and tracker 0 on an overflow, else tracker + 1 and, when
  // it reaches growth_interval, ×growth_factor (if still finite) and tracker 0. No host synchronization.
  void update();

  // The current scale (reads the device: for metrics at logging time, not every step). options.init_scale
  // before the first scale(); 1.0 when disabled (torch returns 1.0 too).
  double currentScale() const;

  int64_t skippedSteps() const { return m_skipped_steps; }
  // Whether the last step() skipped the optimizer step (false before the first step()).
  bool lastStepSkipped() const { return m_last_skipped; }

  // Reads the device (scale, tracker): call at checkpoint time.
  GradScalerState state() const;
  // Before or after the first scale(); the options' factors and interval are replaced by the state's.
  void loadState(const GradScalerState& state);

 private:
  enum class Stage { Ready, Unscaled, Stepped };

  void ensureScale(const torch::Device& device);

  GradScalerOptions m_options;
  double m_init_scale;
  int64_t m_init_growth_tracker = 0;
  torch::Tensor m_scale;           // float32 [1]
  torch::Tensor m_growth_tracker;  // int32 [1]
  torch::Tensor m_found_inf;       // float32 [1]; valid from unscale() to update()
  Stage m_stage = Stage::Ready;
  int64_t m_skipped_steps = 0;
  bool m_last_skipped = false;
};

}  // namespace wb
