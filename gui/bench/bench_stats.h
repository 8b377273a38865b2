#pragma once
// What the window's benchmarks report of a set of timings.

#include <algorithm>
#include <cmath>
#include <vector>

namespace wb::gui::bench {

// The p-th percentile (0..100) by the nearest-rank method; 0 for no values.
inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

}  // namespace wb::gui::bench
