#include "data/text_source.h"

#include <algorithm>

namespace wb {

TextSource::TextSource(std::shared_ptr<const TokenizedTexts> texts, std::vector<int64_t> rows, int64_t pad_id,
                       int workers)
    : m_texts(std::move(texts)), m_rows(std::move(rows)), m_pad_id(pad_id), m_workers(workers) {}

torch::Tensor TextSource::inputs(const std::vector<int64_t>& rows, std::optional<uint64_t> /*augment_seed*/,
                                 bool pinned) const {
  const TokenizedTexts& t = *m_texts;
  int64_t longest = 0;
  for (const int64_t row : rows) longest = std::max(longest, t.length(m_rows[static_cast<size_t>(row)]));
  const int64_t batch = static_cast<int64_t>(rows.size());
  torch::Tensor packed =
      torch::empty({batch, 3, longest}, torch::TensorOptions().dtype(torch::kLong).pinned_memory(pinned));
  int64_t* out = packed.data_ptr<int64_t>();
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t record = m_rows[static_cast<size_t>(rows[static_cast<size_t>(b)])];
    const int64_t begin = t.offsets[static_cast<size_t>(record)], length = t.length(record);
    int64_t* ids = out + b * 3 * longest;
    int64_t* mask = ids + longest;
    int64_t* types = mask + longest;
    for (int64_t i = 0; i < length; ++i) {
      ids[i] = t.ids[static_cast<size_t>(begin + i)];
      mask[i] = 1;
      types[i] = t.type_ids[static_cast<size_t>(begin + i)];
    }
    std::fill(ids + length, ids + longest, m_pad_id);
    std::fill(mask + length, mask + longest, 0);
    std::fill(types + length, types + longest, 0);
  }
  return packed;
}

std::string TextSource::sampleName(int64_t row) const {
  return m_texts->where[static_cast<size_t>(m_rows[static_cast<size_t>(row)])];
}

std::vector<int64_t> TextSource::sampleLengths() const {
  std::vector<int64_t> lengths;
  lengths.reserve(m_rows.size());
  for (const int64_t record : m_rows) lengths.push_back(m_texts->length(record));
  return lengths;
}

torch::Tensor TextSource::labels() const {
  std::vector<int64_t> y;
  y.reserve(m_rows.size());
  for (const int64_t record : m_rows) y.push_back(m_texts->labels[static_cast<size_t>(record)]);
  return torch::tensor(y, torch::kLong);
}

}  // namespace wb
