// The window on the screens people have. ctest runs this on a real X server (Xvfb) with a window manager
// (openbox), each at a screen size of its own (tests/gui/on_screen.sh): 1280×720, 1366×768, 1920×1080, and 4K
// at 200 % and 2560×1440 at 150 % (QT_SCALE_FACTOR). From a fresh configuration the window opens inside the
// screen; a run is started from the toolbar and watched, its model compressed (the pipeline dialog, then the
// Compression tab), exported (the result dialog) and evaluated, each tab shown; after each step the window
// and each dialog, frame included, lie inside the screen as the X server has them (xwininfo, xprop: not Qt's
// own idea of it), every dock and the status bar are on screen, and no view widened the window. A layout
// saved on a bigger screen is brought inside this one. Each other dialog (the finders, the learning-rate
// change, the profile steps, notes, interrupted runs, the runs' comparison, About) opens inside the screen
// too.
// WB_SCREENSHOTS=DIR saves a screenshot of the screen at each step, named after it and the screen size.

#include <qcustomplot.h>

#include <QAbstractItemView>
#include <QAbstractScrollArea>
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QGuiApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolBar>
#include <QtTest>

#include "charts/chart_grid.h"
#include "charts/charts_panel.h"
#include "compression_view/compress_dialog.h"
#include "compression_view/compression_actions.h"
#include "compression_view/compression_view.h"
#include "data_view/data_preview_view.h"
#include "editor/experiment_editor.h"
#include "editor/field_binding.h"
#include "evaluate/evaluation_view.h"
#include "export_dialogs/export_menu.h"
#include "export_dialogs/export_result_dialog.h"
#include "finder_dialogs/batch_size_finder_dialog.h"
#include "finder_dialogs/lr_finder_dialog.h"
#include "gui_test_support.h"
#include "profile_view/profile_dialog.h"
#include "queue_view/queue_actions.h"
#include "queue_view/queue_panel.h"
#include "run/lr_change_dialog.h"
#include "runs_browser/interrupted_runs_dialog.h"
#include "runs_browser/run_compare_view.h"
#include "runs_browser/run_notes_dialog.h"
#include "runs_browser/runs_browser.h"
#include "runs_browser/runs_browser_actions.h"
#include "support/image_folder.h"
#include "sweep_view/sweep_builder_dialog.h"
#include "window/about_dialog.h"
#include "window/main_window.h"
#include "workbench/export.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kRunTimeoutMs = 120000;

QString run(const QString& program, const QStringList& args) {
  QProcess p;
  p.start(program, args);
  if (!p.waitForFinished(10000)) return {};
  return QString::fromLocal8Bit(p.readAllStandardOutput());
}

int field(const QString& text, const QString& name) {
  const QRegularExpression re(QRegularExpression::escape(name) + QStringLiteral(":\\s*(-?\\d+)"));
  const auto m = re.match(text);
  return m.hasMatch() ? m.captured(1).toInt() : -1;
}

// The screen as the X server has it, in device pixels.
QRect xScreen() {
  const QString root = run(QStringLiteral("xwininfo"), {QStringLiteral("-root")});
  return {0, 0, field(root, QStringLiteral("Width")), field(root, QStringLiteral("Height"))};
}

// A top-level window's rectangle with the window manager's frame around it, as the X server has them; an
// invalid rectangle until the window manager has framed it.
QRect xFrame(QWidget* window) {
  const QString id = QString::number(window->winId());
  const QString info = run(QStringLiteral("xwininfo"), {QStringLiteral("-id"), id});
  const QString extents =
      run(QStringLiteral("xprop"), {QStringLiteral("-id"), id, QStringLiteral("_NET_FRAME_EXTENTS")});
  const QRegularExpression numbers(QStringLiteral("=\\s*(\\d+),\\s*(\\d+),\\s*(\\d+),\\s*(\\d+)"));
  const auto m = numbers.match(extents);
  if (!m.hasMatch() || field(info, QStringLiteral("Width")) <= 0) return {};
  const int left = m.captured(1).toInt(), right = m.captured(2).toInt(), top = m.captured(3).toInt(),
            bottom = m.captured(4).toInt();
  return {field(info, QStringLiteral("Absolute upper-left X")) - left,
          field(info, QStringLiteral("Absolute upper-left Y")) - top,
          field(info, QStringLiteral("Width")) + left + right,
          field(info, QStringLiteral("Height")) + top + bottom};
}

