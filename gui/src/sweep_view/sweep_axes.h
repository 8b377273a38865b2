#pragma once
// How a sweep's values are laid out on a chart axis: numbers on a linear or a log scale (log when every value
// is > 0 and they span 20x or more, as a learning rate's do), anything else (optimizer names, booleans) as
// categories in sorted order. Positions are 0..1 for the parallel-coordinates chart; `place` gives the value
// on the axis's own scale for the metric-against-key chart.

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <vector>

namespace wb::gui {

class SweepAxis {
 public:
  // From every trial's value of one key (null where a trial lacks it).
  static SweepAxis fromValues(const QString& name, const std::vector<nlohmann::json>& values);
  static SweepAxis fromNumbers(const QString& name, const std::vector<double>& numbers);  // the metric

  QString name() const { return m_name; }
  bool categorical() const { return m_categorical; }
  bool logScale() const { return m_log; }
  QStringList categories() const { return m_categories; }
  double min() const { return m_min; }
  double max() const { return m_max; }
  // 0..1 along the axis; NaN for a value the axis cannot place.
  double position(const nlohmann::json& value) const;
  // The value on the axis's own scale: the number itself, or the category's index.
  double place(const nlohmann::json& value) const;
  QString label(double position) const;  // the value at a position, as the axis ends show it

 private:
  QString m_name;
  bool m_categorical = false;
  bool m_log = false;
  QStringList m_categories;
  double m_min = 0, m_max = 1;
};

QString sweepValueText(const nlohmann::json& value);

}  // namespace wb::gui
