#pragma once
// The learning rate over the whole run (warmup included), as the engine will set it: computed by the engine's
// wb::learningRateCurve from the schedule being edited, drawn on a small chart below the form.

#include <QString>
#include <QWidget>

#include "workbench/lr_preview.h"

class QLabel;

namespace wb::gui {

class MetricChart;

class LrPreview : public QWidget {
  Q_OBJECT

 public:
  explicit LrPreview(QWidget* parent = nullptr);
  void setCurve(const LrCurve& curve, int64_t warmupSteps, bool plateau);
  void setUnavailable(const QString& why);
  MetricChart* chart() const { return m_chart; }
  int pointCount() const;

 private:
  MetricChart* m_chart;
  QLabel* m_caption;
  int m_series = 0;
};

}  // namespace wb::gui
