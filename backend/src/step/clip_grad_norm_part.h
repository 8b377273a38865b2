#pragma once
// train.clip_grad_norm as a step part: Python's clip_grad_norm_ without its .item(). The total norm stays on
// the device and the scale is applied as a tensor, so clipping costs no host synchronization per step; the
// norms are read back only when a window of steps is reported. With fp16 loss scaling it comes after the loss
// scaling part, which unscaled the gradients: the true gradients are clipped. A pipeline's stages hold their
// gradients on several devices (train.pipeline): each device's squared norm is measured there, the sums meet
// on the first parameter's device and the one scale goes back to each device, as torch.nn.utils'
// clip_grad_norm_ does it (device-to-device copies, no host read).

#include <functional>
#include <vector>

#include "step/step_part.h"

namespace wb {

// Sums a scalar tensor across the ranks in place (a collective every rank calls).
using SumAcrossRanks = std::function<void(torch::Tensor&)>;

// The total 2-norm of the gradients, and every gradient scaled so that it is at most `max_norm`. With
// `sum_across`, each rank holds only its shard of the gradients (train.shard gradients): the squared norms
// are summed across the ranks first, so every rank clips by the norm of all of them.
torch::Tensor clipGradNorm(const std::vector<torch::Tensor>& params, double max_norm,
                           const SumAcrossRanks& sum_across = {});

// The defined gradients of `params`, one list per device, the devices in the order they first appear.
std::vector<std::vector<torch::Tensor>> gradientsByDevice(const std::vector<torch::Tensor>& params);

// clipGradNorm over gradients grouped as gradientsByDevice groups them (each group on one device): the total
// norm is the square root of the groups' squared norms summed on `home`, and every group is scaled by the one
// factor. One group is measured exactly as one device's gradients always were.
torch::Tensor clipGradientGroups(const std::vector<std::vector<torch::Tensor>>& groups, torch::Device home,
                                 double max_norm, const SumAcrossRanks& sum_across = {});

class ClipGradNormPart final : public StepPart {
 public:
  ClipGradNormPart(std::vector<torch::Tensor> params, double max_norm);
  std::string name() const override { return "clip_grad_norm"; }
  bool capturable() const override { return true; }
  void gradientsReady() override;
  // The mean of the window's finite norms and the count of the others, in one read of the device.
  GradNormWindow takeGradNorm() override;
  // Sharded gradients: the norm is the group's (see clipGradNorm).
  void sumAcrossRanks(SumAcrossRanks sum) { m_sum_across = std::move(sum); }

 private:
  std::vector<torch::Tensor> m_params;
  double m_max_norm;
  SumAcrossRanks m_sum_across;
  // On the device, since the last takeGradNorm: the finite norms' sum and count, and the count of inf/NaN
  // ones (counted there too, so a step replayed from a CUDA graph, which runs none of this host code, is
  // counted; and a host check per step would synchronize the device).
  torch::Tensor m_norm_sum;
  torch::Tensor m_count;
  torch::Tensor m_nonfinite;
};

}  // namespace wb
