#pragma once
// Pruning masks as a step part: pruned entries get no gradient (zeroed once the gradients are ready, after
// data parallel's allreduce) and stay exactly zero after each optimizer step (weight decay and momentum
// cannot revive them). The masks go into the pass's checkpoints: gradual pruning may have raised them since
// the pass began.

#include <memory>

#include "compress/magnitude_pruning.h"
#include "step/step_part.h"

namespace wb {

class PruningMaskPart final : public StepPart {
 public:
  explicit PruningMaskPart(std::shared_ptr<PruningMasks> masks) : m_masks(std::move(masks)) {}
  std::string name() const override { return "masks"; }
  void gradientsReady() override { m_masks->zeroPrunedGradients(); }
  void afterStep(int64_t) override { m_masks->applyToWeights(); }
  void saveState(PartState& into) const override;
  void loadState(const PartState& from) override;

 private:
  std::shared_ptr<PruningMasks> m_masks;
};

}  // namespace wb
