#include "compression_view/pareto_chart.h"

#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace wb::gui {
namespace {

constexpr double kParetoHoverRadiusPx = 24;

const QColor kArtifactColor(0x1e, 0x88, 0xe5);
const QColor kOriginalColor(0x6d, 0x4c, 0x41);
const QColor kFrontColor(0xef, 0x6c, 0x00);

}  // namespace

std::vector<int> paretoFront(const std::vector<TradeOffPoint>& points) {
  std::vector<int> front;
  for (int i = 0; i < static_cast<int>(points.size()); ++i) {
    const TradeOffPoint& p = points[i];
    bool dominated = false;
    for (int j = 0; j < static_cast<int>(points.size()) && !dominated; ++j) {
      if (j == i) continue;
      const TradeOffPoint& q = points[j];
      const bool noWorse = q.cost <= p.cost && q.accuracy >= p.accuracy;
      const bool better = q.cost < p.cost || q.accuracy > p.accuracy;
      // Two models with identical figures: the first one listed stays on the front.
      dominated = noWorse && (better || j < i);
    }
    if (!dominated) front.push_back(i);
  }
  std::sort(front.begin(), front.end(), [&](int a, int b) { return points[a].cost < points[b].cost; });
  return front;
}

ParetoChart::ParetoChart(const QString& title, const QString& costLabel, QWidget* parent)
    : QCustomPlot(parent), m_title(title) {
  setObjectName(title);
  plotLayout()->insertRow(0);
  QFont titleFont = font();
  titleFont.setBold(true);
  m_titleElement = new QCPTextElement(this, title, titleFont);
  plotLayout()->addElement(0, 0, m_titleElement);
  xAxis->setLabel(costLabel);
  yAxis->setLabel(tr("test accuracy (%)"));
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
  for (QCPAxis* axis : {xAxis, yAxis}) {
    axis->setTickLabelFont(small);
    axis->setLabelFont(small);
  }
  legend->setFont(small);
  legend->setVisible(true);
  legend->setIconSize(18, 8);
  // The legend sits in a row under the plot, one line wide, so it never covers a point (the good corner,
  // small and accurate, is where compressed models land).
  axisRect()->insetLayout()->take(legend);
  plotLayout()->addElement(2, 0, legend);
  legend->setFillOrder(QCPLegend::foColumnsFirst);
  plotLayout()->setRowStretchFactor(2, 0.001);
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);

  m_front = addGraph();
  m_front->setName(tr("Pareto front"));
  m_front->setLineStyle(QCPGraph::lsLine);
  QPen frontPen(kFrontColor, 1.6, Qt::DashLine);
  frontPen.setCosmetic(true);
  m_front->setPen(frontPen);
  m_artifacts = addGraph();
  m_artifacts->setName(tr("compressed"));
  m_artifacts->setLineStyle(QCPGraph::lsNone);
  m_artifacts->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kArtifactColor, 8));
  m_artifacts->setPen(QPen(kArtifactColor));
  m_original = addGraph();
  m_original->setName(tr("original"));
  m_original->setLineStyle(QCPGraph::lsNone);
  m_original->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(kOriginalColor, 2), kOriginalColor, 11));
  m_original->setPen(QPen(kOriginalColor));

  m_emptyLabel = new QCPItemText(this);
  m_emptyLabel->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_emptyLabel->position->setCoords(0.5, 0.5);
  m_emptyLabel->setPositionAlignment(Qt::AlignCenter);
  m_emptyLabel->setClipToAxisRect(true);
  m_emptyLabel->setText(tr("No compressed models yet: Compress ▸ Prune…, Quantize…, Distill… or Pipeline…"));

  applyPalette();
  xAxis->setRange(0, 1);
  yAxis->setRange(0, 100);
}

