// The run's actions and events, without the window: a run started from an experiment fills the live trace,
// the progress line and the log, enables Pause, Stop and Checkpoint while it trains and Start again once it
// has ended; Start refuses a form with problems at once, and one the engine's checks refuse after them;
// Resume refuses a folder that is no interrupted run. Only the views the run reports to are built.

#include "run/run_actions.h"

#include <QAction>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QWidget>
#include <QtTest>

#include "charts/charts_panel.h"
#include "editor/experiment_editor.h"
#include "gui_test_support.h"
#include "runs_browser/runs_browser.h"
#include "window/log_panel.h"
#include "window/run_progress.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kRunTimeoutMs = 120000;

// The views a run reports to, a plain widget as the window, and the problems told to the user.
struct Fixture {
  QWidget window;
  ExperimentEditor* editor = new ExperimentEditor(&window);
  ChartsPanel* charts = new ChartsPanel(&window);
  RunsBrowser* runs = new RunsBrowser(&window);
  LogPanel* log = new LogPanel(&window);
  RunProgress* progress = new RunProgress(&window);
  QStringList errors;
  bool otherJobs = false;
  RunActions actions{{editor, charts, runs, log, progress},
                     &window,
                     [this](const QString& title, const QString& message, const QString&) {
                       errors << title + QStringLiteral(": ") + message;
                     },
                     [this] { return otherJobs; }};
};

}  // namespace

class RunActionsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aRunFillsTheViewsAndTheActionsFollowIt() {
    QTemporaryDir dir;
    Fixture f;
    QSignalSpy steps(&f.actions, &RunActions::stepReported);
    QSignalSpy ended(&f.actions, &RunActions::runEnded);
    QVERIFY(f.actions.startAction()->isEnabled());
    QVERIFY(!f.actions.stopAction()->isEnabled());
    QVERIFY(f.actions.startExperiment(test::tinyExperiment(dir.path(), 3, 0, "tiny")));
    QVERIFY(f.editor->isLocked());  // the form shows the experiment being trained
    QTRY_VERIFY_WITH_TIMEOUT(f.actions.lastStep() > 0 || ended.count() > 0, kRunTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    const auto summary = ended.front().front().value<RunSummary>();
    QCOMPARE(summary.status, RunStatus::Completed);

    // Every step reported reached the live trace, the progress line and the signal; the epochs the log.
    QCOMPARE(f.charts->traceIds(), QStringList{QStringLiteral("live")});
    QCOMPARE(f.charts->traceLabel(QStringLiteral("live")), QStringLiteral("tiny"));
    QVERIFY2(f.charts->chart(ChartId::Loss)->totalPointCount() >= 2 * 20 + 3,
             qPrintable(QString::number(f.charts->chart(ChartId::Loss)->totalPointCount())));
    QVERIFY(steps.count() > 0);
    QCOMPARE(steps.back().front().toLongLong(), summary.steps);
    QCOMPARE(f.actions.lastStep(), summary.steps);
    QVERIFY(f.progress->text().startsWith(QStringLiteral("Finished")));
    const QString log = f.log->toPlainText();
    QVERIFY2(log.contains(QStringLiteral("Starting tiny")), qPrintable(log));
    QVERIFY2(log.contains(QStringLiteral("Epoch 3: train loss")), qPrintable(log));

    // Ended: the form is free, Start is back, the controls are off and the state word says Idle.
    QVERIFY(!f.editor->isLocked());
    QVERIFY(f.actions.startAction()->isEnabled());
    QVERIFY(!f.actions.stopAction()->isEnabled());
    QVERIFY(!f.actions.pauseAction()->isEnabled());
    QVERIFY(!f.actions.checkpointAction()->isEnabled());
    QCOMPARE(f.actions.stateLabel()->text(), QStringLiteral("Idle"));
    QVERIFY2(f.errors.isEmpty(), qPrintable(f.errors.join(QLatin1Char('\n'))));
  }

  void theControlsAreOnWhileTheRunTrains() {
    QTemporaryDir dir;
    Fixture f;
    QSignalSpy ended(&f.actions, &RunActions::runEnded);
    QVERIFY(f.actions.startExperiment(test::tinyExperiment(dir.path(), 200)));
    QTRY_VERIFY_WITH_TIMEOUT(f.actions.lastStep() > 0, kRunTimeoutMs);
    QVERIFY(!f.actions.startAction()->isEnabled());
    QVERIFY(f.actions.pauseAction()->isEnabled());
    QVERIFY(f.actions.checkpointAction()->isEnabled());
    QVERIFY(f.actions.stopAction()->isEnabled());
    QCOMPARE(f.actions.stateLabel()->text(), QStringLiteral("Running"));
    f.actions.stopAction()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    QCOMPARE(ended.front().front().value<RunSummary>().status, RunStatus::Interrupted);
    QVERIFY(f.log->toPlainText().contains(QStringLiteral("Stopping after the step in flight")));
    QVERIFY(f.actions.resumeAction()->isEnabled());
  }

  void startRefusesAFormWithProblemsAtOnce() {
    QTemporaryDir dir;
    Fixture f;
    nlohmann::json doc = test::tinyExperimentJson(dir.path());
    doc["train"]["batch_size"] = -4;
    f.editor->setDocument(doc);
    QVERIFY(!f.actions.startRun());
    QCOMPARE(f.errors.size(), 1);
    QVERIFY2(f.errors.front().startsWith(QStringLiteral("The experiment cannot start")),
             qPrintable(f.errors.front()));
    QVERIFY(!f.actions.lifecycle().busy());
    QVERIFY(!f.actions.controller()->isActive());
  }

  void startRefusesWhatTheEnginesChecksRefuse() {
    QTemporaryDir dir;
    Fixture f;
    QSignalSpy refused(&f.actions, &RunActions::startRefused);
    nlohmann::json doc = test::tinyExperimentJson(dir.path());
    doc["train"]["amp"] = "fp16";
    doc["train"]["devices"] = {"cpu"};
    f.editor->setDocument(doc);
    QVERIFY(f.actions.startRun());
    QCOMPARE(f.actions.lifecycle().phase(), RunLifecycle::Phase::Checking);
    QCOMPARE(f.actions.stateLabel()->text(), QStringLiteral("Checking the experiment…"));
    QVERIFY(!f.actions.startAction()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(refused.count(), 1, 30000);
    QVERIFY(refused.front().front().toString().contains(QStringLiteral("train.amp: ")));
    QCOMPARE(f.actions.lifecycle().phase(), RunLifecycle::Phase::Idle);
    QVERIFY(f.actions.startAction()->isEnabled());
    QVERIFY(!f.actions.controller()->isActive());
    QVERIFY(f.progress->text().startsWith(QStringLiteral("Not started")));
    QCOMPARE(f.errors.size(), 1);
  }

  void resumeRefusesAFolderThatIsNoInterruptedRun() {
    QTemporaryDir dir;
    Fixture f;
    QVERIFY(!f.actions.resumeRun(dir.filePath(QStringLiteral("no-run"))));
    QCOMPARE(f.errors.size(), 1);
    QVERIFY(!f.actions.lifecycle().busy());
    QVERIFY(f.actions.resumeAction()->isEnabled());
  }
};

QTEST_MAIN(RunActionsTest)
#include "run_actions_test.moc"
