#pragma once
// A trade-off chart of a run's compressed models: test accuracy (up is better) against a cost (size on disk
// or latency; left is better). Every model is a labelled point, the original drawn apart; the Pareto front —
// the models no other model beats on both — is a line. Hovering a point shows its figures.

#include <qcustomplot.h>

#include <QString>
#include <QStringList>
#include <vector>

namespace wb::gui {

struct TradeOffPoint {
  QString name;         // "01-prune"
  double cost = 0;      // x: MiB or ms
  double accuracy = 0;  // y: percent
  bool original = false;
  QString details;  // the hover text (HTML)
};

// Indices of the points on the Pareto front (lower cost and higher accuracy are better), by rising cost. A
// point is off the front when another is at most as costly and at least as accurate, and better in one.
std::vector<int> paretoFront(const std::vector<TradeOffPoint>& points);

class ParetoChart : public QCustomPlot {
  Q_OBJECT

 public:
  ParetoChart(const QString& title, const QString& costLabel, QWidget* parent = nullptr);

  // Replaces what is shown. Points whose cost or accuracy was not measured (negative) are left out.
  void setPoints(std::vector<TradeOffPoint> points);

  const std::vector<TradeOffPoint>& points() const { return m_points; }
  QStringList frontNames() const;  // by rising cost
  QStringList labels() const;      // the text beside each point
  QString title() const { return m_title; }
  // The hover text of the point nearest a pixel position, empty when none is within reach.
  QString hoverTextAt(const QPointF& pixel) const;

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void applyPalette();
  int nearestPoint(const QPointF& pixel) const;

  QString m_title;
  QCPTextElement* m_titleElement = nullptr;
  QCPGraph* m_original = nullptr;
  QCPGraph* m_artifacts = nullptr;
  QCPGraph* m_front = nullptr;
  QCPItemText* m_emptyLabel = nullptr;
  std::vector<QCPItemText*> m_labels;
  std::vector<TradeOffPoint> m_points;
  std::vector<int> m_frontIndices;
};

}  // namespace wb::gui
