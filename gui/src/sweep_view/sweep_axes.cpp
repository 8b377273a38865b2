#include "sweep_view/sweep_axes.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb::gui {

QString sweepValueText(const nlohmann::json& value) {
  if (value.is_string()) return QString::fromStdString(value.get<std::string>());
  if (value.is_number()) return QString::number(value.get<double>(), 'g', 4);
  return QString::fromStdString(value.dump());
}

SweepAxis SweepAxis::fromValues(const QString& name, const std::vector<nlohmann::json>& values) {
  SweepAxis axis;
  axis.m_name = name;
  std::vector<double> numbers;
  for (const nlohmann::json& v : values) {
    if (v.is_null()) continue;
    if (!v.is_number()) axis.m_categorical = true;
    if (v.is_number()) numbers.push_back(v.get<double>());
  }
  if (!axis.m_categorical) return fromNumbers(name, numbers);
  for (const nlohmann::json& v : values) {
    if (!v.is_null() && !axis.m_categories.contains(sweepValueText(v)))
      axis.m_categories << sweepValueText(v);
  }
  axis.m_categories.sort();
  axis.m_min = 0;
  axis.m_max = std::max<double>(0, axis.m_categories.size() - 1);
  return axis;
}

SweepAxis SweepAxis::fromNumbers(const QString& name, const std::vector<double>& numbers) {
  SweepAxis axis;
  axis.m_name = name;
  if (numbers.empty()) return axis;
  axis.m_min = *std::min_element(numbers.begin(), numbers.end());
  axis.m_max = *std::max_element(numbers.begin(), numbers.end());
  axis.m_log = axis.m_min > 0 && axis.m_max / axis.m_min >= 20;
  return axis;
}

double SweepAxis::place(const nlohmann::json& value) const {
  if (m_categorical) {
    const int at = value.is_null() ? -1 : m_categories.indexOf(sweepValueText(value));
    return at < 0 ? std::numeric_limits<double>::quiet_NaN() : at;
  }
  return value.is_number() ? value.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

double SweepAxis::position(const nlohmann::json& value) const {
  const double v = place(value);
  if (std::isnan(v)) return v;
  if (m_categorical) return m_categories.size() <= 1 ? 0.5 : v / (m_categories.size() - 1);
  if (m_max <= m_min) return 0.5;
  if (m_log) return (std::log(v) - std::log(m_min)) / (std::log(m_max) - std::log(m_min));
  return (v - m_min) / (m_max - m_min);
}

QString SweepAxis::label(double position) const {
  if (m_categorical) {
    if (m_categories.isEmpty()) return {};
    const int at =
        m_categories.size() <= 1 ? 0 : static_cast<int>(std::lround(position * (m_categories.size() - 1)));
    return m_categories.value(std::clamp(at, 0, static_cast<int>(m_categories.size()) - 1));
  }
  const double v = m_log ? std::exp(std::log(m_min) + position * (std::log(m_max) - std::log(m_min)))
                         : m_min + position * (m_max - m_min);
  return QString::number(v, 'g', 3);
}

}  // namespace wb::gui
