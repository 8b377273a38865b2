// Export ▸ … in the window: the items follow the runs browser's selection and the build; a real (tiny) run
// and one of its compressed models are exported to TorchScript, ONNX and safetensors through the code the
// menu uses, off the UI thread, ending in the result dialog; a bad path or a missing artifact ends in the
// error dialog; the metrics and every chart are written out.

#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "charts/charts_panel.h"
#include "editor/experiment_editor.h"
#include "export_dialogs/export_menu.h"
#include "export_dialogs/export_result_dialog.h"
#include "gui_test_support.h"
#include "run/past_runs_on_charts.h"
#include "runs_browser/runs_browser.h"
#include "window/main_window.h"
#include "workbench/compression.h"
#include "workbench/training_run.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kExportTimeoutMs = 120000;
using Item = ExportMenu::Item;

QMessageBox* errorDialog(QWidget* window) {
  for (QMessageBox* box : window->findChildren<QMessageBox*>(QStringLiteral("errorDialog"))) {
    if (box->isVisible()) return box;
  }
  return nullptr;
}

QByteArray readAll(const QString& file) {
  QFile f(file);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class ExportTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_dir;
  QString m_run;       // a finished run (Fashion-MNIST, 2000 samples, the MLP, 1 epoch)
  QString m_artifact;  // its pruned model, "compressed/01-prune"

  // A window that lists the runs of m_dir, with the run (or nothing) selected.
  void showRuns(MainWindow& window) {
    window.show();
    window.editor()->setDocument(test::tinyExperimentJson(m_dir.path()));
    QTRY_COMPARE(window.runsBrowser()->rowCount(), 1);
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    nlohmann::json doc = test::tinyExperimentJson(m_dir.path(), 1, 0, "export-me");
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
    m_run = QString::fromStdString(trained.run_dir);

    CompressConfig config;
    config.latency_runs = 3;
    CompressPassConfig prune;
    prune.type = PassType::Prune;
    prune.epochs = 0;
    config.passes.push_back(prune);
    const CompressionReport report =
        compressBlocking(CompressRequest{m_run.toStdString(), config}, [](EventBatch&&) {});
    QCOMPARE(report.status, RunStatus::Completed);
    m_artifact = QStringLiteral("compressed/01-prune");
    QVERIFY(QFileInfo::exists(QDir(m_run).filePath(m_artifact)));
  }

  void itemsFollowTheSelectionAndTheBuild() {
    MainWindow window(MainWindow::Options{false});
    showRuns(window);
    ExportMenu* exporter = window.exporter();
    QVERIFY(window.menuBar()->actions().contains(exporter->menu()->menuAction()));
    QStringList texts;
    for (QAction* a : exporter->menu()->actions()) texts << a->text().remove(QLatin1Char('&'));
    for (const char* format : {"PNG", "SVG", "PDF"}) {
      QVERIFY2(texts.join(QLatin1Char('|')).contains(QLatin1String(format)),
               qPrintable(texts.join(QLatin1Char('|'))));
    }
    const QList<Item> models = {Item::TorchScript, Item::Onnx, Item::Safetensors};

    // Nothing selected: nothing to export, and the tooltip says what to select.
    window.runsBrowser()->selectFolders({});
    for (Item item : models) {
      QVERIFY(!exporter->action(item)->isEnabled());
      QVERIFY2(exporter->action(item)->toolTip().contains(QStringLiteral("Select")),
               qPrintable(exporter->action(item)->toolTip()));
    }
    QVERIFY(!exporter->action(Item::MetricsCsv)->isEnabled());
    QVERIFY(!exporter->action(Item::ChartsPng)->isEnabled());  // the charts are empty
    QVERIFY(!exporter->action(Item::ChartsSvg)->isEnabled());
    QVERIFY(!exporter->action(Item::ChartsPdf)->isEnabled());
    QVERIFY(!exporter->selectedTarget());

    // The run: its model, in each format this build writes (the others say why not).
    window.runsBrowser()->selectFolders({m_run});
    for (Item item : models) {
      const QString unavailable = QString::fromStdString(exportUnavailable(static_cast<ExportFormat>(item)));
      QCOMPARE(exporter->action(item)->isEnabled(), unavailable.isEmpty());
      if (!unavailable.isEmpty()) QCOMPARE(exporter->action(item)->toolTip(), unavailable);
    }
    QVERIFY(exporter->action(Item::TorchScript)->isEnabled());
    QVERIFY(exporter->action(Item::Safetensors)->isEnabled());
    QVERIFY(exporter->action(Item::MetricsCsv)->isEnabled());
    std::optional<ExportMenu::Target> target = exporter->selectedTarget();
    QVERIFY(target);
    QCOMPARE(target->runDir, m_run);
    QVERIFY(target->artifact.isEmpty());
    QCOMPARE(ExportMenu::defaultFileName(*target, ExportFormat::Onnx), QStringLiteral("export-me.onnx"));

    // A compressed model (a child row): that artifact.
    QVERIFY(window.runsBrowser()->selectArtifact(m_run, m_artifact));
    QVERIFY(exporter->action(Item::TorchScript)->isEnabled());
    QVERIFY(exporter->action(Item::MetricsCsv)->isEnabled());  // the run's
    target = exporter->selectedTarget();
    QVERIFY(target);
    QCOMPARE(target->artifact, m_artifact);
    QCOMPARE(ExportMenu::defaultFileName(*target, ExportFormat::Onnx),
             QStringLiteral("export-me-01-prune.onnx"));
    QCOMPARE(ExportMenu::defaultFileName(*target, ExportFormat::Safetensors),
             QStringLiteral("export-me-01-prune.safetensors"));
    QCOMPARE(ExportMenu::defaultFileName(*target, ExportFormat::TorchScript),
             QStringLiteral("export-me-01-prune.pt"));

    // The run and its compressed model both selected: which one is meant is unclear.
    window.runsBrowser()->addToSelection(m_run);
    QCOMPARE(window.runsBrowser()->selectedRowCount(), 2);
    QVERIFY(!exporter->action(Item::TorchScript)->isEnabled());

    // Charts with a run on them can be saved.
    window.pastRuns()->open({m_run}, true);
    QTRY_VERIFY(window.pastRuns()->pendingLoads() == 0 && window.charts()->traceCount() == 1);
    exporter->update();
    QVERIFY(exporter->action(Item::ChartsPng)->isEnabled());
    QVERIFY(exporter->action(Item::ChartsSvg)->isEnabled());
    QVERIFY(exporter->action(Item::ChartsPdf)->isEnabled());
  }

  void exportsTheRunAndAnArtifactToEachFormat() {
    MainWindow window(MainWindow::Options{false});
    showRuns(window);
    ExportMenu* exporter = window.exporter();
    QTemporaryDir out;
    QSignalSpy exported(exporter, &ExportMenu::modelExported);

    struct Case {
      ExportFormat format;
      bool artifact;
    };
    const Case cases[] = {{ExportFormat::TorchScript, false}, {ExportFormat::Onnx, false},
                          {ExportFormat::Safetensors, false}, {ExportFormat::TorchScript, true},
                          {ExportFormat::Onnx, true},         {ExportFormat::Safetensors, true}};
    for (const Case& c : cases) {
      if (!exportUnavailable(c.format).empty()) {
        qWarning("skipping %s: %s", toString(c.format), exportUnavailable(c.format).c_str());
        continue;
      }
      if (c.artifact) {
        QVERIFY(window.runsBrowser()->selectArtifact(m_run, m_artifact));
      } else {
        window.runsBrowser()->selectFolders({m_run});
      }
      const std::optional<ExportMenu::Target> target = exporter->selectedTarget();
      QVERIFY(target);
      const QString file = out.filePath(ExportMenu::defaultFileName(*target, c.format));
      const int before = exported.count();
      QVERIFY(exporter->exportModelTo(*target, c.format, file));
      // It runs on a pool thread: the call has returned, the UI thread is free, the items wait for it.
      QVERIFY(exporter->isExporting());
      QVERIFY(!exporter->action(Item::TorchScript)->isEnabled());
      QTRY_COMPARE_WITH_TIMEOUT(exported.count(), before + 1, kExportTimeoutMs);
      const auto outcome = exported.back().front().value<ExportOutcome>();
      QVERIFY2(outcome.ok, qPrintable(outcome.error + QStringLiteral(" / ") + outcome.hint));
      QVERIFY(!errorDialog(&window));
      QVERIFY(!exporter->isExporting());
      QVERIFY(exporter->action(Item::TorchScript)->isEnabled());

      ExportResultDialog* dialog = exporter->resultDialog();
      QVERIFY(dialog);
      QTRY_VERIFY(dialog->isVisible());
      QCOMPARE(QFileInfo(dialog->file()).canonicalFilePath(), QFileInfo(file).canonicalFilePath());
      QVERIFY(QFileInfo(file).size() > 0);
      QCOMPARE(QFileInfo(file).size(), outcome.result.bytes);
      const QString name = QFileInfo(file).fileName();
      QVERIFY2(dialog->pythonSnippet()->toPlainText().contains(name),
               qPrintable(dialog->pythonSnippet()->toPlainText()));
      QVERIFY2(dialog->cppSnippet()->toPlainText().contains(name),
               qPrintable(dialog->cppSnippet()->toPlainText()));
      QVERIFY(dialog->pythonSnippet()->isReadOnly());
      QVERIFY(dialog->summaryLabel()->text().contains(
          QLocale().toString(static_cast<qlonglong>(outcome.result.bytes))));
      QVERIFY(dialog->windowTitle().contains(formatLabel(c.format)));
      QTest::mouseClick(dialog->copyPythonButton(), Qt::LeftButton);
      QCOMPARE(QGuiApplication::clipboard()->text(), dialog->pythonSnippet()->toPlainText());
      dialog->close();
      QTRY_VERIFY(!exporter->resultDialog());  // deleted on close
    }
  }

  void aBadPathOrAMissingArtifactEndsInTheErrorDialog() {
    MainWindow window(MainWindow::Options{false});
    showRuns(window);
    ExportMenu* exporter = window.exporter();
    QSignalSpy exported(exporter, &ExportMenu::modelExported);

    // Under a plain file: no folder can be made there (not even by root).
    QTemporaryDir out;
    const QString notAFolder = out.filePath(QStringLiteral("a-file"));
    QVERIFY(QFile(notAFolder).open(QIODevice::WriteOnly));
    const QString badFile = notAFolder + QStringLiteral("/sub/model.pt");
    QVERIFY(exporter->exportModelTo(ExportMenu::Target{m_run, QString(), QStringLiteral("export-me")},
                                    ExportFormat::TorchScript, badFile));
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, kExportTimeoutMs);
    QVERIFY(!exported.back().front().value<ExportOutcome>().ok);
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = errorDialog(&window)) != nullptr);
    QVERIFY(box->text().size() > 0);
    QVERIFY(box->informativeText().startsWith(QStringLiteral("What to do")));
    QVERIFY(!exporter->resultDialog());
    QVERIFY(!QFileInfo::exists(badFile));
    box->close();
    QTRY_VERIFY(!errorDialog(&window));

    const QString file = out.filePath(QStringLiteral("missing.safetensors"));
    QVERIFY(
        exporter->exportModelTo(ExportMenu::Target{m_run, QStringLiteral("compressed/99-nothing"), QString()},
                                ExportFormat::Safetensors, file));
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 2, kExportTimeoutMs);
    QTRY_VERIFY((box = errorDialog(&window)) != nullptr);
    QVERIFY2(box->text().contains(QStringLiteral("99-nothing")), qPrintable(box->text()));
    QVERIFY2(!box->informativeText().isEmpty(), "no hint");
    QVERIFY(!QFileInfo::exists(file));  // nothing written
    box->close();

    // The window is still usable: a good export works afterwards.
    window.runsBrowser()->selectFolders({m_run});
    QVERIFY(exporter->action(Item::Safetensors)->isEnabled());
    QVERIFY(exporter->exportModelTo(*exporter->selectedTarget(), ExportFormat::Safetensors, file));
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 3, kExportTimeoutMs);
    QVERIFY(exported.back().front().value<ExportOutcome>().ok);
    QVERIFY(QFileInfo(file).size() > 0);
  }

  void metricsAndAllChartsAreWrittenOut() {
    MainWindow window(MainWindow::Options{false});
    showRuns(window);
    ExportMenu* exporter = window.exporter();
    QStringList errors;
    window.setErrorPresenter([&errors](const QString& title, const QString& message, const QString&) {
      errors << title + QStringLiteral(": ") + message;
    });
    QTemporaryDir out;

    const QString csv = out.filePath(QStringLiteral("metrics.csv"));
    QVERIFY(exporter->exportMetricsTo(m_run, csv));
    const QByteArray copied = readAll(csv);
    QVERIFY(copied.size() > 0);
    QCOMPARE(copied, readAll(QDir(m_run).filePath(QStringLiteral("metrics.csv"))));
    QTemporaryDir notARun;
    QVERIFY(!exporter->exportMetricsTo(notARun.path(), out.filePath(QStringLiteral("none.csv"))));
    QCOMPARE(errors.size(), 1);
    errors.clear();

    window.pastRuns()->open({m_run}, true);
    QTRY_VERIFY(window.pastRuns()->pendingLoads() == 0 && window.charts()->traceCount() == 1);
    for (const QString& suffix : {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
      const QString folder = out.filePath(QStringLiteral("charts-") + suffix);
      const QStringList files = exporter->exportChartsTo(folder, suffix);
      QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
      QCOMPARE(files.size(), window.charts()->charts().size());
      QCOMPARE(QDir(folder).entryList(QDir::Files).size(), files.size());
      for (const QString& file : files) {
        QVERIFY2(QFileInfo(file).size() > 0, qPrintable(file));
        QCOMPARE(QFileInfo(file).suffix(), suffix);
      }
      QVERIFY(files.contains(QDir(folder).filePath(QStringLiteral("loss.") + suffix)));
      if (suffix == QLatin1String("png")) {
        const QImage image(QDir(folder).filePath(QStringLiteral("loss.png")));
        QVERIFY(!image.isNull() && image.width() >= 480);
      }
      if (suffix == QLatin1String("svg")) {  // vector drawing: the chart's text is in the file as text
        QFile svg(QDir(folder).filePath(QStringLiteral("loss.svg")));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray content = svg.readAll();
        QVERIFY(content.contains("<svg"));
        QVERIFY(content.contains("<path") || content.contains("<polyline"));
      }
    }
  }
};

QTEST_MAIN(ExportTest)
#include "export_test.moc"
