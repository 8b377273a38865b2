// The run queue and sweeps in the window, end to end with the workbench-cli worker it starts: a sweep queued
// from the window goes on after the window closes, and a window opened later shows it finished, its best
// trial marked and cloned into the editor; the Queue dock reorders, holds and removes entries and says when
// the queue is done; a run another process trains shows up in the runs list by itself and is followed live on
// the charts.

#include <qcustomplot.h>
#include <sched.h>

#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>
#include <atomic>
#include <fstream>

#include "charts/charts_panel.h"
#include "editor/experiment_editor.h"
#include "gui_test_support.h"
#include "queue_view/queue_actions.h"
#include "queue_view/queue_panel.h"
#include "run/past_runs_on_charts.h"
#include "run/run_follower.h"
#include "runs_browser/index_watch.h"
#include "runs_browser/runs_browser.h"
#include "runs_browser/runs_filters.h"
#include "runs_browser/runs_table_model.h"
#include "sweep_view/sweep_view.h"
#include "window/main_window.h"
#include "workbench/run_history.h"
#include "workbench/run_index.h"
#include "workbench/run_queue.h"
#include "workbench/training_run.h"

using namespace wb;
using namespace wb::gui;

namespace {

bool twoCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) >= 2;
}

// The status the runs list shows for a run ("" while it is not listed).
std::string listedStatus(RunsBrowser* runs, const QString& folder) {
  const std::optional<RunRecord> record = runs->run(folder);
  return record ? wordString(record->status) : std::string();
}

bool queueIdle(const QString& runs) {
  for (const QueueEntry& e : listQueue(runs.toStdString())) {
    if (e.state == QueueState::Queued || e.state == QueueState::Running) return false;
  }
  return true;
}

}  // namespace

class QueueTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    qputenv("TORCH_WORKBENCH_CLI", WB_CLI);
  }

  void aSweepQueuedInTheWindowFinishesAfterItClosesAndItsBestIsCloned() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString runs = dir.path() + QStringLiteral("/runs");
    const QString sweepFile = dir.path() + QStringLiteral("/lrs.json");
    // Three learning rates, one of which diverges: that trial fails with its reason and the sweep goes on.
    std::ofstream(sweepFile.toStdString())
        << R"({"name": "lrs", "metric": "best_val_accuracy", "keys": {"optimizer.lr": [0.003, 0.0001, 1e30]}})";
    const QString badFile = dir.path() + QStringLiteral("/bad.json");
    std::ofstream(badFile.toStdString()) << R"({"name": "bad", "keys": {"optimizer.lrr": [0.1]}})";
    {
      MainWindow window(MainWindow::Options{false});
      QStringList errors;
      window.setErrorPresenter([&](const QString& title, const QString& message, const QString&) {
        errors << title + QStringLiteral(": ") + message;
      });
      window.show();
      window.editor()->setDocument(test::tinyExperimentJson(runs, 2));
      // A key that is not an experiment key refuses the sweep before anything is queued, naming it.
      QSignalSpy refused(window.queueActions(), &QueueActions::refused);
      QVERIFY(window.queueActions()->queueSweep(badFile));
      QTRY_COMPARE_WITH_TIMEOUT(refused.count(), 1, 20000);
      QVERIFY2(errors.join(QString()).contains(QStringLiteral("optimizer.lrr")),
               qPrintable(errors.join(QString())));
      QVERIFY(listQueue(runs.toStdString()).empty());

      // Two trials at once, each on half the cores (where there are two).
      if (twoCores()) window.queuePanel()->workerDevices()->setText(QStringLiteral("cpu,cpu"));
      QSignalSpy queued(window.queueActions(), &QueueActions::sweepQueued);
      QVERIFY(window.queueActions()->queueSweep(sweepFile));
      QTRY_COMPARE_WITH_TIMEOUT(queued.count(), 1, 20000);
      QCOMPARE(window.centralTabs()->currentWidget(), static_cast<QWidget*>(window.sweepView()));
      QVERIFY(window.queuePanel()->workerAlive());  // started by queueing
      QTRY_VERIFY_WITH_TIMEOUT(window.sweepView()->results().has_value(), 20000);
      QCOMPARE(window.sweepView()->results()->trials.size(), size_t{3});
      QCOMPARE(window.sweepView()->currentSweep(), QStringLiteral("lrs"));
    }  // the window closes; its worker goes on

    QTRY_VERIFY_WITH_TIMEOUT(queueIdle(runs), 120000);
    // The worker's own account, once it has said its last line.
    const auto workerSaid = [&runs] {
      QFile log(runs + QStringLiteral("/queue-worker.log"));
      return log.open(QIODevice::ReadOnly) ? QString::fromUtf8(log.readAll()) : QString();
    };
    QTRY_VERIFY_WITH_TIMEOUT(workerSaid().contains(QStringLiteral("Queue finished")), 20000);
    QVERIFY2(workerSaid().contains(QStringLiteral("Queue finished: 2 done, 1 failed")),
             qPrintable(workerSaid()));
    if (twoCores())
      QVERIFY2(workerSaid().contains(QStringLiteral("(lrs-t02, cpu cores ")), qPrintable(workerSaid()));
    MainWindow later(MainWindow::Options{false});
    later.show();
    later.editor()->setDocument(test::tinyExperimentJson(runs, 2));
    SweepView* sweep = later.sweepView();
    QTRY_VERIFY_WITH_TIMEOUT(sweep->results().has_value() && sweep->results()->finished(), 20000);
    const SweepResults& results = *sweep->results();
    QCOMPARE(results.count(TrialStatus::Done), 2);
    QCOMPARE(results.count(TrialStatus::Failed), 1);
    QVERIFY(results.best >= 0);
    const SweepTrialResult& best = results.trials[static_cast<size_t>(results.best)];
    for (const SweepTrialResult& t : results.trials) {
      if (t.entry.state == QueueState::Failed) {
        QCOMPARE(t.values["optimizer.lr"].get<double>(), 1e30);
        QVERIFY2(QString::fromStdString(t.entry.message).contains(QStringLiteral("loss")),
                 t.entry.message.c_str());
      } else {
        QVERIFY(t.metric <= best.metric);
      }
    }
    // The table marks the best; the charts draw every trial and the best apart.
    QTableWidget* table = sweep->table();
    QCOMPARE(table->rowCount(), 3);
    int starred = 0;
    for (int row = 0; row < table->rowCount(); ++row) {
      starred += table->item(row, 0)->text().startsWith(QStringLiteral("★ ")) ? 1 : 0;
    }
    QCOMPARE(starred, 1);
    QVERIFY(sweep->summary()->text().contains(QStringLiteral("best ★ ") +
                                              QString::fromStdString(best.entry.label)));
    QCOMPARE(sweep->parallelChart()->graphCount(), 3);
    QCOMPARE(sweep->keyPicker()->currentText(), QStringLiteral("optimizer.lr"));
    QCOMPARE(sweep->keyChart()->graph(0)->dataCount() + sweep->keyChart()->graph(1)->dataCount(), 2);
    QCOMPARE(sweep->keyChart()->graph(1)->dataCount(), 1);  // the best, as a star

    // The runs list filters the sweep's trials (each a run, tagged with the sweep).
    RunsBrowser* runsList = later.runsBrowser();
    QTRY_COMPARE_WITH_TIMEOUT(runsList->rowCount(), 3, 20000);
    QVERIFY(sweepNamesOf(runsList->model()->rows()).contains(QStringLiteral("lrs")));
    QTest::mouseClick(sweep->findChild<QPushButton*>(QStringLiteral("sweepShowTrials")), Qt::LeftButton);
    QCOMPARE(runsList->filters()->sweepFilter()->currentData().toString(), QStringLiteral("lrs"));
    QCOMPARE(runsList->visibleRowCount(), 3);

    // Clone Best: the best trial's experiment in the editor.
    QVERIFY(sweep->cloneBestButton()->isEnabled());
    QTest::mouseClick(sweep->cloneBestButton(), Qt::LeftButton);
    const nlohmann::json doc = later.editor()->document();
    QCOMPARE(doc["name"].get<std::string>(), best.entry.label);
    QCOMPARE(doc["optimizer"]["lr"].get<double>(), best.values["optimizer.lr"].get<double>());
  }

  void theQueueDockReordersHoldsRemovesAndSaysWhenTheQueueIsDone() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString runs = dir.path() + QStringLiteral("/runs");
    MainWindow window(MainWindow::Options{false});
    window.show();
    window.queueActions()->setStartsWorker(false);
    QueuePanel* panel = window.queuePanel();
    for (const char* name : {"first", "second", "third"}) {
      window.editor()->setDocument(test::tinyExperimentJson(runs, 1, 0, name));
      QSignalSpy queued(window.queueActions(), &QueueActions::queued);
      QVERIFY(window.queueActions()->queueExperiment());
      QTRY_COMPARE_WITH_TIMEOUT(queued.count(), 1, 20000);
    }
    QTRY_COMPARE_WITH_TIMEOUT(panel->view()->topLevelItemCount(), 3, 10000);
    QVERIFY(panel->summary()->text().contains(QStringLiteral("no worker is running")));
    auto labels = [panel] {
      QStringList out;
      for (int i = 0; i < panel->view()->topLevelItemCount(); ++i)
        out << panel->view()->topLevelItem(i)->text(1);
      return out;
    };
    QCOMPARE(labels(), (QStringList{"first", "second", "third"}));
    panel->selectEntry(panel->entries()[2].id);
    QTest::mouseClick(panel->findChild<QPushButton*>(QStringLiteral("queueUp")), Qt::LeftButton);
    QTRY_COMPARE(labels(), (QStringList{"first", "third", "second"}));
    panel->selectEntry(panel->entries()[0].id);
    QTest::mouseClick(panel->findChild<QPushButton*>(QStringLiteral("queueHold")), Qt::LeftButton);
    QTRY_COMPARE(panel->entries()[0].state, QueueState::Held);
    panel->selectEntry(panel->entries()[2].id);
    QTest::mouseClick(panel->findChild<QPushButton*>(QStringLiteral("queueRemove")), Qt::LeftButton);
    QTRY_COMPARE(labels(), (QStringList{"first", "third"}));

    QStringList errors;
    panel->setErrorPresenter(
        [&](const QString&, const QString& message, const QString&) { errors << message; });
    panel->workerDevices()->setText(QStringLiteral("cuda:0,gpu1"));
    QVERIFY(!panel->startWorker());
    QCOMPARE(errors, QStringList{QStringLiteral("Slots: 'gpu1' is not a device.")});
    panel->workerDevices()->clear();
    QSignalSpy finished(&window, &MainWindow::queueFinished);
    QVERIFY(panel->startWorker());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QVERIFY2(finished.front().front().toString().startsWith(QStringLiteral("1 done")),
             qPrintable(finished.front().front().toString()));
    const std::vector<QueueEntry> entries = listQueue(runs.toStdString());
    QCOMPARE(entries.size(), size_t{2});
    QCOMPARE(entries[0].state, QueueState::Held);
    QCOMPARE(entries[1].state, QueueState::Done);
  }

  void aRunTrainedElsewhereShowsUpByItselfAndIsFollowedLive() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString runs = dir.path() + QStringLiteral("/runs");
    MainWindow window(MainWindow::Options{false});
    window.show();
    window.editor()->setDocument(test::tinyExperimentJson(runs, 2));
    window.runsBrowser()->indexWatch()->setInterval(100);
    window.pastRuns()->follower()->setInterval(100);
    RunsBrowser* runsList = window.runsBrowser();
    QTRY_VERIFY(!runsList->isLoading());
    QCOMPARE(runsList->rowCount(), 0);

    // Another writer of the runs folder (as the CLI or a queue worker would be): a run paused after its first
    // reported steps, so that it is training while the window looks.
    std::atomic<bool> stepped{false};
    std::atomic<TrainingRun*> self{nullptr};
    TrainingRun run(test::tinyExperiment(runs, 20), [&](EventBatch&& batch) {
      for (const Event& e : batch) {
        // Paused from its own thread at its first reported steps (the whole run takes a fraction of a
        // second).
        if (std::holds_alternative<StepMetrics>(e) && !stepped.exchange(true) && self.load())
          self.load()->pause();
      }
    });
    self = &run;
    run.start();
    QTRY_VERIFY_WITH_TIMEOUT(stepped.load(), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(runsList->rowCount(), 1, 10000);  // no refresh asked: the index watch saw it
    const QString folder = runsList->visibleFolder(0);
    QTRY_COMPARE_WITH_TIMEOUT(listedStatus(runsList, folder), std::string("running"), 10000);

    window.pastRuns()->open({folder}, true);
    QTRY_VERIFY_WITH_TIMEOUT(window.charts()->hasTrace(folder), 10000);
    QVERIFY(window.pastRuns()->follower()->follows(folder));
    MetricChart* loss = window.charts()->chart(ChartId::Loss);
    const int before = loss->totalPointCount();
    run.resume();
    QTRY_VERIFY_WITH_TIMEOUT(loss->totalPointCount() > before, 20000);  // followed as it trains
    QTRY_VERIFY_WITH_TIMEOUT(!window.pastRuns()->follower()->follows(folder), 30000);  // let go once it ended
    QTRY_COMPARE_WITH_TIMEOUT(listedStatus(runsList, folder), std::string("finished"), 10000);

    // Followed piece by piece, the charts hold what opening the finished run shows: nothing lost or twice.
    const int followed = loss->totalPointCount();
    window.pastRuns()->open({folder}, true);
    QTRY_COMPARE_WITH_TIMEOUT(window.pastRuns()->pendingLoads(), 0, 10000);
    QCOMPARE(loss->totalPointCount(), followed);
  }
};

QTEST_MAIN(QueueTest)
#include "queue_test.moc"
