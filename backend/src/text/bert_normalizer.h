#pragma once
// BERT's normalizer as Hugging Face's tokenizers has it (normalizers/bert.rs): control characters dropped and
// whitespace made a plain space, spaces around CJK ideographs, accents stripped (NFD, then the Mn marks
// dropped; by default whenever lowercasing), lowercase.

#include <optional>

#include "text/text_normalizer.h"

namespace wb::text {

struct BertNormalizerOptions {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  std::optional<bool> strip_accents;  // unset: as lowercase
  bool lowercase = true;
};

class BertNormalizer final : public TextNormalizer {
 public:
  explicit BertNormalizer(BertNormalizerOptions options) : m_options(options) {}
  std::u32string normalize(std::u32string text) const override;

 private:
  BertNormalizerOptions m_options;
};

}  // namespace wb::text
