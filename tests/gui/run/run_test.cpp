// A real (tiny) run in the window: the charts fill; pause, resume and stop work without blocking the UI
// thread; an engine error becomes a dialog and the window stays usable.

#include <QAction>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "charts/charts_panel.h"
#include "editor/experiment_editor.h"
#include "gui_test_support.h"
#include "run/run_controller.h"
#include "support/resumed_session.h"
#include "window/log_panel.h"
#include "window/main_window.h"
#include "window/run_progress.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kRunTimeoutMs = 120000;

QMessageBox* errorDialog(QWidget* window) {
  for (QMessageBox* box : window->findChildren<QMessageBox*>(QStringLiteral("errorDialog"))) {
    if (box->isVisible()) return box;
  }
  return nullptr;
}

// Starts a 6-epoch run (15 steps an epoch) and, in the same call, asks it to stop when its first epoch ends
// (Run ▸ Stop After This Epoch), then waits until it has ended: an interrupted run with a checkpoint at step
// 15, on any machine. The request is a control the run reads at every step, and it is made before the run has
// loaded its data, so no race with the run's speed decides where it stops (a stop after "some steps seen" let
// a fast run finish first).
void stopAfterFirstEpoch(MainWindow& window, QSignalSpy& ended, const QString& runsDir) {
  QVERIFY(window.runActions()->startExperiment(gui::test::tinyExperiment(runsDir, 6)));
  window.runActions()->controller()->stopAfterEpoch();
  QVERIFY(window.runActions()->controller()->stopAfterEpochRequested());
  QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
  const auto stopped = ended.front().front().value<RunSummary>();
  QCOMPARE(stopped.status, RunStatus::Interrupted);
  QCOMPARE(stopped.epochs, 1);
  QVERIFY2(stopped.steps >= 14 && stopped.steps <= 15, qPrintable(QString::number(stopped.steps)));
}

}  // namespace

class RunTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void shortRunFillsThePlots() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    window.show();
    QSignalSpy ended(&window, &MainWindow::runEnded);
    QVERIFY(window.runActions()->startExperiment(gui::test::tinyExperiment(dir.path(), 3)));
    QVERIFY(window.runActions()->controller()->isActive());
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    const auto summary = ended.front().front().value<RunSummary>();
    QCOMPARE(summary.status, RunStatus::Completed);
    QCOMPARE(window.runActions()->controller()->state(), RunController::State::Idle);

    ChartsPanel* charts = window.charts();
    // ~45 steps reported every 2: ~22 points of training loss (raw and smoothed), 3 validations.
    QVERIFY2(charts->chart(ChartId::Loss)->totalPointCount() >= 2 * 20 + 3,
             qPrintable(QString::number(charts->chart(ChartId::Loss)->totalPointCount())));
    QVERIFY(charts->chart(ChartId::Figure)->totalPointCount() >= 6);  // train and val, 3 epochs
    QVERIFY(charts->chart(ChartId::Throughput)->totalPointCount() >= 20);
    QVERIFY(charts->chart(ChartId::LearningRate)->totalPointCount() >= 20);
    QVERIFY(charts->chart(ChartId::Memory)->totalPointCount() >= 20);
    QCOMPARE(charts->chart(ChartId::Gradients)->totalPointCount(), 0);  // no clipping, no fp16: not measured
    QVERIFY(summary.steps >= 40);                                       // 3 epochs of ~15 steps
    QCOMPARE(window.runActions()->lastStep(), summary.steps);
    QVERIFY(window.progress()->value() >= 900);
    QVERIFY(window.logPanel()->lineCount() > 5);
    QVERIFY(window.progress()->text().startsWith(QStringLiteral("Finished")));  // the runs list's word
    // The smoothing slider recomputes the EMA curve from the raw losses.
    charts->setSmoothing(0.0);
    charts->setSmoothing(0.9);
    QVERIFY(charts->chart(ChartId::Loss)->totalPointCount() >= 2 * 20 + 3);
  }

  void pauseResumeAndStop() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    window.show();
    QSignalSpy ended(&window, &MainWindow::runEnded);
    // Long enough that it cannot end on its own during the test.
    QVERIFY(window.runActions()->startExperiment(gui::test::tinyExperiment(dir.path(), 100000)));
    QTRY_VERIFY_WITH_TIMEOUT(window.runActions()->lastStep() >= 4, kRunTimeoutMs);

    window.runActions()->controller()->pause();
    QCOMPARE(window.runActions()->controller()->state(), RunController::State::Paused);
    QTest::qWait(400);  // what was in flight arrives
    const int64_t pausedAt = window.runActions()->lastStep();
    QTest::qWait(800);
    QCOMPARE(window.runActions()->lastStep(), pausedAt);  // nothing trains while paused

    window.runActions()->controller()->resume();
    QCOMPARE(window.runActions()->controller()->state(), RunController::State::Running);
    QTRY_VERIFY_WITH_TIMEOUT(window.runActions()->lastStep() > pausedAt, kRunTimeoutMs);

    // Stop returns at once; the run winds down on its thread while the UI keeps running.
    QElapsedTimer timer;
    timer.start();
    window.runActions()->controller()->stop();
    QVERIFY(timer.elapsed() < 100);
    QCOMPARE(window.runActions()->controller()->state(), RunController::State::Stopping);
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    const auto summary = ended.front().front().value<RunSummary>();
    QCOMPARE(summary.status, RunStatus::Interrupted);
    QVERIFY(summary.steps >= window.runActions()->lastStep());
    QCOMPARE(window.runActions()->controller()->state(), RunController::State::Idle);
  }

  void stopWhilePausedEndsTheRun() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    QSignalSpy ended(&window, &MainWindow::runEnded);
    QVERIFY(window.runActions()->startExperiment(gui::test::tinyExperiment(dir.path(), 100000)));
    QTRY_VERIFY_WITH_TIMEOUT(window.runActions()->lastStep() >= 2, kRunTimeoutMs);
    window.runActions()->controller()->pause();
    window.runActions()->controller()->stop();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
  }

  void resumesAnInterruptedRun() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    QSignalSpy ended(&window, &MainWindow::runEnded);
    stopAfterFirstEpoch(window, ended, dir.path());
    if (QTest::currentTestFailed()) return;
    const auto stopped = ended.front().front().value<RunSummary>();

    // Another experiment in the form: resuming brings the run's own into it, which the locked form shows.
    window.editor()->setDocument(gui::test::tinyExperimentJson(dir.path(), 7, 0, "something-else"));
    QVERIFY(window.runActions()->resumeRun(QString::fromStdString(stopped.run_dir)));
    QCOMPARE(window.editor()->document()["train"]["epochs"].get<int>(), 6);  // the run's, not the form's 7
    QTRY_VERIFY_WITH_TIMEOUT(window.editor()->isLocked(), kRunTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, kRunTimeoutMs);
    const auto resumed = ended.back().front().value<RunSummary>();
    QCOMPARE(resumed.status, RunStatus::Completed);
    QVERIFY(resumed.steps > stopped.steps);
    QCOMPARE(window.runActions()->lastStep(), resumed.steps);
    // Continued at the stop's checkpoint (step > 0), not from step 0: the session's first logged step follows
    // it (steps are logged every 2 and at epoch ends), and it trained only the remaining steps.
    const auto session = wb::test::lastResumedSession(stopped.run_dir + "/metrics.jsonl");
    QVERIFY2(session.continued_at > 0, qPrintable(QString::number(session.continued_at)));
    QCOMPARE(session.continued_at, stopped.steps);
    const QString seen = QStringLiteral("continued at %1, steps %2 to %3 (%4 step events), %5 steps in all")
                             .arg(session.continued_at)
                             .arg(session.first_step)
                             .arg(session.last_step)
                             .arg(session.step_events)
                             .arg(resumed.steps);
    QVERIFY2(session.first_step > session.continued_at && session.first_step <= session.continued_at + 2,
             qPrintable(seen));
    QVERIFY2(session.last_step <= resumed.steps && session.last_step > resumed.steps - 2, qPrintable(seen));
    // At most one step event a remaining step (every 2 steps and at each epoch's end).
    QVERIFY2(session.step_events <= resumed.steps - session.continued_at, qPrintable(seen));
    // The curve holds the part before the stop (read from the run folder) and the resumed part.
    QVERIFY(window.charts()->chart(ChartId::Loss)->totalPointCount() >= 2 * 40);
  }

  void aChangedExperimentAsksThenResumesAnyway() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    QSignalSpy ended(&window, &MainWindow::runEnded);
    stopAfterFirstEpoch(window, ended, dir.path());
    if (QTest::currentTestFailed()) return;
    const auto stopped = ended.front().front().value<RunSummary>();

    // Edit the run's experiment file: the engine refuses the resume, naming the change; the window asks.
    const QString file = QString::fromStdString(stopped.run_dir) + QStringLiteral("/experiment.json");
    nlohmann::json doc;
    {
      std::ifstream in(file.toStdString());
      doc = nlohmann::json::parse(in);
    }
    doc["train"]["epochs"] = 8;
    std::ofstream(file.toStdString()) << doc.dump(2);
    QStringList asked;
    window.runActions()->setForceResumeAsker(
        [&asked](const QString& message, std::function<void()> resumeAnyway) {
          asked << message;
          resumeAnyway();  // the user chooses Resume Anyway
        });
    window.setErrorPresenter([](const QString& title, const QString&, const QString&) {
      QFAIL(qPrintable(QStringLiteral("unexpected error dialog: ") + title));
    });

    QVERIFY(window.runActions()->resumeRun(QString::fromStdString(stopped.run_dir)));
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 3, kRunTimeoutMs);  // refused, then forced
    QCOMPARE(asked.size(), 1);
    QVERIFY2(asked.front().contains(QStringLiteral("train.epochs: 6 -> 8")), qPrintable(asked.front()));
    QCOMPARE(ended.at(1).front().value<RunSummary>().status, RunStatus::Failed);
    const auto resumed = ended.at(2).front().value<RunSummary>();
    QCOMPARE(resumed.status, RunStatus::Completed);
    QCOMPARE(resumed.epochs, 8);
    QVERIFY(resumed.steps > stopped.steps);
    const auto session = wb::test::lastResumedSession(stopped.run_dir + "/metrics.jsonl");
    QVERIFY(session.continued_at > 0);
    QCOMPARE(session.continued_at, stopped.steps);
  }

  void engineErrorShowsADialogAndTheWindowStaysUsable() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    window.show();
    QSignalSpy ended(&window, &MainWindow::runEnded);
    Experiment broken = gui::test::tinyExperiment(dir.path(), 1);
    broken.data.dataset = DatasetName::FashionMnist;
    broken.data.path = dir.filePath(QStringLiteral("no-such-dataset")).toStdString();
    QVERIFY(window.runActions()->startExperiment(broken));
    QTRY_VERIFY_WITH_TIMEOUT(errorDialog(&window) != nullptr, kRunTimeoutMs);
    QMessageBox* box = errorDialog(&window);
    QVERIFY2(box->text().contains(QStringLiteral("no-such-dataset")), qPrintable(box->text()));
    QVERIFY(box->informativeText().startsWith(QStringLiteral("What to do")));
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    QCOMPARE(ended.front().front().value<RunSummary>().status, RunStatus::Failed);

    // The dialog does not hold the window: close it, and the next run starts and completes.
    box->accept();
    QTRY_VERIFY(errorDialog(&window) == nullptr);
    QCOMPARE(window.runActions()->controller()->state(), RunController::State::Idle);
    QVERIFY(window.runActions()->startExperiment(gui::test::tinyExperiment(dir.path(), 1)));
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, kRunTimeoutMs);
    QCOMPARE(ended.back().front().value<RunSummary>().status, RunStatus::Completed);
  }
};

QTEST_MAIN(RunTest)
#include "run_test.moc"
