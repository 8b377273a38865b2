// Everything the window does is reachable from the keyboard: each menu of the menu bar opens with Alt and a
// letter of its own, and each item of each menu (submenus too) has a letter of its own in that menu or a
// shortcut; Tab walks the experiment editor's fields in reading order (top to bottom, left to right).

#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSet>
#include <QtTest>

#include "window/main_window.h"

using namespace wb::gui;

namespace {

// The mnemonic letter of a menu text ("&Run" → 'r'), or 0 when it has none.
QChar mnemonic(const QString& text) {
  for (int i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != QLatin1Char('&')) continue;
    if (text[i + 1] == QLatin1Char('&')) {
      ++i;  // "&&": a literal ampersand
      continue;
    }
    return text[i + 1].toLower();
  }
  return QChar();
}

void checkMenu(QMenu* menu, const QString& path, QStringList& problems) {
  QSet<QChar> letters;
  for (QAction* action : menu->actions()) {
    if (action->isSeparator() || !action->isVisible() || action->text().isEmpty()) continue;
    // A menu's placeholder ("No recent files"): nothing to reach.
    if (!action->isEnabled() && menu->actions().size() == 1) continue;
    const QString where = path + QStringLiteral(" ▸ ") + QString(action->text()).remove(QLatin1Char('&'));
    const QChar letter = mnemonic(action->text());
    if (letter.isNull()) {
      if (action->shortcut().isEmpty() || action->menu()) problems << where + QStringLiteral(": no letter (&) and no shortcut");
    } else if (letters.contains(letter)) {
      problems << where + QStringLiteral(": the letter '%1' is taken in this menu").arg(letter);
    } else {
      letters.insert(letter);
    }
    if (action->menu()) checkMenu(action->menu(), where, problems);
  }
}

// Where a widget is in the editor as laid out, whatever is scrolled: inside a scroll area, its place in the
// area's content (the focus scrolls the area to the field it enters).
QPoint readingPosition(QWidget* w, QWidget* editor) {
  QScrollArea* outer = nullptr;
  for (QWidget* p = w->parentWidget(); p && p != editor; p = p->parentWidget()) {
    if (auto* area = qobject_cast<QScrollArea*>(p)) outer = area;
  }
  if (!outer || !outer->widget() || !outer->widget()->isAncestorOf(w)) return w->mapTo(editor, QPoint(0, 0));
  return outer->mapTo(editor, QPoint(0, 0)) + w->mapTo(outer->widget(), QPoint(0, 0));
}

QString nameOf(QWidget* w) { return QStringLiteral("%1 '%2'").arg(w->metaObject()->className(), w->objectName()); }

}  // namespace

class KeyboardTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void everyMenuAndItemHasALetterOrAShortcut() {
    MainWindow window(MainWindow::Options{false});
    window.show();
    QStringList problems;
    QSet<QChar> letters;
    int menus = 0;
    for (QAction* top : window.menuBar()->actions()) {
      if (!top->menu()) continue;
      ++menus;
      const QString name = QString(top->text()).remove(QLatin1Char('&'));
      const QChar letter = mnemonic(top->text());
      if (letter.isNull()) problems << name + QStringLiteral(": no letter (&)");
      if (letters.contains(letter)) problems << name + QStringLiteral(": the letter '%1' is taken").arg(letter);
      letters.insert(letter);
      emit top->menu()->aboutToShow();  // menus that fill themselves when opened
      checkMenu(top->menu(), name, problems);
    }
    QVERIFY(menus >= 6);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
  }

  void tabWalksTheEditorInReadingOrder() {
    MainWindow window(MainWindow::Options{false});
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QWidget* editor = window.findChild<QWidget*>(QStringLiteral("experimentDock"));
    QVERIFY(editor);
    // The editor's first field, as a click on it would focus it.
    QWidget* first = nullptr;
    for (QWidget* w = window.nextInFocusChain(); w != &window; w = w->nextInFocusChain()) {
      if (editor->isAncestorOf(w) && w->isVisible() && w->isEnabled() && (w->focusPolicy() & Qt::TabFocus) &&
          !w->focusProxy()) {
        first = w;
        break;
      }
    }
    QVERIFY(first);
    first->setFocus(Qt::MouseFocusReason);
    QTRY_COMPARE(QApplication::focusWidget(), first);
    // Then Tab, as a user presses it, until the focus leaves the editor or comes back to the first field.
    QStringList problems;
    QPoint last = readingPosition(first, editor);
    QString lastName = nameOf(first);
    int reached = 1;
    for (int i = 0; i < 200; ++i) {
      QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
      QWidget* w = QApplication::focusWidget();
      if (!w || w == first || !editor->isAncestorOf(w)) break;
      ++reached;
      const QPoint at = readingPosition(w, editor);
      // Reading order: a later field is lower, or on the same line (within a few pixels) and further right.
      const bool sameLine = std::abs(at.y() - last.y()) <= 6;
      if (!(at.y() > last.y() + 6 || (sameLine && at.x() > last.x()))) {
        problems << QStringLiteral("%1 at (%2,%3) comes after %4 at (%5,%6)")
                        .arg(nameOf(w)).arg(at.x()).arg(at.y()).arg(lastName).arg(last.x()).arg(last.y());
      }
      last = at;
      lastName = nameOf(w);
    }
    QVERIFY2(reached >= 6, qPrintable(QString::number(reached)));
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
  }
};

QTEST_MAIN(KeyboardTest)
#include "keyboard_test.moc"
