#include "profile_view/phase_bar.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPalette>
#include <algorithm>

namespace wb::gui {
namespace {

constexpr int kPhaseBarHeight = 26;
constexpr int kPhaseBarGap = 6;        // between the bar and the legend
constexpr int kPhaseSwatch = 10;       // the legend's colour square
constexpr int kPhaseLegendSpace = 16;  // between two legend entries

QString phaseMs(double ms) {
  return QStringLiteral("%1 ms").arg(ms, 0, 'f', ms < 10 ? 2 : 1);
}

}  // namespace

PhaseBar::PhaseBar(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("phaseBar"));
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void PhaseBar::setPhases(std::vector<PhaseSegment> phases) {
  m_phases = std::move(phases);
  updateGeometry();
  update();
}

double PhaseBar::measuredTotal() const {
  double total = 0;
  for (const PhaseSegment& p : m_phases)
    if (p.ms > 0) total += p.ms;
  return total;
}

QRectF PhaseBar::barRect() const {
  return QRectF(0.5, 0.5, width() - 1.0, kPhaseBarHeight - 1.0);
}

std::vector<QRectF> PhaseBar::segmentRects() const {
  std::vector<QRectF> rects;
  const double total = measuredTotal();
  const QRectF bar = barRect();
  double x = bar.left();
  for (const PhaseSegment& p : m_phases) {
    if (p.ms <= 0 || total <= 0) {
      rects.emplace_back();
      continue;
    }
    const double w = bar.width() * p.ms / total;
    rects.emplace_back(x, bar.top(), w, bar.height());
    x += w;
  }
  return rects;
}

QStringList PhaseBar::labels() const {
  QStringList out;
  for (const PhaseSegment& p : m_phases)
    out << (p.ms < 0 ? QStringLiteral("%1 —").arg(p.name)
                     : QStringLiteral("%1 %2").arg(p.name, phaseMs(p.ms)));
  return out;
}

QSize PhaseBar::sizeHint() const {
  return QSize(480, kPhaseBarHeight + kPhaseBarGap + fontMetrics().height() + 2);
}

QSize PhaseBar::minimumSizeHint() const {
  return QSize(160, sizeHint().height());
}

void PhaseBar::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  const QFontMetrics fm = fontMetrics();
  const QStringList texts = labels();
  const std::vector<QRectF> rects = segmentRects();
  painter.setPen(palette().color(QPalette::Mid));
  painter.setBrush(palette().color(QPalette::Base));
  painter.drawRect(barRect());
  for (size_t i = 0; i < m_phases.size(); ++i) {
    if (rects[i].isEmpty()) continue;
    painter.setPen(Qt::NoPen);
    painter.setBrush(m_phases[i].color);
    painter.drawRect(rects[i]);
    // The milliseconds in the segment where they fit; the legend has them all.
    const QString inside = phaseMs(m_phases[i].ms);
    if (fm.horizontalAdvance(inside) + 6 <= rects[i].width()) {
      painter.setPen(m_phases[i].color.lightnessF() > 0.6 ? Qt::black : Qt::white);
      painter.drawText(rects[i], Qt::AlignCenter, inside);
    }
  }
  // The legend: a swatch and "name 12.3 ms" per phase, as much as the width holds (the tooltip-free widget
  // is wide on every screen the window fits: five entries need about 560 px).
  int x = 0;
  const int y = kPhaseBarHeight + kPhaseBarGap;
  for (size_t i = 0; i < m_phases.size(); ++i) {
    const int w = kPhaseSwatch + 4 + fm.horizontalAdvance(texts[i]);
    painter.setPen(Qt::NoPen);
    painter.setBrush(m_phases[i].ms < 0 ? palette().color(QPalette::Mid) : m_phases[i].color);
    painter.drawRect(QRectF(x, y + (fm.height() - kPhaseSwatch) / 2.0, kPhaseSwatch, kPhaseSwatch));
    painter.setPen(palette().color(m_phases[i].ms < 0 ? QPalette::PlaceholderText : QPalette::WindowText));
    painter.drawText(QRect(x + kPhaseSwatch + 4, y, std::max(0, width() - x), fm.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, texts[i]);
    x += w + kPhaseLegendSpace;
  }
}

}  // namespace wb::gui
