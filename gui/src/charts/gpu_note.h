#pragma once
// A line of small grey text in a chart's top-left corner saying why a run's GPU has no figures on it ("GPU:
// no NVML: cannot load libnvidia-ml.so.1", "GPU: CPU run"): the chart draws no GPU curve then, never a zero.

#include <QString>

class QCPItemText;

namespace wb::gui {

class MetricChart;

class GpuNote {
 public:
  explicit GpuNote(MetricChart* chart);
  // Empty hides it. Elided to the chart's width; the full text is text().
  void setText(const QString& text);
  QString text() const { return m_text; }
  QString textShown() const;

 private:
  MetricChart* m_chart;
  QCPItemText* m_item;
  QString m_text;
};

}  // namespace wb::gui