QString screenName() {
  return qEnvironmentVariable("WB_SCREEN", QStringLiteral("screen"));
}

void shot(const QString& step) {
  const QString dir = qEnvironmentVariable("WB_SCREENSHOTS");
  if (dir.isEmpty()) return;
  QTest::qWait(300);  // the window manager and the charts' replot
  QScreen* screen = QGuiApplication::primaryScreen();
  const QPixmap pixmap = screen->grabWindow(0);
  QVERIFY2(pixmap.save(dir + QStringLiteral("/screen-") + screenName() + QLatin1Char('-') + step +
                       QStringLiteral(".png")),
           qPrintable(dir));
}

// A helper's failed QVERIFY returns from the helper only: the test stops there too.
#define CHECK(call)                         \
  do {                                      \
    call;                                   \
    if (QTest::currentTestFailed()) return; \
  } while (false)

QString describe(const QRect& r) {
  return QStringLiteral("%1x%2%3%4%5%6")
      .arg(r.width())
      .arg(r.height())
      .arg(r.x() < 0 ? QString() : QStringLiteral("+"))
      .arg(r.x())
      .arg(r.y() < 0 ? QString() : QStringLiteral("+"))
      .arg(r.y());
}

}  // namespace

class ScreenFitTest : public QObject {
  Q_OBJECT

 private:
  // The window (or dialog), frame included, inside the screen as X has it.
  void checkOnScreen(QWidget* window, const QString& what) {
    QRect frame;
    QTRY_VERIFY_WITH_TIMEOUT((frame = xFrame(window)).isValid(), 10000);
    const QRect screen = xScreen();
    // The window manager may still move or resize it just after framing it: given a few seconds to settle.
    for (QElapsedTimer t; !screen.contains(frame = xFrame(window)) && (t.isValid() || (t.start(), true)) &&
                          t.elapsed() < 3000;) {
      QTest::qWait(100);
    }
    QVERIFY2(screen.contains(frame), qPrintable(QStringLiteral("%1: its frame %2 is not inside the %3 screen")
                                                    .arg(what, describe(frame), describe(screen))));
  }

