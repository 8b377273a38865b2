// Compression in the window: the pass dialogs show the engine's messages at the field and hold OK back; the
// Compression view draws a compress.json (points, Pareto front, table); an engine error becomes a dialog; and
// a real prune pipeline started from the dialog ends up in the view and under its run in the runs browser.

#include <QAction>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "charts/charts_panel.h"
#include "compression_view/compress_dialog.h"
#include "compression_view/compression_actions.h"
#include "compression_view/compression_controller.h"
#include "compression_view/compression_view.h"
#include "compression_view/pareto_chart.h"
#include "compression_view/pass_form.h"
#include "editor/experiment_editor.h"
#include "gui_test_support.h"
#include "run/past_runs_on_charts.h"
#include "run/run_actions.h"
#include "runs_browser/runs_browser.h"
#include "window/main_window.h"
#include "workbench/event_json.h"
#include "workbench/training_run.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kCompressTimeoutMs = 240000;

void writeJson(const QString& file, const nlohmann::json& doc) {
  std::ofstream out(file.toStdString());
  out << doc.dump(2);
}

// A run folder as far as the dialogs need one: its experiment.json (nothing trained).
QString fakeRunDir(const QTemporaryDir& dir) {
  const QString run = dir.filePath(QStringLiteral("run"));
  QDir().mkpath(run);
  writeJson(run + QStringLiteral("/experiment.json"), test::tinyExperimentJson(dir.path()));
  return run;
}

// Types into a line edit the way a user does (textEdited fires), replacing what was there.
void typeInto(QWidget* widget, const QString& text) {
  auto* edit = qobject_cast<QLineEdit*>(widget);
  QVERIFY(edit);
  edit->selectAll();
  QTest::keyClick(edit, Qt::Key_Backspace);
  QTest::keyClicks(edit, text);
}

// The engine's own message for a path when the run's experiment has these passes: what the CLI prints.
QString engineMessage(const QString& runDir, const nlohmann::json& passes, const std::string& path) {
  std::ifstream in((runDir + QStringLiteral("/experiment.json")).toStdString());
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["compress"]["passes"] = passes;
  for (const ValidationIssue& issue : parseExperiment(doc).issues) {
    if (issue.path == path) return QString::fromStdString(issue.message);
  }
  return QStringLiteral("<the engine reports nothing at %1>").arg(QString::fromStdString(path));
}

ArtifactFigures figures(const std::string& name, const std::string& pass, double accuracy, double mib,
                        double latency64, const std::string& dtype = "float32") {
  ArtifactFigures a;
  a.name = name;
  a.path = name == "00-original" ? "compressed/00-original" : "compressed/" + name;
  a.pass = fromWord<PassType>(pass);  // none for "original"
  a.description = pass + " for the test";
  a.test_accuracy = accuracy;
  a.test_loss = 1 - accuracy;
  a.parameters = 1000000;
  a.nonzero_parameters = pass == "prune" ? 500000 : 1000000;
  a.size_bytes = static_cast<int64_t>(mib * 1024 * 1024);
  a.flops_per_sample = 2000000;
  a.latency_ms_batch1 = latency64 / 10;
  a.latency_ms_batch64 = latency64;
  a.weights_dtype = dtype;
  if (dtype == "int8") a.float_layers = {"layers.5 (linear, the output layer)"};
  return a;
}

QString cell(QTableWidget* table, const QString& artifact, int column) {
  for (int row = 0; row < table->rowCount(); ++row) {
    if (table->item(row, kArtifactColumn)->text() == artifact) return table->item(row, column)->text();
  }
  return QStringLiteral("<no row %1>").arg(artifact);
}

// WB_GUI_TEST_SHOTS=<folder>: the end-to-end test saves what it shows there (to look at, not compared).
void keepShot(QWidget* widget, const QString& name) {
  const QString folder = qEnvironmentVariable("WB_GUI_TEST_SHOTS");
  if (!folder.isEmpty()) widget->grab().save(QDir(folder).filePath(name + QStringLiteral(".png")));
}

