// Past runs on the charts, without the window: a finished run opened from its folder becomes a trace named as
// its experiment (its folder's name when another trace has that name) with its whole history on it; a folder
// that is no run is refused with the reason; removing the past runs keeps the live one; a run the runs
// browser deletes leaves the charts.

#include "run/past_runs_on_charts.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QWidget>
#include <QtTest>

#include "charts/charts_panel.h"
#include "gui_test_support.h"
#include "run/run_controller.h"
#include "runs_browser/runs_browser.h"
#include "window/run_progress.h"
#include "workbench/run_history.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kRunTimeoutMs = 120000;

// The charts, the runs browser and the progress header past runs reach, and the problems told to the user.
struct Fixture {
  QWidget window;
  ChartsPanel* charts = new ChartsPanel(&window);
  RunsBrowser* runs = new RunsBrowser(&window);
  RunProgress* progress = new RunProgress(&window);
  QStringList errors;
  PastRunsOnCharts pastRuns{charts,
                            runs,
                            progress,
                            [] { return false; },
                            [this](const QString& title, const QString& message, const QString&) {
                              errors << title + QStringLiteral(": ") + message;
                            },
                            nullptr};
};

// A finished tiny run's folder.
QString trainedRun(const QString& runsDir) {
  RunController controller;
  QSignalSpy finished(&controller, &RunController::runFinished);
  controller.start(test::tinyExperiment(runsDir, 2, 0, "past"));
  if (!finished.wait(kRunTimeoutMs) && finished.isEmpty()) return QString();
  return QString::fromStdString(finished.front().front().value<RunSummary>().run_dir);
}

}  // namespace

class PastRunsOnChartsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void anOpenedRunIsATraceWithItsWholeHistory() {
    QTemporaryDir dir;
    const QString run = trainedRun(dir.path());
    QVERIFY(!run.isEmpty());
    const RunHistory history = loadRunHistory(run.toStdString());
    Fixture f;
    f.charts->addTrace(kLiveTrace, QStringLiteral("past"));  // the live run has the same name
    QSignalSpy changed(&f.pastRuns, &PastRunsOnCharts::changed);
    f.pastRuns.open({run}, false);
    QCOMPARE(f.pastRuns.pendingLoads(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(f.pastRuns.pendingLoads(), 0, kRunTimeoutMs);
    QVERIFY2(f.errors.isEmpty(), qPrintable(f.errors.join(QLatin1Char('\n'))));
    QVERIFY(f.charts->hasTrace(run));
    QCOMPARE(f.charts->traceLabel(run), QDir(run).dirName());  // "past" is taken by the live run
    QVERIFY(changed.count() >= 1);

    // The same history appended to a trace of its own holds the same points.
    ChartsPanel reference;
    reference.addTrace(QStringLiteral("reference"), QStringLiteral("reference"));
    appendHistory(&reference, QStringLiteral("reference"), history);
    QVERIFY(reference.chart(ChartId::Loss)->totalPointCount() > 0);
    QCOMPARE(f.charts->chart(ChartId::Loss)->totalPointCount(),
             reference.chart(ChartId::Loss)->totalPointCount());
    QCOMPARE(f.charts->chart(ChartId::Figure)->totalPointCount(),
             reference.chart(ChartId::Figure)->totalPointCount());

    // Remove Past Runs from Charts keeps the live run.
    f.pastRuns.clear();
    QCOMPARE(f.charts->traceIds(), QStringList{kLiveTrace});
  }

  void aFolderThatIsNoRunIsRefused() {
    QTemporaryDir dir;
    Fixture f;
    f.pastRuns.open({dir.filePath(QStringLiteral("nothing"))}, true);
    QTRY_COMPARE_WITH_TIMEOUT(f.pastRuns.pendingLoads(), 0, kRunTimeoutMs);
    QCOMPARE(f.errors.size(), 1);
    QVERIFY2(f.errors.front().startsWith(QStringLiteral("Could not open the run nothing")),
             qPrintable(f.errors.front()));
    QCOMPARE(f.charts->traceCount(), 0);
  }
};

QTEST_MAIN(PastRunsOnChartsTest)
#include "past_runs_on_charts_test.moc"
