#include "compress/gradual_pruning_part.h"

namespace wb {

void GradualPruningPart::afterStep(int64_t step) {
  const GradualPruningSchedule& s = m_schedule;
  if (step % s.every == 0 || step == s.total_steps) {
    m_masks->pruneTo(cubicSparsity(s.initial, s.target, step, s.total_steps), s.global);
  }
}

}  // namespace wb