bool cliHasCompress() {
  QProcess cli;
  cli.start(QStringLiteral(WB_SOURCE_DIR "/build/cli/workbench-cli"),
            {QStringLiteral("compress"), QStringLiteral("--help")});
  return cli.waitForFinished(30000) && cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0;
}

}  // namespace

class CompressTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void pruneDialogFlagsAnAmountOutOfRangeAtTheField() {
    QTemporaryDir dir;
    const QString run = fakeRunDir(dir);
    CompressDialog dialog(CompressDialog::Kind::Prune, run);
    dialog.show();
    QCOMPARE(dialog.passCount(), 1);
    QCOMPARE(dialog.passForm(0)->type(), QStringLiteral("prune"));
    // The defaults are accepted as they are.
    QVERIFY2(dialog.issues().empty(), dialog.issues().empty() ? "" : dialog.issues().front().message.c_str());
    QVERIFY(dialog.okButton()->isEnabled());

    FieldBinding* amount = dialog.passForm(0)->binding("amount");
    QVERIFY(amount);
    typeInto(amount->input(), QStringLiteral("1.5"));
    QTRY_VERIFY(!dialog.okButton()->isEnabled());  // after the edit pause, the engine's checks ran
    nlohmann::json pass = defaultPassJson("prune");
    pass["amount"] = 1.5;
    const QString expected = engineMessage(run, nlohmann::json::array({pass}), "compress.passes[0].amount");
    QVERIFY2(!expected.startsWith(QLatin1Char('<')), qPrintable(expected));
    QCOMPARE(amount->messages(), QStringList{expected});
    QVERIFY(amount->messageLabel()->isVisibleTo(&dialog));
    QVERIFY(!dialog.config());

    // OK does not start anything while the field is marked.
    dialog.accept();
    QVERIFY(dialog.isVisible());
    QCOMPARE(dialog.result(), int(QDialog::Rejected));

