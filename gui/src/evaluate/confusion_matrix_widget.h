#pragma once
// A confusion matrix drawn as a heatmap: one row per true class, one column per predicted class, each cell
// with its count, coloured by its share of the row (so a small class's mistakes show as clearly as a large
// one's). Hovering a cell names both classes, the count and the share.

#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <vector>

namespace wb::gui {

class ConfusionMatrixWidget : public QWidget {
  Q_OBJECT

 public:
  explicit ConfusionMatrixWidget(QWidget* parent = nullptr);

  // counts[t][p]: samples of true class t predicted as p; names: one per class.
  void setMatrix(const std::vector<std::vector<int64_t>>& counts, const QStringList& names);
  void clear();
  const std::vector<std::vector<int64_t>>& counts() const { return m_counts; }
  // The cell under a point of the widget: {true class, predicted class}, or {-1, -1}.
  std::pair<int, int> cellAt(const QPoint& pos) const;
  QString cellToolTip(int truth, int predicted) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;  // tooltips

 private:
  struct Geometry {
    QRectF grid;  // the cells
    double cell = 0;
    double rowLabelWidth = 0;
    double columnLabelHeight = 0;
  };
  Geometry geometry() const;
  double rowShare(int truth, int predicted) const;

  std::vector<std::vector<int64_t>> m_counts;
  std::vector<int64_t> m_rowSums;
  QStringList m_names;
};

}  // namespace wb::gui
