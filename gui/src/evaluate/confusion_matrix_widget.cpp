#include "evaluate/confusion_matrix_widget.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace wb::gui {
namespace {

constexpr double kMargin = 8;
constexpr double kMinCell = 26;
constexpr double kMaxCell = 64;
constexpr double kAxisTitle = 20;  // the "True class" / "Predicted class" titles

// A sequential blue ramp (light to dark, as matplotlib's "Blues" that confusion-matrix plots usually use).
QColor rampColour(double share) {
  share = std::clamp(share, 0.0, 1.0);
  const double t = std::sqrt(share);  // small shares still visible: most off-diagonal cells are a few percent
  const QColor light(247, 251, 255);
  const QColor dark(8, 48, 107);
  return QColor::fromRgbF(light.redF() + (dark.redF() - light.redF()) * t,
                          light.greenF() + (dark.greenF() - light.greenF()) * t,
                          light.blueF() + (dark.blueF() - light.blueF()) * t);
}

}  // namespace

ConfusionMatrixWidget::ConfusionMatrixWidget(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("confusionMatrix"));
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ConfusionMatrixWidget::setMatrix(const std::vector<std::vector<int64_t>>& counts,
                                      const QStringList& names) {
  m_counts = counts;
  m_names = names;
  m_rowSums.assign(counts.size(), 0);
  for (size_t t = 0; t < counts.size(); ++t) {
    for (const int64_t c : counts[t]) m_rowSums[t] += c;
  }
  while (m_names.size() < static_cast<int>(counts.size())) m_names << QString::number(m_names.size());
  updateGeometry();
  update();
}

void ConfusionMatrixWidget::clear() {
  setMatrix({}, {});
}

double ConfusionMatrixWidget::rowShare(int truth, int predicted) const {
  const int64_t sum = m_rowSums[static_cast<size_t>(truth)];
  return sum > 0 ? static_cast<double>(m_counts[static_cast<size_t>(truth)][static_cast<size_t>(predicted)]) /
                       static_cast<double>(sum)
                 : 0.0;
}

ConfusionMatrixWidget::Geometry ConfusionMatrixWidget::geometry() const {
  Geometry g;
  const QFontMetricsF fm(font());
  double longest = 0;
  for (const QString& name : m_names) longest = std::max(longest, fm.horizontalAdvance(name));
  g.rowLabelWidth = longest + 10;
  g.columnLabelHeight = longest + 10;  // column names are written upwards
  const int n = std::max<int>(1, static_cast<int>(m_counts.size()));
  const double left = kMargin + kAxisTitle + g.rowLabelWidth;
  const double top = kMargin + kAxisTitle + g.columnLabelHeight;
  const double room = std::min(width() - left - kMargin, height() - top - kMargin);
  g.cell = std::clamp(room / n, kMinCell, kMaxCell);
  g.grid = QRectF(left, top, g.cell * n, g.cell * n);
  return g;
}

QSize ConfusionMatrixWidget::sizeHint() const {
  const QFontMetricsF fm(font());
  double longest = 0;
  for (const QString& name : m_names) longest = std::max(longest, fm.horizontalAdvance(name));
  const int n = std::max<int>(1, static_cast<int>(m_counts.size()));
  const int side = static_cast<int>(2 * kMargin + kAxisTitle + longest + 10 + n * 44);
  return {side, side};
}

QSize ConfusionMatrixWidget::minimumSizeHint() const {
  const QFontMetricsF fm(font());
  double longest = 0;
  for (const QString& name : m_names) longest = std::max(longest, fm.horizontalAdvance(name));
  const int n = std::max<int>(1, static_cast<int>(m_counts.size()));
  const int side = static_cast<int>(2 * kMargin + kAxisTitle + longest + 10 + n * kMinCell);
  return {side, side};
}

std::pair<int, int> ConfusionMatrixWidget::cellAt(const QPoint& pos) const {
  if (m_counts.empty()) return {-1, -1};
  const Geometry g = geometry();
  if (!g.grid.contains(pos)) return {-1, -1};
  const int n = static_cast<int>(m_counts.size());
  const int t = std::min(n - 1, static_cast<int>((pos.y() - g.grid.top()) / g.cell));
  const int p = std::min(n - 1, static_cast<int>((pos.x() - g.grid.left()) / g.cell));
  return {t, p};
}

