// The runs browser lists the runs of a runs folder from the engine's index, opens and overlays them on the
// charts, and clones a run's experiment into the editor.

#include <QStandardPaths>
#include <QTreeWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "charts/charts_panel.h"
#include "editor/experiment_editor.h"
#include "gui_test_support.h"
#include "runs/runs_browser.h"
#include "window/main_window.h"
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
    const RunSummary a = trainBlocking(test::tinyExperiment(m_dir.path(), 2, 0, "first"), [](EventBatch&&) {});
    const RunSummary b = trainBlocking(test::tinyExperiment(m_dir.path(), 1, 0, "second"), [](EventBatch&&) {});
    QCOMPARE(a.status, RunStatus::Completed);
    QCOMPARE(b.status, RunStatus::Completed);
    m_folders = {QString::fromStdString(a.run_dir), QString::fromStdString(b.run_dir)};
  }

  void listsTheRunsAndOverlaysTwo() {
    MainWindow window(MainWindow::Options{false});
    window.show();
    window.editor()->setDocument(test::tinyExperimentJson(m_dir.path()));
    RunsBrowser* runs = window.runsBrowser();
    QTRY_COMPARE(runs->rowCount(), 2);
    QStringList names;
    for (int row = 0; row < runs->rowCount(); ++row) names << runs->tree()->topLevelItem(row)->text(0);
    names.sort();
    QCOMPARE(names, (QStringList{QStringLiteral("first"), QStringLiteral("second")}));
    for (int row = 0; row < runs->rowCount(); ++row) {
      QCOMPARE(runs->tree()->topLevelItem(row)->text(1), QStringLiteral("finished"));
      QVERIFY(runs->tree()->topLevelItem(row)->text(3).endsWith(QStringLiteral("%")));  // best validation accuracy
    }

    // Overlay both: two traces on the same charts, each with its own loss curves.
    QStringList folders;
    for (int row = 0; row < runs->rowCount(); ++row) folders << runs->tree()->topLevelItem(row)->data(0, Qt::UserRole).toString();
    runs->selectFolders(folders);
    QCOMPARE(runs->selectedFolders().size(), 2);
    runs->overlaySelected();
    ChartsPanel* charts = window.charts();
    QTRY_COMPARE_WITH_TIMEOUT(charts->traceCount(), 2, 20000);
    QTRY_COMPARE(window.pendingHistoryLoads(), 0);
    MetricChart* loss = charts->chart(ChartId::Loss);
    QVERIFY(loss->seriesCount() >= 6);  // raw, smoothed and validation loss for each run
    // 2 epochs x 15 steps, reported every 2 steps: ~15 + 7 points of smoothed loss plus validations.
    QVERIFY2(loss->totalPointCount() >= 2 * (14 + 7), qPrintable(QString::number(loss->totalPointCount())));
    QVERIFY(charts->chart(ChartId::Accuracy)->totalPointCount() >= 6);
    // Overlaid curves carry the run in their legend name.
    bool named = false;
    for (int i = 0; i < loss->graphCount(); ++i) named = named || loss->graph(i)->name().contains(QStringLiteral("first"));
    QVERIFY(named);

    // Open one: it replaces what was shown.
    runs->selectFolders({folders.front()});
    runs->openSelected();
    QTRY_COMPARE(window.pendingHistoryLoads(), 0);
    QTRY_COMPARE(charts->traceCount(), 1);
    QCOMPARE(charts->traceIds().front(), folders.front());
  }

  void clonesARunsExperimentIntoTheEditor() {
    MainWindow window(MainWindow::Options{false});
    window.cloneRun(m_folders.back());
    const nlohmann::json doc = window.editor()->document();
    QCOMPARE(doc.at("name").get<std::string>(), std::string("second"));
    QCOMPARE(doc.at("train").at("epochs").get<int>(), 1);
    QVERIFY(window.currentFile().isEmpty());  // a new, unsaved experiment
  }

  void anUnreadableRunIsReportedNotCrashed() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorPresenter([&errors](const QString& title, const QString&, const QString&) { errors << title; });
    window.openRuns({m_dir.filePath(QStringLiteral("not-a-run"))}, false);
    QTRY_COMPARE(errors.size(), 1);
    QCOMPARE(window.charts()->traceCount(), 0);
  }

 private:
  QTemporaryDir m_dir;
  QStringList m_folders;
};

QTEST_MAIN(RunsBrowserTest)
#include "runs_browser_test.moc"
