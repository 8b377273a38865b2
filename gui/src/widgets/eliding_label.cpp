#include "widgets/eliding_label.h"

#include <QHelpEvent>
#include <QPainter>
#include <QStyle>
#include <QStyleOption>
#include <QTextDocumentFragment>
#include <QToolTip>

namespace wb::gui {
namespace {

bool isRich(const QLabel& label) {
  return label.textFormat() == Qt::RichText ||
         (label.textFormat() == Qt::AutoText && Qt::mightBeRichText(label.text()));
}

QString plainText(const QLabel& label) {
  return isRich(label) ? QTextDocumentFragment::fromHtml(label.text()).toPlainText() : label.text();
}

}  // namespace

ElidingLabel::ElidingLabel(QWidget* parent) : ElidingLabel(QString(), parent) {}

ElidingLabel::ElidingLabel(const QString& text, QWidget* parent) : QLabel(text, parent) {}

QSize ElidingLabel::minimumSizeHint() const {
  QSize size = QLabel::minimumSizeHint();
  if (!wordWrap()) size.setWidth(std::min(size.width(), fontMetrics().averageCharWidth() * 6));
  return size;
}

bool ElidingLabel::isCut() const {
  return !wordWrap() && QLabel::sizeHint().width() > width();
}

bool ElidingLabel::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && isCut()) {
    const QString own = toolTip();
    QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(),
                       plainText(*this) + (own.isEmpty() ? QString() : QStringLiteral("\n\n") + own), this);
    return true;
  }
  return QLabel::event(event);
}

void ElidingLabel::paintEvent(QPaintEvent* event) {
  if (!isCut()) {
    QLabel::paintEvent(event);
    return;
  }
  QPainter painter(this);
  drawFrame(&painter);
  const int inset = margin() + std::max(0, indent());
  const QRect area = contentsRect().adjusted(inset, margin(), -inset, -margin());
  QStyleOption option;
  option.initFrom(this);
  const QString shown = fontMetrics().elidedText(plainText(*this), Qt::ElideRight, area.width());
  style()->drawItemText(&painter, area, QStyle::visualAlignment(layoutDirection(), alignment()),
                        option.palette, isEnabled(), shown, foregroundRole());
}

}  // namespace wb::gui
