#pragma once
// A split of tokenized texts as a SampleSource: each batch padded to its own longest text (dynamic padding)
// and packed as the text models read it, int64 [B, 3, L] (util/packed_text_input.h: ids, attention mask,
// token type ids). The tokens were made once (data/tokenized_texts.h); a batch is a copy of its rows' ids.

#include <memory>
#include <vector>

#include "data/sample_source.h"
#include "data/tokenized_texts.h"

namespace wb {

class TextSource : public SampleSource {
 public:
  // `rows`: this split's records of `texts`; `pad_id`: the model's padding token (config.json's
  // pad_token_id).
  TextSource(std::shared_ptr<const TokenizedTexts> texts, std::vector<int64_t> rows, int64_t pad_id,
             int workers);

  int64_t size() const override { return static_cast<int64_t>(m_rows.size()); }
  torch::Tensor inputs(const std::vector<int64_t>& rows, std::optional<uint64_t> augment_seed,
                       bool pinned) const override;
  std::string sampleName(int64_t row) const override;
  int workers() const override { return m_workers; }
  std::vector<int64_t> sampleLengths() const override;

  // The labels of this split's rows, int64 [N] (DataSplit::y).
  torch::Tensor labels() const;

 private:
  std::shared_ptr<const TokenizedTexts> m_texts;
  std::vector<int64_t> m_rows;
  int64_t m_pad_id;
  int m_workers;
};

}  // namespace wb
