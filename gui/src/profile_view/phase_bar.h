#pragma once
// The step's phases (data, forward, backward, optimizer, allreduce) as one horizontal bar: a segment per
// phase as wide as its share of the step, its milliseconds written in it where they fit and in the legend
// under it always. A phase the step does not have (allreduce with one device) is left out of the bar and
// shown as "allreduce —" in the legend, never drawn as a zero.

#include <QColor>
#include <QRectF>
#include <QString>
#include <QWidget>
#include <vector>

namespace wb::gui {

struct PhaseSegment {
  QString name;    // "forward"
  double ms = -1;  // mean per step; < 0: not measured
  QColor color;
};

class PhaseBar : public QWidget {
  Q_OBJECT

 public:
  explicit PhaseBar(QWidget* parent = nullptr);

  void setPhases(std::vector<PhaseSegment> phases);
  const std::vector<PhaseSegment>& phases() const { return m_phases; }
  // Where each measured phase is drawn, in the widget's coordinates, in the order of phases() (an empty
  // rectangle for one not measured or of zero time): what a test measures the proportions by.
  std::vector<QRectF> segmentRects() const;
  // The legend's text for each phase: "forward 12.3 ms"; "allreduce —" for one the step does not have.
  QStringList labels() const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QRectF barRect() const;
  double measuredTotal() const;

  std::vector<PhaseSegment> m_phases;
};

}  // namespace wb::gui