QString ConfusionMatrixWidget::cellToolTip(int truth, int predicted) const {
  const int64_t count = m_counts[static_cast<size_t>(truth)][static_cast<size_t>(predicted)];
  const QString share = QString::number(rowShare(truth, predicted) * 100, 'f', 1);
  if (truth == predicted) {
    return tr("%1: %2 of %3 correct (%4 % recall)")
        .arg(m_names[truth])
        .arg(count)
        .arg(m_rowSums[static_cast<size_t>(truth)])
        .arg(share);
  }
  return tr("True %1, predicted %2: %3 samples (%4 % of %1)")
      .arg(m_names[truth], m_names[predicted])
      .arg(count)
      .arg(share);
}

bool ConfusionMatrixWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const auto [t, p] = cellAt(help->pos());
    if (t >= 0) {
      QToolTip::showText(help->globalPos(), cellToolTip(t, p), this);
    } else {
      QToolTip::hideText();
      e->ignore();
    }
    return true;
  }
  return QWidget::event(e);
}

void ConfusionMatrixWidget::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing, false);
  painter.setRenderHint(QPainter::TextAntialiasing, true);
  const QPalette pal = palette();
  if (m_counts.empty()) {
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(rect(), Qt::AlignCenter, tr("No evaluation yet"));
    return;
  }
  const Geometry g = geometry();
  const int n = static_cast<int>(m_counts.size());

  // Axis titles.
  QFont bold = font();
  bold.setBold(true);
  painter.setFont(bold);
  painter.setPen(pal.color(QPalette::WindowText));
  painter.drawText(QRectF(g.grid.left(), kMargin, g.grid.width(), kAxisTitle), Qt::AlignCenter,
                   tr("Predicted class"));
  painter.save();
  painter.translate(kMargin, g.grid.top() + g.grid.height() / 2);
  painter.rotate(-90);
  painter.drawText(QRectF(-g.grid.height() / 2, 0, g.grid.height(), kAxisTitle), Qt::AlignCenter,
                   tr("True class"));
  painter.restore();
  painter.setFont(font());

  // Class names: rows on the left, columns written upwards above the grid.
  for (int i = 0; i < n; ++i) {
    painter.drawText(QRectF(kMargin + kAxisTitle, g.grid.top() + i * g.cell, g.rowLabelWidth - 6, g.cell),
                     Qt::AlignRight | Qt::AlignVCenter, m_names[i]);
    painter.save();
    painter.translate(g.grid.left() + i * g.cell, g.grid.top() - 4);
    painter.rotate(-90);
    painter.drawText(QRectF(0, 0, g.columnLabelHeight - 6, g.cell), Qt::AlignLeft | Qt::AlignVCenter,
                     m_names[i]);
    painter.restore();
  }

  // Cells: colour by the row's share, the count on top in a colour that stays readable.
  QFont cellFont = font();
  if (g.cell < 34 && cellFont.pointSizeF() > 0) cellFont.setPointSizeF(cellFont.pointSizeF() * 0.85);
  painter.setFont(cellFont);
  for (int t = 0; t < n; ++t) {
    for (int p = 0; p < n; ++p) {
      const QRectF cell(g.grid.left() + p * g.cell, g.grid.top() + t * g.cell, g.cell, g.cell);
      const double share = rowShare(t, p);
      const QColor fill = rampColour(share);
      painter.fillRect(cell, fill);
      painter.setPen(fill.lightnessF() < 0.55 ? QColor(Qt::white) : QColor(20, 20, 20));
      const int64_t count = m_counts[static_cast<size_t>(t)][static_cast<size_t>(p)];
      painter.drawText(cell, Qt::AlignCenter, QString::number(count));
    }
  }
  painter.setPen(QPen(pal.color(QPalette::Mid), 1));
  painter.drawRect(g.grid);
  // The diagonal (correct predictions) outlined so it reads at a glance.
  painter.setPen(QPen(pal.color(QPalette::Highlight), 1.5));
  for (int i = 0; i < n; ++i) {
    painter.drawRect(
        QRectF(g.grid.left() + i * g.cell + 1, g.grid.top() + i * g.cell + 1, g.cell - 2, g.cell - 2));
  }
}

}  // namespace wb::gui