  // Every dock the window shows, its status bar and its tabs lie inside the window.
  void checkEverythingReachable(MainWindow& window, const QString& when) {
    const QRect inside = window.rect();
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
      if (!dock->isVisible() || dock->visibleRegion().isEmpty()) continue;  // closed, or behind another's tab
      const QRect r(dock->mapTo(&window, QPoint(0, 0)), dock->size());
      QVERIFY2(inside.contains(r),
               qPrintable(when + QStringLiteral(": the %1 dock at %2 is outside the window's %3")
                                     .arg(dock->windowTitle(), describe(r), describe(inside))));
      QVERIFY2(
          r.width() >= 120 && r.height() >= 60,
          qPrintable(when + QStringLiteral(": the %1 dock is %2").arg(dock->windowTitle(), describe(r))));
    }
    for (QToolBar* bar : window.findChildren<QToolBar*>()) {
      const QRect r(bar->mapTo(&window, QPoint(0, 0)), bar->size());
      QVERIFY2(bar->isVisible() && inside.contains(r),
               qPrintable(when + QStringLiteral(": the toolbar is at %1").arg(describe(r))));
      // Each of its buttons is on the toolbar, not folded away where a first-time user would not look.
      for (QAction* action : bar->actions()) {
        QWidget* button = bar->widgetForAction(action);
        if (!button || action->isSeparator()) continue;
        const QRect b(button->mapTo(&window, QPoint(0, 0)), button->size());
        QVERIFY2(button->isVisible() && inside.contains(b),
                 qPrintable(when + QStringLiteral(": the toolbar's %1 is not shown").arg(action->text())));
      }
    }
    const QRect tabs(window.centralTabs()->mapTo(&window, QPoint(0, 0)), window.centralTabs()->size());
    QVERIFY2(inside.contains(tabs) && tabs.width() >= 200 && tabs.height() >= 150,
             qPrintable(when + QStringLiteral(": the tabs are at %1").arg(describe(tabs))));
    QVERIFY(window.statusBar()->isVisible());
    const QRect status(window.statusBar()->mapTo(&window, QPoint(0, 0)), window.statusBar()->size());
    QVERIFY2(inside.contains(status),
             qPrintable(when + QStringLiteral(": the status bar is outside the window")));
    QVERIFY2(window.menuBar()->isVisible(), qPrintable(when));
  }

  // The least the window can be, frame included, fits the screen: a view whose minimum size is taller than
  // the screen (the Evaluation view's confusion matrix over ten classes and its mistakes once was) makes Qt
  // grow the window past the screen's edge, the status bar and the bottom docks with it, and no layout reset
  // or restart brings them back while that view exists.
  void checkLeastSizeFits(MainWindow& window, const QString& when) {
    const QRect available = window.screen()->availableGeometry();
    const QSize frame = window.frameGeometry().size() - window.size();
    const QSize least = window.minimumSizeHint().expandedTo(window.minimumSize()) + frame;
    QVERIFY2(
        least.width() <= available.width() && least.height() <= available.height(),
        qPrintable(when + QStringLiteral(": the window cannot be smaller than %1x%2 (frame included), the "
                                         "screen has %3x%4")
                              .arg(least.width())
                              .arg(least.height())
                              .arg(available.width())
                              .arg(available.height())));
    const QRect status(window.statusBar()->mapToGlobal(QPoint(0, 0)), window.statusBar()->size());
    QVERIFY2(
        window.screen()->geometry().contains(status),
        qPrintable(when + QStringLiteral(": the status bar at %1 is off the screen").arg(describe(status))));
  }

  // The experiment form has the room a user needs: on a screen 768 px high or more, at least ten of its
  // rows in view with the default docks (eight on 1280x720), and no sideways scroll bar.
  void checkFormRoom(MainWindow& window) {
    auto* form = window.editor()->findChild<QTabWidget*>();
    QVERIFY(form);
    // The Training tab: it has more rows than a screen holds (the Data tab's apply only in part).
    for (int i = 0; i < form->count(); ++i)
      if (form->tabText(i) == QStringLiteral("Training")) form->setCurrentIndex(i);
    QTest::qWait(100);
    auto* page = qobject_cast<QScrollArea*>(form->currentWidget());
    QVERIFY(page);
    QVERIFY2(!page->horizontalScrollBar()->isVisible(), "the form scrolls sideways");
    // Nor does a field in it (the devices list once did, its CPU's name cut in the middle).
    for (QAbstractScrollArea* inner : page->widget()->findChildren<QAbstractScrollArea*>()) {
      if (!inner->isVisible()) continue;
      QVERIFY2(!inner->horizontalScrollBar()->isVisible(),
               qPrintable(QStringLiteral("the form's %1 scrolls sideways").arg(inner->objectName())));
    }
    const QRect viewport(page->viewport()->mapToGlobal(QPoint(0, 0)), page->viewport()->size());
    int rows = 0;
    for (QWidget* row : page->widget()->findChildren<QWidget*>()) {
      if (!row->objectName().endsWith(QStringLiteral("#row")) || !row->isVisible()) continue;
      if (viewport.contains(QRect(row->mapToGlobal(QPoint(0, 0)), row->size()))) ++rows;
    }
    const int wanted = window.screen()->availableGeometry().height() >= 740 ? 10 : 7;
    qInfo("%s: %d form rows in view", qPrintable(screenName()), rows);
    QVERIFY2(rows >= wanted,
             qPrintable(QStringLiteral("%1 form rows in view, %2 wanted").arg(rows).arg(wanted)));
  }

  // The status bar, and what it says, on the screen as the X server has it (the window's client area where X
  // put it, not where Qt thinks it is).
  void checkStatusBarOnScreen(MainWindow& window, const QString& when) {
    const QString info =
        run(QStringLiteral("xwininfo"), {QStringLiteral("-id"), QString::number(window.winId())});
    const QPoint client(field(info, QStringLiteral("Absolute upper-left X")),
                        field(info, QStringLiteral("Absolute upper-left Y")));
    const qreal ratio = window.devicePixelRatioF();  // X has device pixels; Qt's are scaled (QT_SCALE_FACTOR)
    const QRect status(client + window.statusBar()->mapTo(&window, QPoint(0, 0)) * ratio,
                       window.statusBar()->size() * ratio);
    QVERIFY2(
        xScreen().contains(status),
        qPrintable(when + QStringLiteral(": the status bar at %1 is off the screen").arg(describe(status))));
  }

  void checkWindow(MainWindow& window, const QString& when) {
    QTest::qWait(200);  // layouts settle, the window manager applies what the window asked for
    checkOnScreen(&window, QStringLiteral("the window ") + when);
    checkEverythingReachable(window, when);
    checkLeastSizeFits(window, when);
    checkStatusBarOnScreen(window, when);
  }

 private slots:
  void initTestCase() {
    QVERIFY2(QGuiApplication::platformName() == QStringLiteral("xcb"),
             "runs on an X server with a window manager: tests/gui/on_screen.sh starts them (ctest does)");
    QVERIFY2(xScreen().width() > 0, "xwininfo (x11-utils) is needed to read the geometry from the X server");
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();  // a fresh configuration
  }

  void aRunIsStartedWatchedCompressedAndExportedWithEverythingOnScreen() {
    QTemporaryDir dir;
    MainWindow window;  // with the settings, as a user starts it
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    CHECK(checkWindow(window, QStringLiteral("at first start")));
    CHECK(checkFormRoom(window));
    shot(QStringLiteral("01-first-start"));

    // Started and watched: ten classes, as Fashion-MNIST and CIFAR-10 have, so the evaluation below draws a
    // confusion matrix of their size and a grid of mistakes.
    nlohmann::json tenClasses = gui::test::tinyExperimentJson(dir.path(), 1, 8);  // 8 steps: some mistakes
    tenClasses["data"]["synthetic"]["classes"] = 10;
    window.editor()->setDocument(tenClasses);
    QSignalSpy ended(&window, &MainWindow::runEnded);
    QToolBar* toolbar = window.findChild<QToolBar*>();
    QVERIFY(toolbar);
    QAction* start = nullptr;
    for (QAction* action : toolbar->actions())
      if (action->text() == QStringLiteral("&Start")) start = action;
    QVERIFY(start && start->isEnabled());
    QTest::mouseClick(toolbar->widgetForAction(start), Qt::LeftButton);  // as a user starts it
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    const RunSummary trained = ended.front().front().value<RunSummary>();
    QCOMPARE(trained.status, RunStatus::Completed);
    const QString folder = QString::fromStdString(trained.run_dir);
    auto* grid = window.charts()->findChild<ChartGrid*>();
    QVERIFY(grid);
    qInfo("%s: the charts in %d column(s)", qPrintable(screenName()), grid->columns());
    CHECK(checkWindow(window, QStringLiteral("after a run")));
    // Sharp at any scale: the charts draw into buffers of the screen's pixel density, the icons are drawn for
    // it.
    const qreal ratio = window.devicePixelRatioF();
    for (QCustomPlot* plot : window.findChildren<QCustomPlot*>()) {
      if (plot->isVisible()) QCOMPARE(plot->bufferDevicePixelRatio(), ratio);
    }
    for (QAction* action : window.findChildren<QAction*>()) {
      if (action->icon().isNull()) continue;
      const QPixmap pixmap = action->icon().pixmap(QSize(16, 16), ratio);
      QVERIFY2(pixmap.width() >= qRound(16 * ratio), qPrintable(action->text()));
    }
    shot(QStringLiteral("02-trained"));

    // Compressed: the pipeline dialog, then the Compression tab with its header line and table filled.
    QTRY_VERIFY(window.runsBrowser()->rowCount() >= 1);
    window.runsBrowser()->selectFolders({folder});
    QPointer<CompressDialog> dialog = window.compression()->openDialog(CompressDialog::Kind::Pipeline);
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    CHECK(checkOnScreen(dialog, QStringLiteral("the compress pipeline dialog")));
    shot(QStringLiteral("03-compress-dialog"));
    dialog->validateNow();
    QVERIFY2(dialog->okButton()->isEnabled(),
             dialog->issues().empty() ? "" : dialog->issues().front().message.c_str());
    QSignalSpy compressed(&window, &MainWindow::compressionEnded);
    QTest::mouseClick(dialog->okButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(compressed.count(), 1, kRunTimeoutMs);
    QCOMPARE(compressed.front().front().value<RunSummary>().status, RunStatus::Completed);
    QCOMPARE(window.centralTabs()->currentWidget(), static_cast<QWidget*>(window.compressionView()));
    QTRY_VERIFY(window.compressionView()->artifacts().size() >= 2);
    CHECK(checkWindow(window, QStringLiteral("after a compression pipeline")));
    shot(QStringLiteral("04-compressed"));

    // Exported: the result dialog.
    window.runsBrowser()->selectFolders({folder});
    ExportMenu* exporter = window.exporter();
    const std::optional<ExportMenu::Target> target = exporter->selectedTarget();
    QVERIFY(target);
    QSignalSpy exported(exporter, &ExportMenu::modelExported);
    QVERIFY(exporter->exportModelTo(
        *target, ExportFormat::TorchScript,
        dir.filePath(ExportMenu::defaultFileName(*target, ExportFormat::TorchScript))));
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, kRunTimeoutMs);
    QTRY_VERIFY(exporter->resultDialog() && exporter->resultDialog()->isVisible());
    QVERIFY(QTest::qWaitForWindowExposed(exporter->resultDialog()));
    CHECK(checkOnScreen(exporter->resultDialog(), QStringLiteral("the export result dialog")));
    shot(QStringLiteral("05-exported"));
    exporter->resultDialog()->close();
    CHECK(checkWindow(window, QStringLiteral("after an export")));

    // Evaluated (the Evaluation tab's figures, confusion matrix and mistakes), then each tab in turn.
    QSignalSpy evaluated(window.evaluationView(), &EvaluationView::evaluationFinished);
    QVERIFY(window.evaluateRun(folder));
    QTRY_COMPARE_WITH_TIMEOUT(evaluated.count(), 1, kRunTimeoutMs);
    QVERIFY2(evaluated.front().front().toBool(), qPrintable(evaluated.front().at(1).toString()));
    QCOMPARE(window.centralTabs()->currentWidget(), static_cast<QWidget*>(window.evaluationView()));
    QVERIFY2(window.evaluationView()
                     ->findChild<QAbstractItemView*>(QStringLiteral("misclassifiedGrid"))
                     ->model()
                     ->rowCount() > 0,
             "the evaluation shows mistakes");
    CHECK(checkWindow(window, QStringLiteral("after an evaluation")));
    shot(QStringLiteral("06-evaluated"));
    // View ▸ Reset Layout keeps the window on the screen with the evaluation shown.
    QAction* reset = nullptr;
    for (QAction* action : window.findChildren<QAction*>())
      if (action->text() == QStringLiteral("Reset &Layout")) reset = action;
    QVERIFY(reset);
    reset->trigger();
    CHECK(checkWindow(window, QStringLiteral("after Reset Layout on the evaluation")));
    for (int i = 0; i < window.centralTabs()->count(); ++i) {
      window.centralTabs()->setCurrentIndex(i);
      CHECK(checkWindow(window, QStringLiteral("on the %1 tab").arg(window.centralTabs()->tabText(i))));
    }

    // A sweep built in the window (Run ▸ Queue Sweep…): the builder inside the screen; once queued, the
    // status bar says what the queue does, on the screen. (The queue's worker is not started: the window is
    // the test.)
    window.queueActions()->setStartsWorker(false);
    window.queueActions()->queueSweepAction()->trigger();
    QPointer<SweepBuilderDialog> builder;
    QTRY_VERIFY((builder = window.findChild<SweepBuilderDialog*>(QStringLiteral("sweepBuilder"))) &&
                builder->isVisible());
    QVERIFY(QTest::qWaitForWindowExposed(builder));
    builder->addKey("train.batch_size");
    QTRY_VERIFY_WITH_TIMEOUT(builder->isPlanned(), kRunTimeoutMs);
    CHECK(checkOnScreen(builder, QStringLiteral("the sweep builder")));
    shot(QStringLiteral("08-sweep-builder"));
    QVERIFY(builder->queuePlanned());
    QLabel* activity = window.queuePanel()->activityLabel();
    QTRY_VERIFY(activity->isVisible() && activity->text().startsWith(QStringLiteral("Queue:")));
    CHECK(checkWindow(window, QStringLiteral("with a sweep queued")));
    shot(QStringLiteral("09-sweep-queued"));

    // A dataset switch, on the Data tab: to an image folder with an unreadable file (the tab names it), then
    // back to the synthetic data, the status bar on the screen after each.
    const QString photos = dir.filePath(QStringLiteral("photos"));
    wb::test::makeGarmentFolder(photos.toStdString(), 3, 3);
    const QString firstClass = QDir(photos).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name).front();
    QFile broken(photos + QLatin1Char('/') + firstClass + QStringLiteral("/x_broken.jpg"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("not an image\n");
    broken.close();
    nlohmann::json folderDoc = window.editor()->document();
    folderDoc["data"] = {{"dataset", "image_folder"},
                         {"path", photos.toStdString()},
                         {"images", {{"resize", 36}, {"crop", 32}}}};
    window.editor()->setDocument(folderDoc);
    window.centralTabs()->setCurrentWidget(window.dataView());
    DataPreviewView* data = window.dataView();
    QTRY_VERIFY_WITH_TIMEOUT(!data->isComputing() && !data->isScanning() && data->badFilesNote()->isVisible(),
                             kRunTimeoutMs);
    CHECK(checkWindow(window, QStringLiteral("on an image folder with an unreadable file")));
    shot(QStringLiteral("10-image-folder"));
    FieldBinding* datasetField = window.editor()->binding("data.dataset");
    QVERIFY(datasetField);
    auto* dataset = qobject_cast<QComboBox*>(datasetField->input());
    QVERIFY(dataset);
    dataset->setCurrentIndex(dataset->findData(QStringLiteral("synthetic")));  // as a user picks it
    QTRY_COMPARE(window.editor()->document()["data"]["dataset"], nlohmann::json("synthetic"));
    QTRY_VERIFY_WITH_TIMEOUT(!data->isComputing() && !data->badFilesNote()->isVisible(), kRunTimeoutMs);
    CHECK(checkWindow(window, QStringLiteral("after switching back to the synthetic data")));
    shot(QStringLiteral("11-dataset-switched"));

    // Every other dialog, over the window.
    const Experiment experiment = gui::test::tinyExperiment(dir.path(), 3);
    auto checkDialog = [&](QWidget* dialog, const QString& what, const QString& shotName = QString()) {
      dialog->show();
      QVERIFY(QTest::qWaitForWindowExposed(dialog));
      CHECK(checkOnScreen(dialog, what));
      if (!shotName.isEmpty()) shot(shotName);
      dialog->close();
    };
    {
      LrFinderDialog lr(
          experiment, [](double) { return true; }, &window);
      CHECK(checkDialog(&lr, QStringLiteral("the learning-rate finder")));
      BatchSizeFinderDialog batch(
          experiment, [](int64_t) { return true; }, &window);
      CHECK(checkDialog(&batch, QStringLiteral("the batch-size finder")));
      LrChangeDialog change(0.003, 12, &window);
      CHECK(checkDialog(&change, QStringLiteral("the learning-rate change")));
      ProfileDialog profile(12, &window);
      CHECK(checkDialog(&profile, QStringLiteral("the profile steps dialog")));
      RunNotesDialog notes(QStringLiteral("tiny"), {"baseline"}, QStringLiteral("notes"), &window);
      CHECK(checkDialog(&notes, QStringLiteral("the run's notes")));
      InterruptedRunsDialog interrupted(dir.path(), &window);
      CHECK(checkDialog(&interrupted, QStringLiteral("the interrupted runs")));
    }
    showAbout(&window);
    QMessageBox* about = nullptr;
    QTRY_VERIFY((about = window.findChild<QMessageBox*>(QStringLiteral("aboutDialog"))) != nullptr);
    CHECK(checkDialog(about, QStringLiteral("About")));

    // The runs' comparison, of two runs.
    QSignalSpy second(&window, &MainWindow::runEnded);
    QVERIFY(window.runActions()->startExperiment(gui::test::tinyExperiment(dir.path(), 2, 0, "tiny-2")));
    QTRY_COMPARE_WITH_TIMEOUT(second.count(), 1, kRunTimeoutMs);
    QTRY_VERIFY(window.runsBrowser()->rowCount() >= 2);
    window.runsBrowser()->selectFolders(
        {folder, QString::fromStdString(second.front().front().value<RunSummary>().run_dir)});
    window.runsBrowser()->actions()->compareSelected();
    QTRY_VERIFY(window.runsBrowser()->actions()->compareView() &&
                window.runsBrowser()->actions()->compareView()->isVisible());
    QWidget* compare = window.runsBrowser()->actions()->compareView()->window();
    QVERIFY(QTest::qWaitForWindowExposed(compare));
    CHECK(checkOnScreen(compare, QStringLiteral("the runs' comparison")));
    shot(QStringLiteral("12-compare"));
    compare->close();
    CHECK(checkWindow(window, QStringLiteral("after the dialogs")));
  }

  void aLayoutSavedOnABiggerScreenIsBroughtInside() {
    const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
    {
      MainWindow big;
      big.setGeometry(screen.x() + 300, screen.y() + 200, screen.width() + 900, screen.height() + 600);
      QSettings().setValue(QStringLiteral("window/geometry"), big.saveGeometry());
    }
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    CHECK(checkWindow(window, QStringLiteral("restored from a bigger screen's layout")));
  }
};

QTEST_MAIN(ScreenFitTest)
#include "screen_fit_test.moc"
