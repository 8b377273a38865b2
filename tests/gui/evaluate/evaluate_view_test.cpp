// The Evaluation view and the Model tab: the view's accuracy, per-class figures, confusion matrix and
// mistakes are those `workbench-cli eval --json` prints for the same run (a tiny MLP trained here first); the
// Model tab follows the editor with the engine's layer table and PyTorch's parameter count.

#include <QAction>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QProgressBar>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "editor/experiment_editor.h"
#include "evaluate/confusion_matrix_widget.h"
#include "evaluate/evaluation_view.h"
#include "evaluate/misclassified_grid.h"
#include "model_view/model_summary_view.h"
#include "window/main_window.h"
#include "workbench/model_summary.h"
#include "workbench/training_run.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kEvaluateTimeoutMs = 180000;

nlohmann::json fashionMlpJson(const QString& runsDir) {
  return {{"name", "eval-mlp"},
          {"seed", 5},
          {"data",
           {{"dataset", "fashion-mnist"},
            {"path", WB_FASHION_MNIST_DIR},
            {"limit", 2000},
            {"val_fraction", 0.1},
            {"augment", false}}},
          {"model", {{"preset", "mlp"}}},
          {"optimizer", {{"name", "adamw"}, {"lr", 0.002}}},
          {"train", {{"epochs", 1}, {"batch_size", 32}, {"threads", 2}, {"devices", {"cpu"}}}},
          {"output", {{"runs_dir", runsDir.toStdString()}}}};
}

nlohmann::json cliEvalJson(const QString& runDir) {
  QProcess cli;
  cli.start(QStringLiteral(WB_CLI), {QStringLiteral("eval"), runDir, QStringLiteral("--json")});
  if (!cli.waitForFinished(kEvaluateTimeoutMs) || cli.exitCode() != 0) {
    qWarning() << cli.readAllStandardError();
    return {};
  }
  return nlohmann::json::parse(cli.readAllStandardOutput().toStdString(), nullptr, false);
}

}  // namespace

class EvaluateViewTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_dir;
  QString m_runDir;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    // 57 steps of the MLP on 1,800 Fashion-MNIST images: enough to be well above chance, with mistakes left.
    const ParseResult parsed = parseExperiment(fashionMlpJson(m_dir.path()));
    QVERIFY2(parsed.ok(), formatIssues(parsed.issues).c_str());
    const RunSummary summary = trainBlocking(parsed.experiment, [](EventBatch&&) {});
    QCOMPARE(summary.status, RunStatus::Completed);
    m_runDir = QString::fromStdString(summary.run_dir);
  }

  void viewShowsWhatTheCliPrints() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorPresenter([&errors](const QString& title, const QString& message, const QString&) {
      errors << title + QStringLiteral(": ") + message;
    });
    EvaluationView* view = window.evaluationView();
    QSignalSpy finished(view, &EvaluationView::evaluationFinished);
    QVERIFY(window.evaluateRun(m_runDir));
    QCOMPARE(window.centralTabs()->currentWidget(), view);
    QVERIFY(view->isEvaluating());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kEvaluateTimeoutMs);
    QVERIFY2(finished.front().front().toBool(), qPrintable(errors.join(QLatin1Char('\n'))));
    QVERIFY(!view->progressBar()->isVisible());
    QVERIFY(view->report().has_value());

    const nlohmann::json cli = cliEvalJson(m_runDir);
    QVERIFY(cli.is_object());
    const EvaluationReport& r = *view->report();
    // The same numbers, not just close ones: the same engine code on the same saved model.
    QCOMPARE(r.figures.accuracy, cli["test_accuracy"].get<double>());
    QCOMPARE(r.figures.samples, cli["samples"].get<int64_t>());
    QVERIFY2(view->summaryLabel()->text().contains(
                 QStringLiteral("%1 %").arg(cli["test_accuracy"].get<double>() * 100, 0, 'f', 2)),
             qPrintable(view->summaryLabel()->text()));
    QVERIFY(r.figures.accuracy > 0.6);

    // The heatmap's counts are the CLI's confusion matrix.
    const auto& counts = view->matrix()->counts();
    QCOMPARE(counts.size(), size_t{10});
    QCOMPARE(counts, cli["confusion_matrix"].get<std::vector<std::vector<int64_t>>>());

    // The table: one row per class (named), then the macro average, each figure as the CLI has it.
    QTableWidget* table = view->classTable();
    QCOMPARE(table->rowCount(), 11);
    for (int c = 0; c < 10; ++c) {
      const nlohmann::json& figures = cli["classes"][static_cast<size_t>(c)];
      QCOMPARE(table->item(c, kEvalClassColumn)->text(),
               QString::fromStdString(figures["name"].get<std::string>()));
      QCOMPARE(table->item(c, kEvalPrecisionColumn)->text(),
               QString::number(figures["precision"].get<double>(), 'f', 4));
      QCOMPARE(table->item(c, kEvalRecallColumn)->text(),
               QString::number(figures["recall"].get<double>(), 'f', 4));
      QCOMPARE(table->item(c, kEvalF1Column)->text(), QString::number(figures["f1"].get<double>(), 'f', 4));
    }
    QCOMPARE(table->item(0, kEvalClassColumn)->text(), QStringLiteral("T-shirt/top"));
    QCOMPARE(table->item(10, kEvalF1Column)->text(),
             QString::number(cli["macro_avg"]["f1"].get<double>(), 'f', 4));

    // The grid: the most confident mistakes, in the CLI's order, each with a 28x28 thumbnail.
    MisclassifiedGrid* grid = view->grid();
    const int64_t total = cli["misclassified_total"].get<int64_t>();
    QCOMPARE(grid->count(), static_cast<int>(std::min<int64_t>(48, total)));
    for (size_t k = 0; k < cli["misclassified"].size(); ++k) {
      QCOMPARE(grid->item(static_cast<int>(k))->data(Qt::UserRole).toLongLong(),
               cli["misclassified"][k]["index"].get<long long>());
    }
    QVERIFY(!grid->item(0)->icon().isNull());
    const QString names =
        QString::fromStdString(cli["class_names"][cli["misclassified"][0]["predicted"].get<size_t>()]);
    QVERIFY2(grid->item(0)->text().startsWith(names), qPrintable(grid->item(0)->text()));
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    const QString shots = qEnvironmentVariable("WB_GUI_TEST_SHOTS");
    if (!shots.isEmpty()) window.grab().save(QDir(shots).filePath(QStringLiteral("evaluation.png")));
  }

  void runsWithoutAModelAreRefusedInWords() {
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorPresenter([&errors](const QString& title, const QString& message, const QString& hint) {
      errors << title + QStringLiteral(": ") + message + QStringLiteral(" / ") + hint;
    });
    // Run ▸ Evaluate Run with nothing selected says what to select.
    QVERIFY(!window.evaluateRun());
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors.front().contains(QStringLiteral("finished run")), qPrintable(errors.front()));

    // A run folder without model.pt (a run that never finished): the engine's words, in the view and a
    // dialog.
    const QString unfinished = m_dir.filePath(QStringLiteral("unfinished"));
    QVERIFY(QDir().mkpath(unfinished));
    QVERIFY(QFile::copy(m_runDir + QStringLiteral("/experiment.json"),
                        unfinished + QStringLiteral("/experiment.json")));
    QSignalSpy finished(window.evaluationView(), &EvaluationView::evaluationFinished);
    QVERIFY(window.evaluateRun(unfinished));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kEvaluateTimeoutMs);
    QCOMPARE(finished.front().front().toBool(), false);
    QCOMPARE(errors.size(), 2);
    QVERIFY2(errors.back().contains(QStringLiteral("model.pt")), qPrintable(errors.back()));
    QVERIFY(window.evaluationView()->summaryLabel()->text().contains(QStringLiteral("model.pt")));
    QVERIFY(!window.evaluationView()->report().has_value());
  }

  void modelTabFollowsTheEditor() {
    MainWindow window(MainWindow::Options{false});
    ModelSummaryView* tab = window.modelView();
    QSignalSpy shown(tab, &ModelSummaryView::summaryShown);
    const nlohmann::json doc = fashionMlpJson(m_dir.path());
    window.editor()->setDocument(doc);
    QTRY_VERIFY_WITH_TIMEOUT(!tab->isComputing() && tab->tableModel()->rowCount() == 7, 30000);
    // flatten, linear 784→256, relu, dropout, linear 256→128, relu, linear 128→10: PyTorch counts 235,146
    // parameters for this nn.Sequential (sum of p.numel()), and so does the engine.
    const ModelSummary engine = summarizeModel(parseExperiment(doc).experiment);
    QCOMPARE(tab->summary().total_parameters, engine.total_parameters);
    QCOMPARE(tab->summary().total_parameters, int64_t{235146});
    QCOMPARE(tab->tableModel()->rowCount(), static_cast<int>(engine.rows.size()));
    QCOMPARE(tab->tableModel()->item(1, kModelTypeColumn)->text(), QStringLiteral("linear"));
    QCOMPARE(tab->tableModel()->item(1, kModelShapeColumn)->text(), QStringLiteral("[256]"));
    QCOMPARE(tab->tableModel()->item(1, kModelParamsColumn)->text(), QStringLiteral("200,960"));
    QVERIFY2(tab->totalsText().contains(QStringLiteral("235,146")), qPrintable(tab->totalsText()));

    // An edit of the model section: the table follows.
    nlohmann::json smaller = doc;
    smaller["model"] = {{"preset", ""},
                        {"layers",
                         {{{"type", "flatten"}},
                          {{"type", "linear"}, {"out_features", 64}},
                          {{"type", "relu"}},
                          {{"type", "linear"}, {"out_features", 10}}}}};
    window.editor()->setDocument(smaller);
    QTRY_VERIFY_WITH_TIMEOUT(!tab->isComputing() && tab->tableModel()->rowCount() == 4, 30000);
    QCOMPARE(tab->summary().total_parameters, int64_t{784 * 64 + 64 + 64 * 10 + 10});
    QVERIFY(tab->messageText().isEmpty());

    // A layer that does not fit: its path and the engine's words instead of a stale table.
    nlohmann::json broken = smaller;
    broken["model"]["layers"][1] = {{"type", "conv2d"}, {"out_channels", 4}, {"kernel_size", 3}};
    window.editor()->setDocument(broken);
    QTRY_VERIFY_WITH_TIMEOUT(!tab->isComputing() && !tab->messageText().isEmpty(), 30000);
    QVERIFY2(tab->messageText().contains(QStringLiteral("model.layers")), qPrintable(tab->messageText()));
    QVERIFY(tab->table()->isHidden());
  }
};

QTEST_MAIN(EvaluateViewTest)
#include "evaluate_view_test.moc"
