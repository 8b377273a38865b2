#include "data/length_buckets.h"

#include <algorithm>
#include <random>

namespace wb {

std::vector<int64_t> lengthBucketedOrder(const std::vector<int64_t>& order,
                                         const std::vector<int64_t>& lengths, int64_t batch_size,
                                         uint64_t seed, int64_t pool_batches) {
  const size_t batch = static_cast<size_t>(std::max<int64_t>(1, batch_size));
  const size_t pool = batch * static_cast<size_t>(std::max<int64_t>(1, pool_batches));
  const auto length = [&](int64_t row) { return lengths[static_cast<size_t>(row)]; };
  std::vector<std::vector<int64_t>> batches;
  for (size_t begin = 0; begin < order.size(); begin += pool) {
    std::vector<int64_t> rows(
        order.begin() + static_cast<std::ptrdiff_t>(begin),
        order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), begin + pool)));
    // Stable: rows of one length keep their shuffled order.
    std::stable_sort(rows.begin(), rows.end(), [&](int64_t a, int64_t b) { return length(a) < length(b); });
    for (size_t b = 0; b < rows.size(); b += batch) {
      batches.emplace_back(rows.begin() + static_cast<std::ptrdiff_t>(b),
                           rows.begin() + static_cast<std::ptrdiff_t>(std::min(rows.size(), b + batch)));
    }
  }
  // The last batch of the epoch may be short (drop_last cuts it): it stays last, so full batches stay full.
  std::mt19937_64 generator(seed);
  const bool shortLast = !batches.empty() && batches.back().size() < batch;
  std::shuffle(batches.begin(), batches.end() - (shortLast ? 1 : 0), generator);
  std::vector<int64_t> out;
  out.reserve(order.size());
  for (const auto& b : batches) out.insert(out.end(), b.begin(), b.end());
  return out;
}

double paddingWasted(const std::vector<int64_t>& order, const std::vector<int64_t>& lengths,
                     int64_t batch_size) {
  const size_t batch = static_cast<size_t>(std::max<int64_t>(1, batch_size));
  double tokens = 0, positions = 0;
  for (size_t begin = 0; begin < order.size(); begin += batch) {
    const size_t end = std::min(order.size(), begin + batch);
    int64_t longest = 0;
    for (size_t i = begin; i < end; ++i) {
      const int64_t n = lengths[static_cast<size_t>(order[i])];
      tokens += static_cast<double>(n);
      longest = std::max(longest, n);
    }
    positions += static_cast<double>(longest) * static_cast<double>(end - begin);
  }
  return positions > 0 ? 1.0 - tokens / positions : 0.0;
}

}  // namespace wb
