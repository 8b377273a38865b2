#pragma once
// Exponential moving average of the training loss, debiased as TensorBoard's smoothing slider is, so the
// smoothed curve starts at the first value instead of rising from zero.

#include <cmath>
#include <cstdint>

namespace wb::gui {

class Ema {
 public:
  explicit Ema(double weight = 0) : m_weight(weight) {}
  double add(double value) {
    if (!std::isfinite(value)) return value;  // a NaN/inf loss shows as a gap, not a poisoned average
    ++m_count;
    m_state = m_weight * m_state + (1 - m_weight) * value;
    const double debias = 1 - std::pow(m_weight, static_cast<double>(m_count));
    return debias > 0 ? m_state / debias : value;
  }
  double weight() const { return m_weight; }

 private:
  double m_weight = 0;
  double m_state = 0;
  int64_t m_count = 0;
};

}  // namespace wb::gui
