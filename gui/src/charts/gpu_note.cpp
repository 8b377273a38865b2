#include "charts/gpu_note.h"

#include <QFontMetrics>

#include "charts/metric_chart.h"

namespace wb::gui {

GpuNote::GpuNote(MetricChart* chart) : m_chart(chart), m_item(new QCPItemText(chart)) {
  m_item->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_item->position->setCoords(0.02, 0.03);
  m_item->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  m_item->setClipToAxisRect(true);
  QFont small = chart->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  m_item->setFont(small);
  m_item->setColor(QColor(0x7f, 0x7f, 0x7f));  // readable on the light and the dark theme
  m_item->setVisible(false);
}

void GpuNote::setText(const QString& text) {
  if (text == m_text) return;
  m_text = text;
  // The loader's reason can be a long path: the chart's width (at least a small chart's) keeps it in view.
  const int width = std::max(200, m_chart->axisRect()->width() - 12);
  m_item->setText(QFontMetrics(m_item->font()).elidedText(text, Qt::ElideRight, width));
  m_item->setVisible(!text.isEmpty());
  m_chart->markDirty();
}

QString GpuNote::textShown() const {
  return m_item->visible() ? m_item->text() : QString();
}

}  // namespace wb::gui
