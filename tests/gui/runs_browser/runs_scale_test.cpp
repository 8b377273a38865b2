// The runs list with many runs: its columns, sorting, search and status filter, rename, tags and notes that
// persist, delete (refused for a running run), the compare view's marked differences, and overlay colours
// that stay with a run. The runs are synthetic run folders (tests/support/synthetic_runs.h), indexed as the
// engine indexes them.

#include <sqlite3.h>
#include <unistd.h>

#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "charts/charts_panel.h"
#include "runs_browser/run_compare_view.h"
#include "runs_browser/run_folder_edits.h"
#include "runs_browser/runs_browser.h"
#include "runs_browser/runs_browser_actions.h"
#include "runs_browser/runs_filter_proxy.h"
#include "runs_browser/runs_filters.h"
#include "runs_browser/runs_table_model.h"
#include "support/synthetic_runs.h"
#include "workbench/run_index.h"
#include "workbench/run_info.h"

using namespace wb;
using namespace wb::gui;
using Column = RunsTableModel::Column;

namespace {

constexpr int kRuns = 40;

QString cell(const RunsBrowser& runs, int row, int column) {
  return runs.proxy()->index(row, column).data().toString();
}

// What the engine writes when this process starts training the run: status running, its pid, host and start
// time (the engine's index writer is not public, so the test sets the row through SQLite).
void markRunningInThisProcess(const std::string& runsDir, int64_t id) {
  std::ifstream stat("/proc/self/stat");
  std::string text;
  std::getline(stat, text);
  std::istringstream rest(text.substr(text.rfind(')') + 2));
  std::string field, startTicks;
  for (int index = 3; index <= 22 && rest >> field; ++index) startTicks = field;
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  sqlite3* db = nullptr;
  QCOMPARE(sqlite3_open((runsDir + "/runs.sqlite").c_str(), &db), SQLITE_OK);
  const std::string sql = "UPDATE runs SET status = 'running', pid = " + std::to_string(::getpid()) +
                          ", host = '" + host + "', pid_start = " + startTicks +
                          " WHERE id = " + std::to_string(id);
  QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

double sortKey(const RunsBrowser& runs, int row, int column) {
  return runs.proxy()->index(row, column).data(RunsTableModel::kSortRole).toDouble();
}

}  // namespace

class RunsScaleTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    for (int i = 0; i < kRuns; ++i) {
      m_folders << QString::fromStdString(
          test::writeSyntheticRun(m_dir.path().toStdString(), test::SyntheticRunSpec{i, 60, 3, 2}));
    }
  }

  void listsEveryRunWithWhatItTrained() {
    RunsBrowser runs;
    runs.setRunsDir(m_dir.path());
    QTRY_COMPARE(runs.rowCount(), kRuns);
    QCOMPARE(runs.visibleRowCount(), kRuns);
    const int row = runs.model()->runRow(m_folders[2]);  // i = 2: resnet, adamw, lr 1e-3, batch 128, AMP off
    QVERIFY(row >= 0);
    auto at = [&](int column) { return runs.model()->index(row, column).data().toString(); };
    QCOMPARE(at(Column::kName), QStringLiteral("resnet-fashion-mnist-0003"));  // named after model and data
    QCOMPARE(at(Column::kStatus), QStringLiteral("Finished"));
    QCOMPARE(at(Column::kModel), QStringLiteral("resnet"));
    QCOMPARE(at(Column::kOptimizer), QStringLiteral("adamw"));
    QCOMPARE(at(Column::kLr), QStringLiteral("0.001"));
    QCOMPARE(at(Column::kBatch), QStringLiteral("128"));
    QCOMPARE(at(Column::kAmp), QStringLiteral("off"));
    QCOMPARE(at(Column::kDevices), QStringLiteral("cpu"));
    QVERIFY2(at(Column::kDuration).endsWith(QStringLiteral(" s")), qPrintable(at(Column::kDuration)));
    QVERIFY(at(Column::kValAcc).endsWith(QStringLiteral("%")));
    const int named = runs.model()->runRow(m_folders[4]);  // i = 4: named by hand
    QCOMPARE(runs.model()->index(named, Column::kName).data().toString(), QStringLiteral("sweep-4"));
    const int twoRanks = runs.model()->runRow(m_folders[11]);
    QCOMPARE(runs.model()->index(twoRanks, Column::kDevices).data().toString(), QStringLiteral("cpu, cpu"));
    const int tagged = runs.model()->runRow(m_folders[13]);  // 13 % 12 == 1: baseline
    QCOMPARE(runs.model()->index(tagged, Column::kTags).data().toString(), QStringLiteral("baseline"));
  }

  void sortsNumbersAsNumbers() {
    RunsBrowser runs;
    runs.setRunsDir(m_dir.path());
    QTRY_COMPARE(runs.rowCount(), kRuns);
    runs.view()->sortByColumn(Column::kLr, Qt::AscendingOrder);
    for (int row = 1; row < runs.visibleRowCount(); ++row) {
      QVERIFY2(sortKey(runs, row - 1, Column::kLr) <= sortKey(runs, row, Column::kLr),
               qPrintable(QString::number(row)));
    }
    QCOMPARE(cell(runs, 0, Column::kLr), QStringLiteral("0.0003"));
    runs.view()->sortByColumn(Column::kValAcc, Qt::DescendingOrder);
    for (int row = 1; row < runs.visibleRowCount(); ++row) {
      QVERIFY(sortKey(runs, row - 1, Column::kValAcc) >= sortKey(runs, row, Column::kValAcc));
    }
    // Batch 64 < 128 < 256 (as text "128" < "256" < "64").
    runs.view()->sortByColumn(Column::kBatch, Qt::AscendingOrder);
    QCOMPARE(cell(runs, 0, Column::kBatch), QStringLiteral("64"));
    QCOMPARE(cell(runs, kRuns - 1, Column::kBatch), QStringLiteral("256"));
    runs.view()->sortByColumn(Column::kName, Qt::AscendingOrder);
    for (int row = 1; row < runs.visibleRowCount(); ++row) {
      QVERIFY(
          cell(runs, row - 1, Column::kName).compare(cell(runs, row, Column::kName), Qt::CaseInsensitive) <=
          0);
    }
  }

  void filtersByTextTagAndStatus() {
    RunsBrowser runs;
    runs.setRunsDir(m_dir.path());
    QTRY_COMPARE(runs.rowCount(), kRuns);
    runs.filters()->searchBox()->setText(QStringLiteral("ResNet"));
    QCOMPARE(runs.visibleRowCount(), kRuns / 4);
    for (int row = 0; row < runs.visibleRowCount(); ++row)
      QCOMPARE(cell(runs, row, Column::kModel), QStringLiteral("resnet"));
    runs.filters()->searchBox()->setText(QStringLiteral("resnet sgd"));  // every word must match
    for (int row = 0; row < runs.visibleRowCount(); ++row)
      QCOMPARE(cell(runs, row, Column::kOptimizer), QStringLiteral("sgd"));
    QVERIFY(runs.visibleRowCount() > 0 && runs.visibleRowCount() < kRuns / 4);
    runs.filters()->searchBox()->setText(QStringLiteral("tag:baseline"));
    QCOMPARE(runs.visibleRowCount(), 4);  // i = 1, 13, 25, 37
    runs.filters()->searchBox()->clear();
    QCOMPARE(runs.visibleRowCount(), kRuns);

    const int interrupted = runs.filters()->statusFilter()->findData(QStringLiteral("interrupted"));
    QVERIFY(interrupted > 0);
    runs.filters()->statusFilter()->setCurrentIndex(interrupted);
    QCOMPARE(runs.visibleRowCount(), 3);  // i % 13 == 5: 5, 18, 31
    for (int row = 0; row < runs.visibleRowCount(); ++row)
      QCOMPARE(cell(runs, row, Column::kStatus), QStringLiteral("Interrupted"));
    runs.filters()->searchBox()->setText(QStringLiteral("vit"));  // 31 is a vit run
    QCOMPARE(runs.visibleRowCount(), 1);
    runs.filters()->statusFilter()->setCurrentIndex(0);
    runs.filters()->searchBox()->clear();
    QCOMPARE(runs.visibleRowCount(), kRuns);
  }

  void renameTagsAndNotesPersist() {
    const QString folder = m_folders[7];
    {
      RunsBrowser runs;
      runs.setRunsDir(m_dir.path());
      QTRY_COMPARE(runs.rowCount(), kRuns);
      // Renamed by editing the Name cell, as F2 or the menu's Rename does.
      const QModelIndex name =
          runs.proxy()->mapFromSource(runs.model()->index(runs.model()->runRow(folder), Column::kName));
      QVERIFY(runs.proxy()->setData(name, QStringLiteral("wide lr sweep")));
      QSignalSpy refused(runs.model(), &RunsTableModel::renameFailed);
      QVERIFY(
          !runs.proxy()->setData(name, QStringLiteral("   ")));  // an empty name is refused, with a message
      QCOMPARE(refused.count(), 1);
      QCOMPARE(runs.proxy()->data(name).toString(), QStringLiteral("wide lr sweep"));
      QCOMPARE(runs.edits()->setTagsAndNotes(folder, {"keep", "paper"},
                                             QStringLiteral("diverged at epoch 2; try warmup")),
               QString());
    }
    // Stored in the run folder (run.json) and the index: a new list, the CLI's listRuns and the folder agree.
    const std::optional<RunInfo> info = readRunInfo(folder.toStdString());
    QVERIFY(info);
    QCOMPARE(QString::fromStdString(info->name), QStringLiteral("wide lr sweep"));
    QCOMPARE(info->tags, (std::vector<std::string>{"keep", "paper"}));
    const std::optional<RunRecord> indexed = findRun(m_dir.path().toStdString(), folder.toStdString());
    QVERIFY(indexed);
    QCOMPARE(indexed->name, std::string("wide lr sweep"));
    QCOMPARE(indexed->notes, std::string("diverged at epoch 2; try warmup"));
    QVERIFY(
        std::filesystem::exists(folder.toStdString() + "/experiment.json"));  // the folder stays where it is

    RunsBrowser again;
    again.setRunsDir(m_dir.path());
    QTRY_COMPARE(again.rowCount(), kRuns);
    QCOMPARE(again.run(folder)->name, std::string("wide lr sweep"));
    again.filters()->searchBox()->setText(QStringLiteral("warmup"));  // notes are searched
    QCOMPARE(again.visibleRowCount(), 1);
    QCOMPARE(again.visibleFolder(0), folder);
    again.filters()->searchBox()->setText(QStringLiteral("tag:pap"));
    QCOMPARE(again.visibleRowCount(), 1);
  }

  void deleteRemovesTheFolderAndRefusesARunningRun() {
    QTemporaryDir dir;
    const std::string runsDir = dir.path().toStdString();
    const QString done =
        QString::fromStdString(test::writeSyntheticRun(runsDir, test::SyntheticRunSpec{0, 20, 2, 2}));
    const QString other =
        QString::fromStdString(test::writeSyntheticRun(runsDir, test::SyntheticRunSpec{1, 20, 2, 2}));
    RunsBrowser runs;
    QStringList errors;
    runs.edits()->setErrorPresenter(
        [&errors](const QString& title, const QString& message) { errors << title + ": " + message; });
    int asked = 0;
    bool agree = false;
    QString question;
    runs.edits()->setConfirm([&](const QString&, const QString& text, std::function<void()> yes) {
      ++asked;
      question = text;
      if (agree) yes();
    });
    runs.setRunsDir(dir.path());
    QTRY_COMPARE(runs.rowCount(), 2);

    runs.selectFolders({done});
    runs.actions()->action(QStringLiteral("runDelete"))->trigger();
    QCOMPARE(asked, 1);
    QVERIFY2(question.contains(QDir::toNativeSeparators(done)), qPrintable(question));  // names what goes
    QVERIFY(QFileInfo::exists(done));  // answered no: nothing deleted
    agree = true;
    runs.actions()->deleteSelected();
    QCOMPARE(asked, 2);
    QVERIFY(!QFileInfo::exists(done));
    QTRY_COMPARE(runs.rowCount(), 1);
    QCOMPARE(runs.visibleFolder(0), other);
    QVERIFY(errors.isEmpty());

    // A run whose process is alive (this one) is training: refused, its folder kept.
    const QString live = dir.filePath(QStringLiteral("20261203-120000-live"));
    QVERIFY(QDir().mkpath(live));
    std::ofstream((live + QStringLiteral("/experiment.json")).toStdString())
        << experimentToJson(Experiment{}).dump();
    const RunRecord registered = addRunFolder(runsDir, live.toStdString());
    markRunningInThisProcess(runsDir, registered.id);
    runs.refresh();
    QTRY_COMPARE(runs.rowCount(), 2);
    QCOMPARE(runs.run(QString::fromStdString(registered.folder))->status, RunIndexStatus::Running);
    runs.selectFolders({QString::fromStdString(registered.folder)});
    QSignalSpy removed(runs.edits(), &RunFolderEdits::removed);
    runs.actions()->deleteSelected();
    QCOMPARE(errors.size(), 1);
    QCOMPARE(removed.count(), 0);  // nothing was deleted: the charts keep the run's traces
    QVERIFY2(errors.front().contains(QStringLiteral("is training")), qPrintable(errors.front()));
    QVERIFY(QFileInfo::exists(live + QStringLiteral("/experiment.json")));
    QTRY_COMPARE(runs.rowCount(), 2);
  }

  void compareMarksTheDifferences() {
    RunsBrowser runs;
    runs.setRunsDir(m_dir.path());
    QTRY_COMPARE(runs.rowCount(), kRuns);
    // i = 0 (cnn, adamw, lr 1e-3, batch 128, bf16) and i = 1 (mlp, adamw, lr 1e-3, batch 128, off).
    runs.selectFolders({m_folders[0], m_folders[1]});
    QVERIFY(runs.actions()->action(QStringLiteral("runCompare"))->isEnabled());
    runs.actions()->compareSelected();
    RunCompareView* view = runs.actions()->compareView();
    QVERIFY(view);
    QCOMPARE(view->table()->columnCount(), 2);
    const QStringList differ = view->differingKeys();
    QVERIFY2(differ.contains(QStringLiteral("model.preset")), qPrintable(differ.join(", ")));
    QVERIFY(differ.contains(QStringLiteral("train.amp")));
    QVERIFY(differ.contains(QStringLiteral("seed")));
    QVERIFY(!differ.contains(QStringLiteral("optimizer.lr")));
    QVERIFY(!differ.contains(QStringLiteral("train.batch_size")));
    QVERIFY(view->experimentKeys().size() > 60);
    // Columns in the list's order; find each run's by its name.
    const int run0 =
        view->table()->horizontalHeaderItem(0)->text() == QString::fromStdString(runs.run(m_folders[0])->name)
            ? 0
            : 1;
    const int run1 = 1 - run0;
    QCOMPARE(view->table()->horizontalHeaderItem(run1)->text(),
             QString::fromStdString(runs.run(m_folders[1])->name));
    const int amp = view->rowOf(QStringLiteral("train.amp"));
    QCOMPARE(view->table()->item(amp, run0)->text(), QStringLiteral("bf16"));
    QCOMPARE(view->table()->item(amp, run1)->text(), QStringLiteral("off  (default)"));  // defaults say so
    QVERIFY(view->table()->item(amp, run0)->background().style() != Qt::NoBrush);        // marked
    const int batch = view->rowOf(QStringLiteral("train.batch_size"));
    QCOMPARE(view->table()->item(batch, 0)->background().style(), Qt::NoBrush);
    QVERIFY(!view->table()->isRowHidden(batch));
    view->setOnlyDifferences(true);
    QVERIFY(view->table()->isRowHidden(batch));
    QVERIFY(!view->table()->isRowHidden(amp));
    QVERIFY(!view->table()->isRowHidden(0));  // the results stay
  }

  void overlayColoursStayWithTheRun() {
    // Three runs whose folder names hash to three colours (two that share one are the case below).
    QStringList distinct;
    for (const QString& folder : m_folders) {
      bool taken = false;
      for (const QString& d : distinct)
        taken = taken || ChartsPanel::runColor(d) == ChartsPanel::runColor(folder);
      if (!taken && distinct.size() < 3) distinct << folder;
    }
    QCOMPARE(distinct.size(), 3);
    const QString a = distinct[0], b = distinct[1], c = distinct[2];
    ChartsPanel first;
    first.addTrace(a, QStringLiteral("a"));
    first.addTrace(b, QStringLiteral("b"));
    ChartsPanel second;  // another session: other runs, another order
    second.addTrace(c, QStringLiteral("c"));
    second.addTrace(b, QStringLiteral("b"));
    QCOMPARE(first.traceColor(b), second.traceColor(b));
    QCOMPARE(first.traceColor(b), ChartsPanel::runColor(b));
    QCOMPARE(first.traceColor(a), ChartsPanel::runColor(a));
    QVERIFY(first.traceColor(a) != first.traceColor(b));
    // Two runs that hash to the same colour are still told apart: the later one takes another.
    QString twin;
    for (const QString& folder : m_folders) {
      if (folder != a && ChartsPanel::runColor(folder) == ChartsPanel::runColor(a)) twin = folder;
    }
    if (!twin.isEmpty()) {
      first.addTrace(twin, QStringLiteral("twin"));
      QVERIFY(first.traceColor(twin) != first.traceColor(a));
      QVERIFY(first.traceColor(twin) != first.traceColor(b));
      first.removeTrace(twin);
    }
    // The same folder opened by another path keeps its colour.
    QCOMPARE(ChartsPanel::runColor(QDir(b).absolutePath() + QStringLiteral("/")), ChartsPanel::runColor(b));
    // The curves are drawn in it, with the run's name in the legend.
    MetricChart* loss = first.chart(ChartId::Loss);
    bool drawn = false;
    for (int i = 0; i < loss->graphCount(); ++i) {
      if (loss->graph(i)->name() == QStringLiteral("b · train"))
        drawn = loss->graph(i)->pen().color() == ChartsPanel::runColor(b);
    }
    QVERIFY(drawn);
    // Renamed: the legend follows.
    first.setTraceLabel(b, QStringLiteral("renamed"));
    bool renamed = false;
    for (int i = 0; i < loss->graphCount(); ++i)
      renamed = renamed || loss->graph(i)->name() == QStringLiteral("renamed · train");
    QVERIFY(renamed);
  }

 private:
  QTemporaryDir m_dir;
  QStringList m_folders;
};

QTEST_MAIN(RunsScaleTest)
#include "runs_scale_test.moc"