void ParetoChart::setPoints(std::vector<TradeOffPoint> points) {
  points.erase(std::remove_if(points.begin(), points.end(),
                              [](const TradeOffPoint& p) {
                                return !(p.cost >= 0) || !(p.accuracy >= 0) || !std::isfinite(p.cost);
                              }),
               points.end());
  m_points = std::move(points);
  m_frontIndices = paretoFront(m_points);

  QVector<double> ok, ov, ak, av, fk, fv;
  for (const TradeOffPoint& p : m_points) {
    (p.original ? ok : ak).push_back(p.cost);
    (p.original ? ov : av).push_back(p.accuracy);
  }
  for (int i : m_frontIndices) {
    fk.push_back(m_points[i].cost);
    fv.push_back(m_points[i].accuracy);
  }
  // Scatter graphs: QCustomPlot sorts by key, which is all a point cloud needs.
  m_original->setData(ok, ov);
  m_artifacts->setData(ak, av);
  m_front->setData(fk, fv, /*alreadySorted=*/true);

  for (QCPItemText* label : m_labels) removeItem(label);
  m_labels.clear();
  const QColor text = palette().color(QPalette::WindowText);
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
  for (const TradeOffPoint& p : m_points) {
    auto* label = new QCPItemText(this);
    label->position->setCoords(p.cost, p.accuracy);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    label->setPadding(QMargins(7, 0, 0, 3));
    label->setFont(small);
    label->setColor(text);
    label->setText(p.name);
    m_labels.push_back(label);
  }

  m_emptyLabel->setVisible(m_points.empty());
  if (!m_points.empty()) {
    double maxCost = 0, lo = 100, hi = 0;
    for (const TradeOffPoint& p : m_points) {
      maxCost = std::max(maxCost, p.cost);
      lo = std::min(lo, p.accuracy);
      hi = std::max(hi, p.accuracy);
    }
    // From zero, so the distance to the axis reads as the ratio; room on the right for the labels.
    xAxis->setRange(0, maxCost > 0 ? maxCost * 1.25 : 1);
    const double margin = std::max(0.5, (hi - lo) * 0.15);
    yAxis->setRange(std::max(0.0, lo - margin), std::min(100.0, hi + margin) + margin * 0.5);
  }
  replot(QCustomPlot::rpQueuedReplot);
}

QStringList ParetoChart::frontNames() const {
  QStringList names;
  for (int i : m_frontIndices) names << m_points[i].name;
  return names;
}

QStringList ParetoChart::labels() const {
  QStringList out;
  for (const QCPItemText* label : m_labels) out << label->text();
  return out;
}

int ParetoChart::nearestPoint(const QPointF& pixel) const {
  int best = -1;
  double bestDist = kParetoHoverRadiusPx;
  for (int i = 0; i < static_cast<int>(m_points.size()); ++i) {
    const double x = xAxis->coordToPixel(m_points[i].cost);
    const double y = yAxis->coordToPixel(m_points[i].accuracy);
    const double d = std::hypot(x - pixel.x(), y - pixel.y());
    if (d < bestDist) {
      bestDist = d;
      best = i;
    }
  }
  return best;
}

QString ParetoChart::hoverTextAt(const QPointF& pixel) const {
  const int i = nearestPoint(pixel);
  return i < 0 ? QString() : m_points[i].details;
}

void ParetoChart::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  if (event->buttons() != Qt::NoButton) return;
  const QString text = hoverTextAt(event->position());
  if (text.isEmpty()) {
    QToolTip::hideText();
  } else {
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
  }
}

void ParetoChart::leaveEvent(QEvent* event) {
  QToolTip::hideText();
  QCustomPlot::leaveEvent(event);
}

void ParetoChart::changeEvent(QEvent* event) {
  QCustomPlot::changeEvent(event);
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
    applyPalette();
    replot(QCustomPlot::rpQueuedReplot);
  }
}

void ParetoChart::applyPalette() {
  const QPalette pal = palette();
  const QColor base = pal.color(QPalette::Base);
  const QColor text = pal.color(QPalette::WindowText);
  QColor grid = text;
  grid.setAlpha(40);
  QColor subtle = text;
  subtle.setAlpha(140);
  setBackground(pal.color(QPalette::Window));
  axisRect()->setBackground(base);
  for (QCPAxis* axis : {xAxis, yAxis}) {
    axis->setBasePen(QPen(subtle, 1));
    axis->setTickPen(QPen(subtle, 1));
    axis->setSubTickPen(QPen(subtle, 1));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
  }
  m_titleElement->setTextColor(text);
  QColor legendBg = base;
  legendBg.setAlpha(210);
  legend->setBrush(legendBg);
  legend->setBorderPen(QPen(grid));
  legend->setTextColor(text);
  m_emptyLabel->setColor(subtle);
  for (QCPItemText* label : m_labels) label->setColor(text);
}

}  // namespace wb::gui
