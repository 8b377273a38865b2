#pragma once
// Where a tokenizer puts its special tokens around one text or a pair, and the type ids each part gets
// (tokenizer.json's post_processor: TemplateProcessing, or BertProcessing as the same template).
// "[CLS] $A [SEP]" and "[CLS] $A [SEP] $B:1 [SEP]:1" for BERT.

#include <string>
#include <vector>

#include "text/subword_model.h"

namespace wb::text {

struct TemplatePiece {
  enum class Kind { Special, SequenceA, SequenceB } kind = Kind::SequenceA;
  std::vector<TokenPiece> special;  // a special token's pieces (one, for BERT)
  std::int64_t type_id = 0;
};

struct SpecialTokensTemplate {
  std::vector<TemplatePiece> single;  // empty: the text as it is
  std::vector<TemplatePiece> pair;

  // How many tokens the template adds: what truncation keeps room for.
  std::int64_t addedCount(bool isPair) const;
};

}  // namespace wb::text
