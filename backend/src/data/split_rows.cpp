#include "data/split_rows.h"

#include <cmath>

#include "data/seed_mixing.h"
#include "workbench/errors.h"

namespace wb {

std::pair<torch::Tensor, torch::Tensor> seededSplit(int64_t n, int64_t held_out, uint64_t seed) {
  torch::Generator generator = makeCpuGenerator(seed);
  const torch::Tensor order = torch::randperm(n, generator, torch::kLong);
  return {std::get<0>(order.narrow(0, 0, n - held_out).sort()),
          std::get<0>(order.narrow(0, n - held_out, held_out).sort())};
}

int64_t heldOutCount(int64_t n, double fraction, const std::string& key) {
  if (!(fraction >= 0.0 && fraction < 1.0)) {
    throw UserError(key + " must be at least 0 and below 1, got " + std::to_string(fraction));
  }
  const auto held_out = static_cast<int64_t>(std::llround(fraction * static_cast<double>(n)));
  if (held_out >= n) {
    throw UserError(key + " = " + std::to_string(fraction) + " of " + std::to_string(n) +
                        " samples leaves none for training",
                    "lower " + key + " or use more samples (data.limit)");
  }
  return held_out;
}

int64_t limitedCount(int64_t n, int64_t limit) {
  if (limit < 0) throw UserError("data.limit must be 0 (all) or positive, got " + std::to_string(limit));
  return limit > 0 ? std::min(limit, n) : n;
}

std::vector<int64_t> rowsOf(const torch::Tensor& rows) {
  const torch::Tensor c = rows.contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

TrainValRows limitThenHoldOut(std::vector<int64_t> pool, int64_t limit, double val_fraction,
                              uint64_t limit_seed, uint64_t val_seed) {
  const auto available = static_cast<int64_t>(pool.size());
  const int64_t used = limitedCount(available, limit);
  if (used < available) {
    const auto [dropped, chosen] = seededSplit(available, used, limit_seed);
    (void)dropped;
    std::vector<int64_t> subset;
    for (const int64_t i : rowsOf(chosen)) subset.push_back(pool[static_cast<size_t>(i)]);
    pool = std::move(subset);
  }
  const auto kept = static_cast<int64_t>(pool.size());
  const int64_t val = heldOutCount(kept, val_fraction, "data.val_fraction");
  const auto [train_rows, val_rows] = seededSplit(kept, val, val_seed);
  TrainValRows rows;
  for (const int64_t i : rowsOf(train_rows)) rows.train.push_back(pool[static_cast<size_t>(i)]);
  for (const int64_t i : rowsOf(val_rows)) rows.val.push_back(pool[static_cast<size_t>(i)]);
  return rows;
}

}  // namespace wb
