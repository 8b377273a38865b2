#include "widgets/screen_fit.h"

#include <QEvent>
#include <QGuiApplication>
#include <QPointer>
#include <QScreen>
#include <QTimer>
#include <QWidget>
#include <algorithm>

namespace wb::gui {

QRect fittedGeometry(QRect wanted, QSize preferred, QSize minimum, QRect available, QSize frame) {
  const QSize room(std::max(1, available.width() - frame.width()),
                   std::max(1, available.height() - frame.height()));
  QSize size = (wanted.isValid() ? wanted.size() : preferred).boundedTo(room).expandedTo(minimum);
  QRect out(QPoint(0, 0), size);
  if (!wanted.isValid()) {
    out.moveCenter(available.center());
  } else {
    out.moveTopLeft(wanted.topLeft());
  }
  // Inside the available area with its frame: the title bar above the client area, the borders around it.
  const int top = frame.height() - frame.width() / 2;
  const int side = frame.width() / 2;
  out.moveLeft(std::clamp(out.left(), available.left() + side,
                          std::max(available.left() + side, available.right() - side - out.width() + 1)));
  out.moveTop(std::clamp(out.top(), available.top() + top,
                         std::max(available.top() + top, available.bottom() - side - out.height() + 1)));
  return out;
}

void fitToScreen(QWidget* window, QSize preferred, bool keepPosition) {
  QScreen* screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
  if (!screen) return;
  const QRect wanted = keepPosition ? window->geometry() : QRect();
  const QRect fitted =
      fittedGeometry(wanted, preferred, window->minimumSizeHint().expandedTo(window->minimumSize()),
                     screen->availableGeometry());
  if (keepPosition) {
    window->setGeometry(fitted);  // the client area: the frame goes around it
  } else {
    window->resize(fitted.size());  // the window manager places it, on the screen it picks
  }
}

QSize fittedSize(const QWidget* dialog, QSize preferred) {
  const QWidget* anchor = dialog->parentWidget() ? dialog->parentWidget()->window() : dialog;
  QScreen* screen = anchor->screen() ? anchor->screen() : QGuiApplication::primaryScreen();
  if (!screen) return preferred;
  const QRect available = screen->availableGeometry();
  return preferred.boundedTo(available.size() - kTypicalFrame)
      .expandedTo(dialog->minimumSizeHint().expandedTo(dialog->minimumSize()));
}

namespace {

class InsideScreenKeeper : public QObject {
 public:
  explicit InsideScreenKeeper(QWidget* window) : QObject(window), m_window(window) {}

  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == m_window && event->type() == QEvent::Show) {
      // After the window manager has answered (the frame's size is known then); again a little later for a
      // slow one.
      for (int delay : {0, 150}) {
        QTimer::singleShot(delay, this, [this] { bringInside(); });
      }
    }
    return false;
  }

 private:
  void bringInside() {
    if (!m_window || !m_window->isVisible() || !m_window->screen()) return;
    const QRect available = m_window->screen()->availableGeometry();
    QRect frame = m_window->frameGeometry();
    const QRect client = m_window->geometry();
    // Before the frame is known, the typical one.
    const int top = frame.top() < client.top() ? client.top() - frame.top()
                                               : kTypicalFrame.height() - kTypicalFrame.width() / 2;
    if (frame == client)
      frame = client.adjusted(-kTypicalFrame.width() / 2, -top, kTypicalFrame.width() / 2,
                              kTypicalFrame.width() / 2);
    QPoint shift(0, 0);
    if (frame.right() > available.right()) shift.rx() = available.right() - frame.right();
    if (frame.left() + shift.x() < available.left()) shift.rx() = available.left() - frame.left();
    if (frame.bottom() > available.bottom()) shift.ry() = available.bottom() - frame.bottom();
    if (frame.top() + shift.y() < available.top()) shift.ry() = available.top() - frame.top();
    if (!shift.isNull()) m_window->move(m_window->pos() + shift);  // pos(): the frame's top left
  }

  QPointer<QWidget> m_window;
};

}  // namespace

void keepInsideScreen(QWidget* window) {
  window->installEventFilter(new InsideScreenKeeper(window));
}

void fitDialogToScreen(QWidget* dialog, QSize preferred) {
  dialog->resize(fittedSize(dialog, preferred));
  keepInsideScreen(dialog);
}

}  // namespace wb::gui
