#include "window/command_line_start.h"

#include <QApplication>
#include <QDir>
#include <QTabWidget>
#include <QTimer>
#include <memory>

#include "app/command_line.h"
#include "app/screenshot_driver.h"
#include "compression_view/compression_actions.h"
#include "evaluate/evaluation_view.h"
#include "export_dialogs/export_menu.h"
#include "model_view/model_summary_view.h"
#include "run/past_runs_on_charts.h"
#include "sweep_view/sweep_view.h"
#include "window/experiment_document.h"
#include "window/main_window.h"

namespace wb::gui {
namespace {

CompressDialog* openCompressDialog(MainWindow& window, const CommandLine& cl) {
  if (cl.compressDialog.isEmpty()) return nullptr;
  using Kind = CompressDialog::Kind;
  const Kind kind = cl.compressDialog == QLatin1String("prune")      ? Kind::Prune
                    : cl.compressDialog == QLatin1String("quantize") ? Kind::Quantize
                    : cl.compressDialog == QLatin1String("distill")  ? Kind::Distill
                                                                     : Kind::Pipeline;
  return window.compression()->openDialog(kind, QDir(cl.compressionRun).absolutePath());
}

// --export: the run's model into a temporary folder, then the result dialog (or the error dialog).
void startExport(MainWindow& window, const CommandLine& cl) {
  if (cl.exportFormat.isEmpty()) return;
  ExportFormat format = ExportFormat::TorchScript;
  exportFormatFromString(cl.exportFormat.toStdString(), format);
  const QString runDir = !cl.compressionRun.isEmpty() ? cl.compressionRun : cl.openRuns.front();
  const auto target = ExportMenu::targetOf(runDir, cl.exportArtifact);
  const QString folder = QDir::temp().filePath(QStringLiteral("workbench-export"));
  QDir().mkpath(folder);
  window.exporter()->exportModelTo(target, format,
                                   QDir(folder).filePath(ExportMenu::defaultFileName(target, format)));
}

void startEvaluation(MainWindow& window, const CommandLine& cl) {
  if (!cl.evaluateRun.isEmpty()) window.evaluateRun(QDir(cl.evaluateRun).absolutePath());
}

// The picture of a result waits for it; a failed export or evaluation has printed its error and ends the
// program with 1.
void shootWhenExported(MainWindow& window, const CommandLine& cl, ScreenshotDriver* driver) {
  QObject::connect(window.exporter(), &ExportMenu::modelExported, driver,
                   [&window, driver](const ExportOutcome& outcome) {
                     if (!outcome.ok) {
                       QApplication::exit(1);
                       return;
                     }
                     driver->setTarget(window.exporter()->resultDialog());
                     driver->startWithoutTraining();
                   });
  QTimer::singleShot(0, &window, [&window, cl] { startExport(window, cl); });
}

void shootWhenEvaluated(MainWindow& window, const CommandLine& cl, ScreenshotDriver* driver) {
  QObject::connect(window.evaluationView(), &EvaluationView::evaluationFinished, driver, [driver](bool ok) {
    if (!ok) {
      QApplication::exit(1);
      return;
    }
    driver->startWithoutTraining();
  });
  QTimer::singleShot(0, &window, [&window, cl] { startEvaluation(window, cl); });
}

// The model's table and the Weights section's load report, whichever comes last.
void shootWhenModelShown(MainWindow& window, ScreenshotDriver* driver) {
  ModelSummaryView* view = window.modelView();
  auto started = std::make_shared<bool>(false);
  const auto startWhenSettled = [view, driver, started] {
    if (*started || view->isComputing()) return;
    *started = true;
    driver->startWithoutTraining();
  };
  QObject::connect(view, &ModelSummaryView::summaryShown, driver, startWhenSettled);
  QObject::connect(view, &ModelSummaryView::weightsShown, driver, startWhenSettled);
}

// The sweep's results, read once the runs folder is known.
void shootWhenSweepLoaded(MainWindow& window, const QString& sweep, ScreenshotDriver* driver) {
  auto started = std::make_shared<bool>(false);
  QObject::connect(window.sweepView(), &SweepView::loaded, driver, [&window, driver, started, sweep] {
    if (*started || window.sweepView()->currentSweep() != sweep || !window.sweepView()->results()) return;
    *started = true;
    driver->startWithoutTraining();
  });
}

void startScreenshot(MainWindow& window, const CommandLine& cl, QObject* owner) {
  window.resize(1600, 1000);
  window.show();
  CompressDialog* dialog = openCompressDialog(window, cl);
  auto* driver = new ScreenshotDriver(&window, cl.screenshotFile, cl.afterSteps, owner);
  if (dialog) driver->setTarget(dialog);
  if (!cl.exportFormat.isEmpty()) {
    shootWhenExported(window, cl, driver);
  } else if (!cl.evaluateRun.isEmpty()) {
    shootWhenEvaluated(window, cl, driver);
  } else if (cl.showModel) {
    shootWhenModelShown(window, driver);
  } else if (!cl.sweep.isEmpty()) {
    shootWhenSweepLoaded(window, cl.sweep, driver);
  } else if (cl.openRuns.isEmpty() && cl.compressionRun.isEmpty()) {
    QTimer::singleShot(0, driver,
                       &ScreenshotDriver::start);  // a short run of the experiment, then the picture
  } else {
    QTimer::singleShot(0, driver, &ScreenshotDriver::startWithoutTraining);
  }
}

}  // namespace

bool openFromCommandLine(MainWindow& window, const CommandLine& cl) {
  const bool opened = cl.experimentFile.isEmpty() || window.document()->openFile(cl.experimentFile);
  // A picture of another experiment than the one asked for is not taken: nothing more is opened or read.
  if (!opened && !cl.screenshotFile.isEmpty()) return false;
  if (!cl.openRuns.isEmpty()) {
    window.pastRuns()->open(cl.openRuns, /*replace=*/false);
    window.showRunsPanel(cl.openRuns);
  }
  if (!cl.compressionRun.isEmpty()) window.showCompression(cl.compressionRun);
  if (cl.showModel) window.centralTabs()->setCurrentWidget(window.modelView());
  if (!cl.sweep.isEmpty()) {
    window.sweepView()->showSweep(cl.sweep);
    window.centralTabs()->setCurrentWidget(window.sweepView());
  }
  return opened;
}

void startFromCommandLine(MainWindow& window, const CommandLine& cl, QObject* owner) {
  if (!cl.screenshotFile.isEmpty()) {
    startScreenshot(window, cl, owner);
    return;
  }
  window.show();
  openCompressDialog(window, cl);
  QTimer::singleShot(0, &window, [&window, cl] { startExport(window, cl); });
  QTimer::singleShot(0, &window, [&window, cl] { startEvaluation(window, cl); });
}

}  // namespace wb::gui
