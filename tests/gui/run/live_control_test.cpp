// Live control from the window: Run ▸ Change Learning Rate… during a run changes the engine's learning rate
// from the next step on (×0.5 on the schedule, read back from the run's metrics against the schedule's
// preview); the change is logged and marked on the loss and learning-rate charts, also when the run is opened
// later; Run ▸ Stop After This Epoch ends the run at an epoch's last step, interrupted (resumable). Both
// actions are enabled only while a run is live.

#include <QAction>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <map>

#include "charts/charts_panel.h"
#include "gui_test_support.h"
#include "run/live_control_actions.h"
#include "run/lr_change_dialog.h"
#include "run/past_runs_on_charts.h"
#include "run/run_controller.h"
#include "window/log_panel.h"
#include "window/main_window.h"
#include "workbench/lr_preview.h"
#include "workbench/run_history.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kRunTimeoutMs = 120000;

}  // namespace

class LiveControlTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void changeTheLearningRateThenStopAfterTheEpoch() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    window.show();
    QAction* changeLr = window.liveControl()->changeLearningRateAction();
    QAction* stopAfterEpoch = window.liveControl()->stopAfterEpochAction();
    QVERIFY(!changeLr->isEnabled());
    QVERIFY(!stopAfterEpoch->isEnabled());

    // 60 epochs of 15 steps: long enough to act on while it runs (Stop After This Epoch ends it early).
    const Experiment experiment = gui::test::tinyExperiment(dir.path(), 60);
    QSignalSpy ended(&window, &MainWindow::runEnded);
    QVERIFY(window.runActions()->startExperiment(experiment));
    QTRY_VERIFY_WITH_TIMEOUT(window.runActions()->lastStep() >= 6, kRunTimeoutMs);
    QVERIFY(changeLr->isEnabled());
    changeLr->trigger();
    LrChangeDialog* dialog = window.liveControl()->openDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    // While it is open the run trains on, and the step it names follows.
    QLabel* current = dialog->findChild<QLabel*>(QStringLiteral("currentLr"));
    const QString opened = current->text();
    QTRY_VERIFY_WITH_TIMEOUT(current->text() != opened, kRunTimeoutMs);
    dialog->setScale(0.5);
    dialog->accept();
    // The engine confirms at its next step (within the next drain ticks): a log line and a mark on the
    // charts.
    QTRY_COMPARE_WITH_TIMEOUT(window.charts()->controlMarkLabels(QStringLiteral("live")),
                              QStringList{QStringLiteral("lr ×0.5")}, 20000);

    stopAfterEpoch->trigger();
    QVERIFY(!stopAfterEpoch->isEnabled());  // asked once; it cannot be taken back
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    const auto summary = ended.front().front().value<RunSummary>();
    QCOMPARE(summary.status, RunStatus::Interrupted);
    QVERIFY(!changeLr->isEnabled());
    QVERIFY(!stopAfterEpoch->isEnabled());

    // The engine's learning rate: ×0.5 the schedule from the change's step on, the schedule before it.
    const RunHistory history = loadRunHistory(summary.run_dir);
    QCOMPARE(history.controls.size(), size_t{2});
    const ControlApplied& change = history.controls[0];
    QCOMPARE(change.kind, ControlKind::LrScale);
    QVERIFY(change.source == "the window");
    QCOMPARE(history.controls[1].kind, ControlKind::StopAfterEpoch);
    const LrCurve curve = learningRateCurve(experiment);
    QVERIFY(curve.total_steps > summary.steps);
    QCOMPARE(summary.steps % curve.steps_per_epoch, int64_t{0});  // at an epoch's last step
    QCOMPARE(summary.steps / curve.steps_per_epoch, static_cast<int64_t>(history.controls[1].value));
    std::map<int64_t, double> scheduled;
    for (size_t i = 0; i < curve.steps.size(); ++i) scheduled[curve.steps[i]] = curve.lr[i];
    int after = 0;
    for (const StepMetrics& m : history.steps) {
      QVERIFY(scheduled.count(m.step - 1));
      const double expected = m.step - 1 >= change.step ? 0.5 * scheduled[m.step - 1] : scheduled[m.step - 1];
      QVERIFY2(std::abs(m.lr - expected) <= 1e-12 * expected,
               qPrintable(QStringLiteral("step %1: lr %2, expected %3").arg(m.step).arg(m.lr).arg(expected)));
      if (m.step - 1 >= change.step) ++after;
    }
    QVERIFY(after > 0);
    QVERIFY(window.logPanel()->toPlainText().contains(QStringLiteral("learning rate ×0.5")));

    // Opened later, the past run shows its marks too.
    window.pastRuns()->open(QStringList{QString::fromStdString(summary.run_dir)}, true);
    QTRY_COMPARE_WITH_TIMEOUT(window.pastRuns()->pendingLoads(), 0, kRunTimeoutMs);
    QCOMPARE(window.charts()->controlMarkLabels(QString::fromStdString(summary.run_dir)).size(), 2);
  }

  // The dialog stays open while the run trains on: what it says the run trains with follows the latest step.
  void theOpenDialogFollowsTheRun() {
    LrChangeDialog dialog(0.001, 40);
    QLabel* current = dialog.findChild<QLabel*>(QStringLiteral("currentLr"));
    QLabel* preview = dialog.findChild<QLabel*>(QStringLiteral("lrPreview"));
    QVERIFY(current->text().contains(QStringLiteral("step 40")));
    dialog.setScale(0.5);
    QVERIFY2(preview->text().contains(QStringLiteral("0.0005")), qPrintable(preview->text()));
    dialog.setCurrent(0.0008, 120);
    QVERIFY2(current->text().contains(QStringLiteral("0.0008 (step 120)")), qPrintable(current->text()));
    QVERIFY2(preview->text().contains(QStringLiteral("0.0004")), qPrintable(preview->text()));
  }

  void theDialogRefusesANonPositiveConstant() {
    LrChangeDialog dialog(0.001, 40);
    dialog.setConstant(-1);
    QPushButton* apply = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QVERIFY(!apply->isEnabled());
    dialog.setConstant(3e-4);
    QVERIFY(apply->isEnabled());
    QCOMPARE(dialog.change().kind, LrChange::Kind::Constant);
    QCOMPARE(dialog.change().value, 3e-4);
  }
};

QTEST_MAIN(LiveControlTest)
#include "live_control_test.moc"