    typeInto(amount->input(), QStringLiteral("0.3"));
    QTRY_VERIFY(dialog.okButton()->isEnabled());
    QVERIFY(amount->messages().isEmpty());
    QVERIFY(dialog.config());
    QCOMPARE(dialog.config()->passes.size(), size_t{1});
    QCOMPARE(dialog.config()->passes[0].amount, 0.3);
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
  }

  void pipelineDialogFlagsAQuantizePassBeforeAFinetune() {
    QTemporaryDir dir;
    const QString run = fakeRunDir(dir);
    CompressDialog dialog(CompressDialog::Kind::Pipeline, run);
    dialog.show();
    QVERIFY(dialog.passCount() >= 1);  // a suggested pipeline to start from
    dialog.setPasses(nlohmann::json::array());
    QVERIFY(!dialog.okButton()->isEnabled());  // nothing to run
    dialog.addPass(PassType::Quantize);
    dialog.addPass(PassType::Finetune);
    QCOMPARE(dialog.passCount(), 2);
    QCOMPARE(dialog.passForm(0)->type(), QStringLiteral("quantize"));
    QCOMPARE(dialog.passForm(1)->type(), QStringLiteral("finetune"));

    const QString expected = engineMessage(run, dialog.passesJson(), "compress.passes[1]");
    QVERIFY2(expected.contains(QStringLiteral("int8")), qPrintable(expected));
    QCOMPARE(dialog.passForm(1)->passMessages(), QStringList{expected});
    QVERIFY(dialog.passForm(0)->passMessages().isEmpty());
    QVERIFY(!dialog.okButton()->isEnabled());
    QVERIFY(dialog.passList()->item(1)->toolTip().contains(expected));
    QVERIFY(!dialog.passList()->item(1)->icon().isNull());
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QCOMPARE(dialog.currentPass(), 1);  // OK led to the pass at fault

    // Fine-tune first, then quantize: the engine accepts it.
    dialog.movePass(1, 0);
    QCOMPARE(dialog.passForm(0)->type(), QStringLiteral("finetune"));
    QVERIFY2(dialog.issues().empty(), dialog.issues().empty() ? "" : dialog.issues().front().message.c_str());
    QVERIFY(dialog.okButton()->isEnabled());
    QCOMPARE(dialog.config()->passes.size(), size_t{2});
    QVERIFY(dialog.config()->passes[0].type == PassType::Finetune);
    QVERIFY(dialog.config()->passes[1].type == PassType::Quantize);

    dialog.removePass(0);
    QCOMPARE(dialog.passCount(), 1);
    QVERIFY(dialog.okButton()->isEnabled());
  }

  void distillDialogChecksTheTeacherAgainstTheRun() {
    QTemporaryDir dir;
    const QString run = fakeRunDir(dir);
    CompressDialog dialog(CompressDialog::Kind::Distill, run);
    FieldBinding* teacher = dialog.passForm(0)->binding("teacher");
    QVERIFY(teacher);
    typeInto(teacher->input(), QStringLiteral("no-such-teacher"));
    dialog.validateNow();
    // checkCompression, which needs the run folder, words it.
    QCOMPARE(teacher->messages().size(), 1);
    QVERIFY2(teacher->messages().front().contains(QStringLiteral("no-such-teacher")),
             qPrintable(teacher->messages().front()));
    QVERIFY(!dialog.okButton()->isEnabled());
  }

  void paretoFrontKeepsOnlyUnbeatenModels() {
    auto point = [](const char* name, double cost, double accuracy) {
      TradeOffPoint p;
      p.name = QLatin1String(name);
      p.cost = cost;
      p.accuracy = accuracy;
      return p;
    };
    const std::vector<TradeOffPoint> points = {point("a", 4, 90), point("b", 4, 85), point("c", 1, 88),
                                               point("d", 2, 80), point("e", 1, 88)};
    const std::vector<int> front = paretoFront(points);
    QCOMPARE(front, (std::vector<int>{2, 0}));  // c (cheapest) then a (most accurate); e ties c, b and d lose
  }

  void compressionViewDrawsACompressJson() {
    QTemporaryDir dir;
    const QString run = dir.filePath(QStringLiteral("run"));
    QDir().mkpath(run);
    nlohmann::json list = nlohmann::json::array();
    for (const ArtifactFigures& a :
         {figures("00-original", "original", 0.90, 4.0, 10.0), figures("01-prune", "prune", 0.85, 4.0, 10.0),
          figures("02-finetune", "finetune", 0.89, 4.0, 10.0),
          figures("03-quantize", "quantize", 0.885, 1.0, 4.0, "int8"),
          figures("04-distill", "distill", 0.80, 2.0, 6.0)}) {
      list.push_back(artifactFiguresToJson(a));
    }
    writeJson(run + QStringLiteral("/compress.json"), {{"format", 1}, {"artifacts", list}});

    CompressionView view;
    view.resize(1200, 800);
    view.show();
    view.setRunDir(run);
    QCOMPARE(view.artifacts().size(), size_t{5});

    for (ParetoChart* chart : {view.sizeChart(), view.latencyChart()}) {
      QCOMPARE(chart->points().size(), size_t{5});
      QCOMPARE(chart->labels(), (QStringList{QStringLiteral("00-original"), QStringLiteral("01-prune"),
                                             QStringLiteral("02-finetune"), QStringLiteral("03-quantize"),
                                             QStringLiteral("04-distill")}));
      // Smaller/faster and more accurate: the int8 model, then the original; the rest are beaten.
      QCOMPARE(chart->frontNames(),
               (QStringList{QStringLiteral("03-quantize"), QStringLiteral("00-original")}));
    }
    ParetoChart* bySize = view.sizeChart();
    QCOMPARE(bySize->graph(0)->dataCount(), 2);  // the front line through its two points

    // Hovering a point shows its figures.
    bySize->replot();
    const QPointF at(bySize->xAxis->coordToPixel(1.0), bySize->yAxis->coordToPixel(88.5));
    const QString hover = bySize->hoverTextAt(at);
    QVERIFY2(hover.contains(QStringLiteral("03-quantize")) && hover.contains(QStringLiteral("88.50 %")) &&
                 hover.contains(QStringLiteral("1.00 MiB")) && hover.contains(QStringLiteral("4.00×")),
             qPrintable(hover));
    QVERIFY(bySize->hoverTextAt(QPointF(-100, -100)).isEmpty());

    QTableWidget* table = view.table();
    QCOMPARE(table->rowCount(), 5);
    QCOMPARE(table->item(0, kArtifactColumn)->text(), QStringLiteral("00-original"));  // the original first
    const QString q = QStringLiteral("03-quantize");
    QCOMPARE(cell(table, q, kPassColumn), QStringLiteral("quantize"));
    QCOMPARE(cell(table, q, kAccuracyColumn), QStringLiteral("88.50 %"));
    QCOMPARE(cell(table, q, kAccuracyChangeColumn), QStringLiteral("−1.50 pp"));
    QCOMPARE(cell(table, q, kSizeColumn), QStringLiteral("1.00 MiB"));
    QCOMPARE(cell(table, q, kSizeRatioColumn), QStringLiteral("4.00×"));
    QCOMPARE(cell(table, q, kLatency64Column), QStringLiteral("4.00 ms"));
    QCOMPARE(cell(table, q, kSpeedupColumn), QStringLiteral("2.50×"));
    QCOMPARE(cell(table, q, kDtypeColumn), QStringLiteral("int8"));
    QVERIFY(cell(table, q, kFloatLayersColumn).contains(QStringLiteral("layers.5")));
    QCOMPARE(cell(table, QStringLiteral("01-prune"), kNonzeroColumn), QStringLiteral("500.0 k (50 %)"));
    QCOMPARE(cell(table, QStringLiteral("00-original"), kAccuracyChangeColumn), QStringLiteral("—"));
    QCOMPARE(cell(table, QStringLiteral("02-finetune"), kAccuracyChangeColumn), QStringLiteral("−1.00 pp"));

    // A model reported live while a pipeline runs joins the view and can take over the front.
    view.applyFigures(figures("05-prune", "prune", 0.91, 0.5, 3.0));
    QCOMPARE(table->rowCount(), 6);
    QCOMPARE(bySize->frontNames(), QStringList{QStringLiteral("05-prune")});
    QCOMPARE(cell(table, QStringLiteral("05-prune"), kAccuracyChangeColumn), QStringLiteral("+1.00 pp"));
  }

  void theWindowShowsARunsCompressionView() {
    QTemporaryDir dir;
    const QString run = dir.filePath(QStringLiteral("run"));
    QDir().mkpath(run);
    const nlohmann::json list = {
        artifactFiguresToJson(figures("00-original", "original", 0.9, 4.0, 10.0)),
        artifactFiguresToJson(figures("01-quantize", "quantize", 0.89, 1.0, 5.0, "int8"))};
    writeJson(run + QStringLiteral("/compress.json"), {{"format", 1}, {"artifacts", list}});
    MainWindow window(MainWindow::Options{false});
    window.show();
    QVERIFY(window.compression()->menu());
    // No run selected: nothing to compress.
    for (QAction* action : window.compression()->menu()->actions()) {
      if (!action->isSeparator()) QVERIFY(!action->isEnabled());
    }
    window.showCompression(run);
    QCOMPARE(window.centralTabs()->currentWidget(), static_cast<QWidget*>(window.compressionView()));
    QCOMPARE(window.compressionView()->artifacts().size(), size_t{2});
    QCOMPARE(window.compressionView()->sizeChart()->frontNames(),
             (QStringList{QStringLiteral("01-quantize"), QStringLiteral("00-original")}));
  }

  void anEngineErrorBecomesADialogNotACrash() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    window.show();
    QStringList errors;
    window.setErrorPresenter([&errors](const QString& title, const QString& message, const QString& hint) {
      errors << title + QStringLiteral(": ") + message + QStringLiteral(" / ") + hint;
    });
    QSignalSpy ended(&window, &MainWindow::compressionEnded);
    CompressConfig config;
    config.passes.push_back(CompressPassConfig{});
    // A folder that is no finished run: the engine refuses it on its thread; the window says so.
    QVERIFY(window.compression()->start(dir.filePath(QStringLiteral("not-a-run")), config));
    QVERIFY(window.compression()->controller()->isActive());
    QVERIFY(
        !window.compression()->start(dir.filePath(QStringLiteral("not-a-run")), config));  // one at a time
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60000);
    QCOMPARE(ended.front().front().value<RunSummary>().status, RunStatus::Failed);
    QVERIFY2(errors.size() == 2,
             qPrintable(errors.join(QLatin1Char('\n'))));  // "in progress", then the engine's
    QVERIFY2(errors.back().contains(QStringLiteral("not-a-run")), qPrintable(errors.back()));
    QVERIFY(!window.compression()->controller()->isActive());
    QVERIFY(window.compressionView()->progressText().contains(QStringLiteral("failed")));
  }

  void aPrunePipelineFromTheDialogShowsItsModel() {
    if (!cliHasCompress()) {
      QWARN("workbench-cli compress is not there yet: the engine's pipeline may be unfinished");
    }
    QTemporaryDir dir;
    // A tiny finished run, trained headless by the engine as the CLI would.
    nlohmann::json doc = test::tinyExperimentJson(dir.path(), 1, 0, "to-compress");
    doc["data"] = {{"dataset", "fashion-mnist"},
                   {"path", WB_FASHION_MNIST_DIR},
                   {"limit", 2000},
                   {"val_fraction", 0.1},
                   {"augment", false}};
    doc["compress"] = {{"latency_runs", 3}};
    const ParseResult parsed = parseExperiment(doc);
    QVERIFY2(parsed.ok(), formatIssues(parsed.issues).c_str());
    const RunSummary trained = trainBlocking(parsed.experiment, [](EventBatch&&) {});
    QCOMPARE(trained.status, RunStatus::Completed);
    const QString folder = QString::fromStdString(trained.run_dir);

    MainWindow window(MainWindow::Options{false});
    window.show();
    QStringList errors;
    window.setErrorPresenter([&errors](const QString& title, const QString& message, const QString&) {
      errors << title + QStringLiteral(": ") + message;
    });
    window.editor()->setDocument(test::tinyExperimentJson(dir.path()));
    RunsBrowser* runs = window.runsBrowser();
    QTRY_COMPARE(runs->rowCount(), 1);
    runs->selectFolders({folder});
    QVERIFY(window.findChild<QAction*>(QStringLiteral("compressPrune"))->isEnabled());
    QCOMPARE(window.compressionView()->runDir(), folder);

    QSignalSpy ended(&window, &MainWindow::compressionEnded);
    QPointer<CompressDialog> dialog = window.compression()->openDialog(CompressDialog::Kind::Prune);
    QVERIFY(dialog);
    auto* epochs = qobject_cast<QSpinBox*>(dialog->passForm(0)->binding("epochs")->input());
    QVERIFY(epochs);
    epochs->setValue(0);  // prune only: no fine-tuning, for speed
    dialog->validateNow();
    QVERIFY(dialog->okButton()->isEnabled());
    keepShot(dialog, QStringLiteral("prune-dialog"));
    QTest::mouseClick(dialog->okButton(), Qt::LeftButton);
    QVERIFY(window.compression()->controller()->isActive());
    QVERIFY(
        !window.findChild<QAction*>(QStringLiteral("compressPrune"))->isEnabled());  // one pipeline at a time
    QCOMPARE(window.centralTabs()->currentWidget(), static_cast<QWidget*>(window.compressionView()));

    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kCompressTimeoutMs);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    QCOMPARE(ended.front().front().value<RunSummary>().status, RunStatus::Completed);
    CompressionView* view = window.compressionView();
    QTRY_VERIFY(view->artifacts().size() >= 2);
    QVERIFY(!view->artifacts().front().pass);
    QVERIFY(view->artifacts().back().pass == PassType::Prune);
    const QString artifact = QString::fromStdString(view->artifacts().back().name);
    QVERIFY(view->sizeChart()->labels().contains(artifact));
    QCOMPARE(view->table()->rowCount(), static_cast<int>(view->artifacts().size()));
    QVERIFY(view->artifacts().back().nonzero_parameters < view->artifacts().back().parameters);
    QTRY_VERIFY(runs->artifactNames(folder).contains(artifact));
    QVERIFY(window.findChild<QAction*>(QStringLiteral("compressPrune"))->isEnabled());
    window.showRunsPanel({folder});
    QTest::qWait(100);
    keepShot(&window, QStringLiteral("after-prune"));

    // A long fine-tuning shows its steps and stops on Cancel, with a checkpoint; the window stays usable.
    CompressConfig longer;
    CompressPassConfig finetune;
    finetune.type = PassType::Finetune;
    finetune.epochs = 1000;
    longer.passes.push_back(finetune);
    QVERIFY(window.compression()->start(folder, longer));
    QTRY_VERIFY_WITH_TIMEOUT(view->progressText().contains(QStringLiteral("step")), kCompressTimeoutMs);
    QVERIFY(view->progressValue() >= 0 && view->progressValue() < 1000);
    // The fine-tuning is plotted live on the Training charts, as a trace of its own.
    const QStringList traces = window.charts()->traceIds();
    QVERIFY2(std::any_of(traces.begin(), traces.end(),
                         [](const QString& id) {
                           return id.startsWith(QStringLiteral("compress:")) &&
                                  id.endsWith(QStringLiteral("-finetune"));
                         }),
             qPrintable(traces.join(QLatin1Char(','))));
    keepShot(&window, QStringLiteral("fine-tuning"));
    QVERIFY(view->cancelButton()->isVisible());
    QTest::mouseClick(view->cancelButton(), Qt::LeftButton);
    QCOMPARE(window.compression()->controller()->state(), CompressionController::State::Stopping);
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, kCompressTimeoutMs);
    QCOMPARE(ended.back().front().value<RunSummary>().status, RunStatus::Interrupted);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    QVERIFY(!view->cancelButton()->isVisible());
    QVERIFY(view->progressText().contains(QStringLiteral("stopped")));

    // The next, unrelated run is drawn on charts of its own: the fine-tuning curves go, and the axes fit
    // the new run's steps alone.
    QSignalSpy runEnded(&window, &MainWindow::runEnded);
    QVERIFY(window.runActions()->startExperiment(test::tinyExperiment(dir.path(), 1, 4, "next")));
    QVERIFY2(window.charts()->traceIds() == QStringList{kLiveTrace},
             qPrintable(window.charts()->traceIds().join(QLatin1Char(','))));
    QTRY_COMPARE_WITH_TIMEOUT(runEnded.count(), 1, kCompressTimeoutMs);
    window.charts()->replotAllNow();
    MetricChart* loss = window.charts()->chart(ChartId::Loss);
    for (const QString& name : loss->seriesNames())
      QVERIFY2(!name.contains(QStringLiteral("fine-tuning")), qPrintable(name));
    QVERIFY2(loss->xAxis->range().upper <= 8, qPrintable(QString::number(loss->xAxis->range().upper)));
  }
};

QTEST_MAIN(CompressTest)
#include "compress_test.moc"
