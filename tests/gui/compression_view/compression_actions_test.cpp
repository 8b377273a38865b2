// Compression's actions and events, without the window: Compress ▸ … asks for a finished run when none is
// selected; a pipeline started brings its view forward, runs one at a time with the items off meanwhile, and
// its end (here the engine refusing a folder that is no run) reaches the log, the status line, the view and
// an error dialog, after which it may start again.

#include "compression_view/compression_actions.h"

#include <QAction>
#include <QMenu>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QWidget>
#include <QtTest>

#include "charts/charts_panel.h"
#include "compression_view/compression_controller.h"
#include "compression_view/compression_view.h"
#include "runs_browser/runs_browser.h"
#include "window/log_panel.h"

using namespace wb;
using namespace wb::gui;

namespace {

// The views a pipeline reports to, a plain widget as the window, and the problems told to the user.
struct Fixture {
  QWidget window;
  RunsBrowser* runs = new RunsBrowser(&window);
  ChartsPanel* charts = new ChartsPanel(&window);
  CompressionView* view = new CompressionView(&window);
  LogPanel* log = new LogPanel(&window);
  QStringList errors;
  CompressionActions actions{
      runs, charts, view, log, &window, [this](const QString& title, const QString& message, const QString&) {
        errors << title + QStringLiteral(": ") + message;
      }};
};

}  // namespace

class CompressionActionsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void theItemsNeedAFinishedRunSelected() {
    Fixture f;
    QCOMPARE(f.actions.menu()->actions().size(), 5);  // four items and a separator
    for (QAction* action : f.actions.menu()->actions())
      QVERIFY(action->isSeparator() || !action->isEnabled());
    QVERIFY(!f.actions.openDialog(CompressDialog::Kind::Prune));
    QCOMPARE(f.errors.size(), 1);
    QVERIFY2(f.errors.front().startsWith(QStringLiteral("No finished run selected")),
             qPrintable(f.errors.front()));
  }

  void aPipelineRunsOneAtATimeAndItsEndIsTold() {
    QTemporaryDir dir;
    Fixture f;
    QSignalSpy viewWanted(&f.actions, &CompressionActions::viewWanted);
    QSignalSpy status(&f.actions, &CompressionActions::statusMessage);
    QSignalSpy finished(&f.actions, &CompressionActions::finished);
    CompressConfig config;
    config.passes.push_back(CompressPassConfig{});
    const QString folder = dir.filePath(QStringLiteral("not-a-run"));
    QVERIFY(f.actions.start(folder, config));
    QCOMPARE(viewWanted.count(), 1);
    QVERIFY(f.actions.shows(folder));
    QVERIFY(f.actions.controller()->isActive());
    QVERIFY(!f.actions.start(folder, config));  // one at a time
    QVERIFY(f.errors.front().startsWith(QStringLiteral("A compression is in progress")));
    QVERIFY(f.log->toPlainText().contains(QStringLiteral("Compressing not-a-run: prune")));

    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QCOMPARE(finished.front().front().value<RunSummary>().status, RunStatus::Failed);
    QVERIFY(!f.actions.controller()->isActive());
    QCOMPARE(f.errors.size(), 2);  // "in progress", then the engine's
    QVERIFY2(f.errors.back().contains(QStringLiteral("not-a-run")), qPrintable(f.errors.back()));
    QCOMPARE(status.count(), 1);
    QCOMPARE(status.front().front().toString(),
             QStringLiteral("Compression of not-a-run failed: see the log"));
    QVERIFY(f.view->progressText().contains(QStringLiteral("failed")));
    QVERIFY(f.log->toPlainText().contains(QStringLiteral("Compression of not-a-run failed")));
  }
};

QTEST_MAIN(CompressionActionsTest)
#include "compression_actions_test.moc"
