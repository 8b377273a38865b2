#include "text/special_tokens_template.h"

namespace wb::text {

std::int64_t SpecialTokensTemplate::addedCount(bool isPair) const {
  std::int64_t count = 0;
  for (const TemplatePiece& piece : isPair ? pair : single) {
    if (piece.kind == TemplatePiece::Kind::Special) count += static_cast<std::int64_t>(piece.special.size());
  }
  return count;
}

}  // namespace wb::text
