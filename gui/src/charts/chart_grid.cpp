#include "charts/chart_grid.h"

#include <QGridLayout>
#include <QResizeEvent>
#include <QScrollBar>

namespace wb::gui {
namespace {
constexpr int kSpacing = 4;
constexpr int kMargin = 2;
}  // namespace

ChartGrid::ChartGrid(const QList<QWidget*>& charts, QSize chartMinimum, QWidget* parent)
    : QScrollArea(parent), m_charts(charts), m_chartMinimum(chartMinimum) {
  setObjectName(QStringLiteral("chartGrid"));
  setFrameShape(QFrame::NoFrame);
  setWidgetResizable(true);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* inner = new QWidget(this);
  m_grid = new QGridLayout(inner);
  m_grid->setContentsMargins(kMargin, kMargin, kMargin, kMargin);
  m_grid->setSpacing(kSpacing);
  for (QWidget* chart : m_charts) chart->setMinimumSize(m_chartMinimum);
  setWidget(inner);
  reflow(3);
}

QSize ChartGrid::minimumSizeHint() const {
  // One chart and the scroll bar: the rest reflows below it.
  return {m_chartMinimum.width() + 2 * kMargin + verticalScrollBar()->sizeHint().width(),
          m_chartMinimum.height() + 2 * kMargin};
}

int ChartGrid::columnsFor(int width) const {
  for (int columns = 3; columns > 1; --columns) {
    if (columns * m_chartMinimum.width() + (columns - 1) * kSpacing + 2 * kMargin <= width) return columns;
  }
  return 1;
}

void ChartGrid::reflow(int columns) {
  if (columns == m_columns) return;
  m_columns = columns;
  for (QWidget* chart : m_charts) m_grid->removeWidget(chart);
  for (int i = 0; i < m_charts.size(); ++i) m_grid->addWidget(m_charts[i], i / columns, i % columns);
  const int rows = static_cast<int>((m_charts.size() + columns - 1) / columns);
  for (int r = 0; r < m_grid->rowCount(); ++r) m_grid->setRowStretch(r, r < rows ? 1 : 0);
  for (int c = 0; c < m_grid->columnCount(); ++c) m_grid->setColumnStretch(c, c < columns ? 1 : 0);
}

void ChartGrid::resizeEvent(QResizeEvent* event) {
  // The scroll bar may come or go with the reflow; its width is counted in either case.
  reflow(columnsFor(event->size().width() - verticalScrollBar()->sizeHint().width()));
  QScrollArea::resizeEvent(event);
}

}  // namespace wb::gui
