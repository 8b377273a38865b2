#pragma once
// The charts in a grid that reflows with the room it has: three columns (3×2) on a wide window, two (2×3), or
// one column, each chart at least its minimum size; what does not fit in height scrolls. So the charts never
// make the window wider or taller than a laptop screen.

#include <QList>
#include <QScrollArea>

class QGridLayout;

namespace wb::gui {

class ChartGrid : public QScrollArea {
  Q_OBJECT

 public:
  ChartGrid(const QList<QWidget*>& charts, QSize chartMinimum, QWidget* parent = nullptr);
  int columns() const { return m_columns; }
  QSize minimumSizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  int columnsFor(int width) const;
  void reflow(int columns);

  QList<QWidget*> m_charts;
  QSize m_chartMinimum;
  QGridLayout* m_grid;
  int m_columns = 0;
};

}  // namespace wb::gui
