// Everything the window does is reachable from the keyboard: each menu of the menu bar opens with Alt and a
// letter of its own, and each item of each menu (submenus too) has a letter of its own in that menu or a
// shortcut; Tab walks the experiment editor's fields and each dialog's in reading order (top to bottom, left
// to right, column by column).

#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include "compression_view/compress_dialog.h"
#include "finder_dialogs/batch_size_finder_dialog.h"
#include "finder_dialogs/lr_finder_dialog.h"
#include "gui_test_support.h"
#include "run/lr_change_dialog.h"
#include "runs_browser/interrupted_runs_dialog.h"
#include "runs_browser/run_notes_dialog.h"
#include "window/main_window.h"

using namespace wb;
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
      if (action->shortcut().isEmpty() || action->menu())
        problems << where + QStringLiteral(": no letter (&) and no shortcut");
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

QString nameOf(QWidget* w) {
  return QStringLiteral("%1 '%2'").arg(w->metaObject()->className(), w->objectName());
}

struct TabWalk {
  int reached = 0;
  QStringList problems;
};

// Tab pressed as a user does, from the first field of `area` (inside `top`), until the focus leaves the area
// or comes back to where it started. Reading order: the next field is lower, or on the same line (within a
// few pixels) and further right, or at the top of a new column to the right of the one before.
TabWalk walkWithTab(QWidget* top, QWidget* area) {
  TabWalk walk;
  QWidget* first = nullptr;
  for (QWidget* w = top->nextInFocusChain(); w != top; w = w->nextInFocusChain()) {
    if (area->isAncestorOf(w) && w->isVisible() && w->isEnabled() && (w->focusPolicy() & Qt::TabFocus) &&
        !w->focusProxy()) {
      first = w;
      break;
    }
  }
  if (!first) return walk;
  first->setFocus(Qt::MouseFocusReason);  // as a click on it would
  if (QApplication::focusWidget() != first) {
    walk.problems << QStringLiteral("the first field took no focus");
    return walk;
  }
  QPoint last = readingPosition(first, area);
  QWidget* previous = first;
  walk.reached = 1;
  for (int i = 0; i < 200; ++i) {
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
    QWidget* w = QApplication::focusWidget();
    if (!w || w == first || !area->isAncestorOf(w)) break;
    if (w == previous) {
      walk.problems << QStringLiteral("Tab does not leave %1").arg(nameOf(w));
      break;
    }
    ++walk.reached;
    const QPoint at = readingPosition(w, area);
    const bool sameLine = std::abs(at.y() - last.y()) <= 6;
    const bool newColumn = at.x() > last.x() + previous->width() - 1;
    if (!(at.y() > last.y() + 6 || (sameLine && at.x() > last.x()) || newColumn)) {
      walk.problems << QStringLiteral("%1 at (%2,%3) comes after %4 at (%5,%6)")
                           .arg(nameOf(w))
                           .arg(at.x())
                           .arg(at.y())
                           .arg(nameOf(previous))
                           .arg(last.x())
                           .arg(last.y());
    }
    last = at;
    previous = w;
  }
  return walk;
}

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
      if (letters.contains(letter))
        problems << name + QStringLiteral(": the letter '%1' is taken").arg(letter);
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
    const TabWalk walk = walkWithTab(&window, editor);
    QVERIFY2(walk.reached >= 6, qPrintable(QString::number(walk.reached)));
    QVERIFY2(walk.problems.isEmpty(), qPrintable(walk.problems.join(QLatin1Char('\n'))));
  }

  void tabWalksEachDialogInReadingOrder() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    window.show();
    const Experiment experiment = test::tinyExperiment(dir.path());
    auto check = [](QDialog& dialog, int atLeast) {
      dialog.show();
      dialog.activateWindow();
      QVERIFY(QTest::qWaitForWindowActive(&dialog));
      const TabWalk walk = walkWithTab(&dialog, &dialog);
      QVERIFY2(walk.reached >= atLeast,
               qPrintable(dialog.windowTitle() + QStringLiteral(": ") + QString::number(walk.reached)));
      QVERIFY2(walk.problems.isEmpty(), qPrintable(dialog.windowTitle() + QStringLiteral(": ") +
                                                   walk.problems.join(QLatin1Char('\n'))));
      dialog.close();
    };
    {
      LrFinderDialog d(
          experiment, [](double) { return true; }, &window);
      check(d, 3);
    }
    {
      BatchSizeFinderDialog d(
          experiment, [](int64_t) { return true; }, &window);
      check(d, 3);
    }
    {
      LrChangeDialog d(0.003, 12, &window);
      check(d, 3);
    }
    {
      RunNotesDialog d(QStringLiteral("tiny"), {"baseline"}, QStringLiteral("notes"), &window);
      check(d, 3);
    }
    {
      InterruptedRunsDialog d(dir.path(), &window);
      check(d, 1);
    }
    {
      CompressDialog d(CompressDialog::Kind::Pipeline, dir.path(), &window);
      check(d, 6);
    }
  }
};

QTEST_MAIN(KeyboardTest)
#include "keyboard_test.moc"
