#include "compress/pruning_mask_part.h"

namespace wb {

void PruningMaskPart::saveState(PartState& into) const {
  for (auto& named : m_masks->masks()) into.push_back(std::move(named));
}

void PruningMaskPart::loadState(const PartState& from) {
  m_masks->restore(NamedTensors(from.begin(), from.end()));
}

}  // namespace wb
