#include "widgets/wheel_guard.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QWidget>

namespace wb::gui {
namespace {

class UnfocusedWheelFilter : public QObject {
 public:
  using QObject::QObject;

  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::Wheel) return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget || widget->hasFocus()) return false;
    // Ignored and filtered out: QApplication hands an ignored wheel event on to the parent (the scroll
    // area's viewport), which scrolls.
    event->ignore();
    return true;
  }
};

QObject* sharedFilter() {
  static QObject* filter = new UnfocusedWheelFilter(QCoreApplication::instance());
  return filter;
}

}  // namespace

void guardWheel(QWidget* field) {
  if (!qobject_cast<QAbstractSpinBox*>(field) && !qobject_cast<QComboBox*>(field)) return;
  field->setFocusPolicy(Qt::StrongFocus);
  field->installEventFilter(sharedFilter());
}

}  // namespace wb::gui
