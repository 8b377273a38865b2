#include "editor/lr_preview.h"

#include <QLabel>
#include <QVBoxLayout>

#include "charts/metric_chart.h"

namespace wb::gui {

LrPreview::LrPreview(QWidget* parent) : QWidget(parent) {
  m_chart = new MetricChart(tr("Learning-rate schedule"), tr("optimizer step"), tr("learning rate"), this);
  m_chart->setLegendShown(false);
  m_chart->setMinimumHeight(130);  // a laptop screen keeps its room for the form
  // About three value ticks at this height: five ran together ("0.0025 0.002 0.0015"); from zero, so a
  // constant rate is a level line, not one in a ±10 % range of five crowded labels.
  m_chart->setValueTickCount(2);  // rounded to a readable step: 0, 5e-5, 1e-4 for a flat 1e-4
  m_chart->setValueAxisFromZero(true);
  m_chart->setEmptyText(tr("Computing…"));
  SeriesStyle style;
  style.color = QColor(0x1f, 0x77, 0xb4);
  style.width = 2;
  m_series = m_chart->addSeries(tr("learning rate"), style, QStringLiteral("preview"));
  m_caption = new QLabel(this);
  m_caption->setWordWrap(true);
  m_caption->setEnabled(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(m_chart, 1);
  layout->addWidget(m_caption);
}

void LrPreview::setCurve(const LrCurve& curve, int64_t warmupSteps, bool plateau) {
  QVector<double> keys, values;
  keys.reserve(static_cast<int>(curve.steps.size()));
  values.reserve(static_cast<int>(curve.lr.size()));
  for (size_t i = 0; i < curve.steps.size() && i < curve.lr.size(); ++i) {
    keys.push_back(static_cast<double>(curve.steps[i]));
    values.push_back(curve.lr[i]);
  }
  m_chart->replacePoints(m_series, keys, values);
  m_chart->autoscale();
  QString caption = tr("%1 steps in all (%2 per epoch)").arg(curve.total_steps).arg(curve.steps_per_epoch);
  if (warmupSteps > 0) caption += tr(", the first %1 warming up").arg(warmupSteps);
  if (plateau)
    caption += tr(". Plateau lowers the rate when validation stalls; drawn as if it kept improving");
  m_caption->setText(caption + QLatin1Char('.'));
}

void LrPreview::setUnavailable(const QString& why) {
  m_chart->replacePoints(m_series, {}, {});
  m_chart->setEmptyText(why);
  m_chart->autoscale();
  m_caption->setText(QString());
}

int LrPreview::pointCount() const {
  return m_chart->pointCount(m_series);
}

}  // namespace wb::gui
