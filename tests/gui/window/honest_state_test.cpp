// The window says what is true: while a run trains, the form shows its experiment and takes no edits (so no
// field, nor the learning-rate preview, can disagree with the run); a run's state has one word, the same in
// the runs list, the progress line, the log and the status bar; a run resumed from the Runs panel shows as
// running.

#include <QLabel>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "editor/experiment_editor.h"
#include "editor/field_binding.h"
#include "gui_test_support.h"
#include "run/run_controller.h"
#include "run/run_status_words.h"
#include "runs_browser/runs_browser.h"
#include "runs_browser/runs_browser_actions.h"
#include "runs_browser/runs_table_model.h"
#include "window/log_panel.h"
#include "window/main_window.h"
#include "window/run_progress.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kRunTimeoutMs = 120000;
// The runs list's status cell of the run in this folder, as shown ("" when not listed).
QString listedStatus(RunsBrowser* runs, const std::string& folder) {
  RunsTableModel* model = runs->model();
  const int row = model->runRow(QString::fromStdString(folder));
  if (row < 0) return QString();
  return model->index(row, RunsTableModel::kStatus).data().toString();
}

QString stateLabel(MainWindow& window) {
  return window.findChild<QLabel*>(QStringLiteral("runState"))->text();
}

}  // namespace

class HonestStateTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void theStatusWordsAreOneMapping() {
    QCOMPARE(runStatusWord(RunIndexStatus::Running), QStringLiteral("Running"));
    QCOMPARE(runStatusWord(RunIndexStatus::Finished), QStringLiteral("Finished"));
    QCOMPARE(runStatusWord(RunIndexStatus::Interrupted), QStringLiteral("Interrupted"));
    QCOMPARE(runStatusWord(RunIndexStatus::Failed), QStringLiteral("Failed"));
    QCOMPARE(runStatusWord(RunStatus::Completed), runStatusWord(RunIndexStatus::Finished));
    QVERIFY(runStatusWord(RunStatus::EarlyStopped).startsWith(runStatusWord(RunIndexStatus::Finished)));
    QCOMPARE(runStatusWord(RunStatus::Interrupted), runStatusWord(RunIndexStatus::Interrupted));
    QCOMPARE(runStatusWord(RunStatus::Failed), runStatusWord(RunIndexStatus::Failed));
    QCOMPARE(runStateWord(RunController::State::Running), runStatusWord(RunIndexStatus::Running));
  }

  void theFormShowsTheRunningExperimentAndTakesNoEdits() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    window.show();
    QSignalSpy ended(&window, &MainWindow::runEnded);
    window.editor()->setDocument(gui::test::tinyExperimentJson(dir.path(), 100000));
    QVERIFY(window.runActions()->startRun());
    QTRY_VERIFY_WITH_TIMEOUT(window.runActions()->lastStep() >= 2, kRunTimeoutMs);
    ExperimentEditor* editor = window.editor();
    QVERIFY(editor->isLocked());
    auto* note = editor->findChild<QLabel*>(QStringLiteral("runningNote"));
    QVERIFY(note && note->isVisible());
    QVERIFY2(note->text().contains(QStringLiteral("edits apply to the next run"), Qt::CaseInsensitive),
             qPrintable(note->text()));
    // The learning rate cannot be typed over the one the run trains with.
    FieldBinding* lr = editor->binding("optimizer.lr");
    QVERIFY(!lr->input()->isEnabled());
    QTest::keyClicks(lr->input(), QStringLiteral("0.1"));
    QCOMPARE(editor->document()["optimizer"]["lr"].get<double>(), 0.003);
    QVERIFY(!editor->isModified());

    window.runActions()->controller()->stop();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    QVERIFY(!editor->isLocked());
    QVERIFY(!note->isVisible());
    QVERIFY(lr->input()->isEnabled());
  }

  void theSameWordsInTheListTheProgressAndTheStatusBar() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    window.show();
    QSignalSpy ended(&window, &MainWindow::runEnded);
    QVERIFY(window.runActions()->startExperiment(gui::test::tinyExperiment(dir.path(), 100000)));
    QTRY_VERIFY_WITH_TIMEOUT(window.runActions()->lastStep() >= 2, kRunTimeoutMs);
    // Running: the list (refreshed at the first step) and the status bar say the same.
    QTRY_VERIFY_WITH_TIMEOUT(window.runsBrowser()->rowCount() == 1, 10000);
    const std::string folder = window.runsBrowser()->model()->rows().front().record.folder;
    QCOMPARE(stateLabel(window), runStatusWord(RunIndexStatus::Running));
    QTRY_COMPARE_WITH_TIMEOUT(listedStatus(window.runsBrowser(), folder),
                              runStatusWord(RunIndexStatus::Running), 10000);

    window.runActions()->controller()->stop();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    const auto stopped = ended.front().front().value<RunSummary>();
    QCOMPARE(stopped.status, RunStatus::Interrupted);
    const QString word = runStatusWord(RunStatus::Interrupted);
    QVERIFY2(window.progress()->text().startsWith(word), qPrintable(window.progress()->text()));
    QVERIFY2(window.logPanel()->toPlainText().contains(word + QStringLiteral(" at step")),
             qPrintable(window.logPanel()->toPlainText()));
    QTRY_COMPARE_WITH_TIMEOUT(listedStatus(window.runsBrowser(), folder), word, 10000);
  }

  void aRunResumedFromTheRunsPanelShowsAsRunning() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    window.show();
    QSignalSpy ended(&window, &MainWindow::runEnded);
    QVERIFY(window.runActions()->startExperiment(gui::test::tinyExperiment(dir.path(), 100000)));
    QTRY_VERIFY_WITH_TIMEOUT(window.runActions()->lastStep() >= 2, kRunTimeoutMs);
    window.runActions()->controller()->stop();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    const auto stopped = ended.front().front().value<RunSummary>();
    window.runsBrowser()->refresh();
    QTRY_COMPARE_WITH_TIMEOUT(listedStatus(window.runsBrowser(), stopped.run_dir),
                              runStatusWord(RunIndexStatus::Interrupted), 10000);

    window.runsBrowser()->selectFolders({QString::fromStdString(stopped.run_dir)});
    window.runsBrowser()->actions()->resumeSelected();
    QTRY_VERIFY_WITH_TIMEOUT(
        window.runActions()->controller()->isActive() && window.runActions()->lastStep() > stopped.steps,
        kRunTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(listedStatus(window.runsBrowser(), stopped.run_dir),
                              runStatusWord(RunIndexStatus::Running), 10000);
    QCOMPARE(stateLabel(window), runStatusWord(RunIndexStatus::Running));
    window.runActions()->controller()->stop();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, kRunTimeoutMs);
  }
};

QTEST_MAIN(HonestStateTest)
#include "honest_state_test.moc"
