#pragma once
// Gradual magnitude pruning (Zhu & Gupta) as a step part: every `every` steps, and at the last, the masks are
// raised to the cubic schedule's sparsity for that step. Before the masks' own part in the list, which then
// applies the raised masks to the weights.

#include <memory>

#include "compress/magnitude_pruning.h"
#include "step/step_part.h"

namespace wb {

struct GradualPruningSchedule {
  double initial = 0;  // the selection's sparsity when the pass began
  double target = 0;
  int64_t total_steps = 1;
  int64_t every = 1;
  bool global = true;
};

class GradualPruningPart final : public StepPart {
 public:
  GradualPruningPart(std::shared_ptr<PruningMasks> masks, GradualPruningSchedule schedule)
      : m_masks(std::move(masks)), m_schedule(schedule) {}
  std::string name() const override { return "gradual_pruning"; }
  void afterStep(int64_t step) override;

 private:
  std::shared_ptr<PruningMasks> m_masks;
  GradualPruningSchedule m_schedule;
};

}  // namespace wb
