// The runs browser lists the runs of a runs folder from the engine's index, opens and overlays them on the
// charts, and clones a run's experiment into the editor.

#include "runs_browser/runs_browser.h"

#include <QMenu>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "charts/charts_panel.h"
#include "editor/experiment_editor.h"
#include "gui_test_support.h"
#include "run/past_runs_on_charts.h"
#include "runs_browser/runs_browser_actions.h"
#include "runs_browser/runs_filter_proxy.h"
#include "runs_browser/runs_table_model.h"
#include "window/experiment_document.h"
#include "window/main_window.h"
#include "workbench/run_info.h"
#include "workbench/training_run.h"

using namespace wb;
using namespace wb::gui;

class RunsBrowserTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    // Two finished runs, trained headless by the engine as the CLI would.
    const RunSummary a =
        trainBlocking(test::tinyExperiment(m_dir.path(), 2, 0, "first"), [](EventBatch&&) {});
    const RunSummary b =
        trainBlocking(test::tinyExperiment(m_dir.path(), 1, 0, "second"), [](EventBatch&&) {});
    // No name: the run is named after its model and data, and numbered in the runs folder.
    const RunSummary c = trainBlocking(test::tinyExperiment(m_dir.path(), 1, 8, ""), [](EventBatch&&) {});
    QCOMPARE(a.status, RunStatus::Completed);
    QCOMPARE(b.status, RunStatus::Completed);
    QCOMPARE(c.status, RunStatus::Completed);
    m_folders = {QString::fromStdString(a.run_dir), QString::fromStdString(b.run_dir),
                 QString::fromStdString(c.run_dir)};
    for (QString& folder : m_folders) folder = QDir(folder).absolutePath();
  }

  void listsTheRunsAndOverlaysTwo() {
    MainWindow window(MainWindow::Options{false});
    window.show();
    window.editor()->setDocument(test::tinyExperimentJson(m_dir.path()));
    RunsBrowser* runs = window.runsBrowser();
    QTRY_COMPARE(runs->rowCount(), 3);
    auto cell = [runs](int row, int column) { return runs->proxy()->index(row, column).data().toString(); };
    QStringList names;
    for (int row = 0; row < runs->rowCount(); ++row) names << cell(row, RunsTableModel::kName);
    names.sort();  // first, mlp-synthetic-0003 (no name: after its model and data), second
    QCOMPARE(names.size(), 3);
    QCOMPARE(names[0], QStringLiteral("first"));
    QVERIFY2(names[1].startsWith(QStringLiteral("mlp-synthetic-")), qPrintable(names[1]));
    QCOMPARE(names[2], QStringLiteral("second"));
    for (int row = 0; row < runs->rowCount(); ++row) {
      QCOMPARE(cell(row, RunsTableModel::kStatus), QStringLiteral("Finished"));
      QVERIFY(cell(row, RunsTableModel::kValAcc).endsWith(QStringLiteral("%")));  // best validation accuracy
      QCOMPARE(cell(row, RunsTableModel::kModel), QStringLiteral("mlp"));
      QCOMPARE(cell(row, RunsTableModel::kLr), QStringLiteral("0.003"));
      QCOMPARE(cell(row, RunsTableModel::kBatch), QStringLiteral("32"));
    }

    // Overlay both named runs: two traces on the same charts, each with its own loss curves.
    QStringList folders = m_folders.mid(0, 2);
    runs->selectFolders(folders);
    QCOMPARE(runs->selectedFolders().size(), 2);
    runs->actions()->overlaySelected();
    ChartsPanel* charts = window.charts();
    QTRY_COMPARE_WITH_TIMEOUT(charts->traceCount(), 2, 20000);
    QTRY_COMPARE(window.pastRuns()->pendingLoads(), 0);
    // Each run in its own colour, derived from its folder: the same in every session. (When the two folders'
    // colours collide, the run whose history loaded second takes the next free one: either may be first.)
    QVERIFY(charts->traceColor(folders[0]) == ChartsPanel::runColor(folders[0]) ||
            charts->traceColor(folders[1]) == ChartsPanel::runColor(folders[1]));
    QVERIFY(charts->traceColor(folders[0]) != charts->traceColor(folders[1]));
    MetricChart* loss = charts->chart(ChartId::Loss);
    QVERIFY(loss->seriesCount() >= 6);  // raw, smoothed and validation loss for each run
    // 2 epochs x 15 steps, reported every 2 steps: ~15 + 7 points of smoothed loss plus validations.
    QVERIFY2(loss->totalPointCount() >= 2 * (14 + 7), qPrintable(QString::number(loss->totalPointCount())));
    QVERIFY(charts->chart(ChartId::Figure)->totalPointCount() >= 6);
    // Overlaid curves carry the run in their legend name.
    bool named = false;
    for (int i = 0; i < loss->graphCount(); ++i)
      named = named || loss->graph(i)->name().contains(QStringLiteral("first"));
    QVERIFY(named);

    // Open one: it replaces what was shown.
    runs->selectFolders({folders.front()});
    runs->actions()->openSelected();
    QTRY_COMPARE(window.pastRuns()->pendingLoads(), 0);
    QTRY_COMPARE(charts->traceCount(), 1);
    QCOMPARE(charts->traceIds().front(), folders.front());
  }

  // Right-clicking a finished run offers what can be done with it, compressing and exporting included, each
  // item enabled as in the menu bar.
  void theRightClickMenuOffersCompressAndExport() {
    MainWindow window(MainWindow::Options{false});
    window.show();
    window.editor()->setDocument(test::tinyExperimentJson(m_dir.path()));
    RunsBrowser* runs = window.runsBrowser();
    QTRY_COMPARE(runs->rowCount(), 3);
    runs->selectFolders({m_folders.front()});
    QTRY_COMPARE(runs->selectedFolders().size(), 1);
    QMenu* menu = runs->actions()->contextMenu();
    QVERIFY(menu);
    QStringList submenus;
    QStringList enabled;
    for (QAction* item : menu->actions()) {
      if (!item->menu()) continue;
      submenus << item->menu()->title().remove(QLatin1Char('&'));
      for (QAction* inner : item->menu()->actions()) {
        if (inner->isEnabled() && !inner->isSeparator()) enabled << inner->text().remove(QLatin1Char('&'));
      }
    }
    QCOMPARE(submenus, (QStringList{QStringLiteral("Compress"), QStringLiteral("Export")}));
    QVERIFY2(enabled.contains(QStringLiteral("Prune…")), qPrintable(enabled.join(QLatin1Char('|'))));
    QVERIFY2(enabled.filter(QStringLiteral("ONNX")).size() +
                     enabled.filter(QStringLiteral("TorchScript")).size() >=
                 1,
             qPrintable(enabled.join(QLatin1Char('|'))));
    delete menu;
  }

  void anUnnamedRunIsNamedAfterItsExperiment() {
    const std::string folder = m_folders[2].toStdString();
    QVERIFY2(QDir(m_folders[2]).dirName().endsWith(QStringLiteral("-mlp-synthetic")),
             qPrintable(m_folders[2]));
    const std::optional<RunRecord> record = findRun(m_dir.path().toStdString(), folder);
    QVERIFY(record);
    char expected[64];
    std::snprintf(expected, sizeof(expected), "mlp-synthetic-%04lld", static_cast<long long>(record->id));
    QCOMPARE(record->name, std::string(expected));
    const std::optional<RunInfo> info = readRunInfo(folder);  // run.json: the name travels with the folder
    QVERIFY(info);
    QCOMPARE(info->name, record->name);
    // Named runs keep their name, not numbered.
    QCOMPARE(findRun(m_dir.path().toStdString(), m_folders[0].toStdString())->name, std::string("first"));
  }

  void clonesARunsExperimentIntoTheEditor() {
    MainWindow window(MainWindow::Options{false});
    window.document()->cloneRun(m_folders[1]);
    const nlohmann::json doc = window.editor()->document();
    QCOMPARE(doc.at("name").get<std::string>(), std::string("second"));
    QCOMPARE(doc.at("train").at("epochs").get<int>(), 1);
    QVERIFY(window.document()->file().isEmpty());  // a new, unsaved experiment
  }

  void anUnreadableRunIsReportedNotCrashed() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorPresenter(
        [&errors](const QString& title, const QString&, const QString&) { errors << title; });
    window.pastRuns()->open({m_dir.filePath(QStringLiteral("not-a-run"))}, false);
    QTRY_COMPARE(errors.size(), 1);
    QCOMPARE(window.charts()->traceCount(), 0);
  }

 private:
  QTemporaryDir m_dir;
  QStringList m_folders;
};

QTEST_MAIN(RunsBrowserTest)
#include "runs_browser_test.moc"
