#include "data/data_split.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "data/batch_loader.h"

namespace wb {
namespace {

// A source's rows [begin, begin + count).
class RowRangeSource : public SampleSource {
 public:
  RowRangeSource(std::shared_ptr<const SampleSource> whole, int64_t begin, int64_t count)
      : m_whole(std::move(whole)), m_begin(begin), m_count(count) {}
  int64_t size() const override { return m_count; }
  torch::Tensor inputs(const std::vector<int64_t>& rows, std::optional<uint64_t> augment_seed,
                       bool pinned) const override {
    std::vector<int64_t> shifted(rows);
    for (int64_t& row : shifted) row += m_begin;
    return m_whole->inputs(shifted, augment_seed, pinned);
  }
  torch::Tensor onDevice(const torch::Tensor& inputs, std::optional<uint64_t> augment_seed) const override {
    return m_whole->onDevice(inputs, augment_seed);
  }
  std::string sampleName(int64_t row) const override { return m_whole->sampleName(row + m_begin); }
  int workers() const override { return m_whole->workers(); }

 private:
  std::shared_ptr<const SampleSource> m_whole;
  int64_t m_begin, m_count;
};

}  // namespace

torch::Tensor DataSplit::inputs(int64_t begin, int64_t count) const {
  if (inMemory()) return x.narrow(0, begin, count);
  std::vector<int64_t> rows(static_cast<size_t>(count));
  std::iota(rows.begin(), rows.end(), begin);
  return source->onDevice(source->inputs(rows, std::nullopt, /*pinned=*/false), std::nullopt);
}

DataSplit DataSplit::slice(int64_t begin, int64_t count) const {
  DataSplit part;
  part.y = y.narrow(0, begin, count);
  if (inMemory()) {
    part.x = x.narrow(0, begin, count);
  } else {
    part.source = std::make_shared<RowRangeSource>(source, begin, count);
  }
  return part;
}

SplitBatches::SplitBatches(const DataSplit& split, int64_t batch_size)
    : m_split(split), m_batch_size(std::max<int64_t>(1, batch_size)) {
  if (split.inMemory()) return;
  BatchLoaderOptions options;
  options.batch_size = m_batch_size;
  options.shuffle = false;
  options.prefetch = std::max(2, split.source->workers());
  m_loader = std::make_unique<BatchLoader>(split, options);
  m_loader->startEpoch(0);
}

SplitBatches::~SplitBatches() = default;

std::optional<Batch> SplitBatches::next() {
  if (m_next >= m_split.size()) return std::nullopt;
  const int64_t count = std::min(m_batch_size, m_split.size() - m_next);
  m_begin = m_next;
  m_next += count;
  if (m_loader) return m_loader->next();
  Batch batch;
  batch.x = m_split.x.narrow(0, m_begin, count);
  batch.y = m_split.y.narrow(0, m_begin, count);
  batch.index = m_begin / m_batch_size;
  return batch;
}

}  // namespace wb
