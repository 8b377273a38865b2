// The workbench window. See app/command_line.cpp for the arguments.

#include <QApplication>
#include <QDir>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>
#include <memory>

#include "app/action_icons.h"
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
#include "workbench/system_info.h"

int main(int argc, char** argv) {
  // First thing: LibTorch's OpenMP reads its wait policy when it loads; spinning workers make training
  // several times slower beside OpenBLAS. This re-executes the program with OMP_WAIT_POLICY=PASSIVE when
  // unset.
  wb::ensurePassiveOpenMpWait(argv);

  // --help and --version answer before the QApplication exists: they need no display.
  {
    QStringList arguments;
    for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
    const wb::gui::CommandLine early = wb::gui::parseCommandLine(arguments);
    if (early.error.isEmpty() && early.help) {
      std::printf("%s", qPrintable(wb::gui::usageText()));
      return 0;
    }
    if (early.error.isEmpty() && early.version) {
      std::printf("%sQt %s (built with %s)\n", wb::describeVersions(wb::queryVersions(), "workbench").c_str(),
                  qVersion(), QT_VERSION_STR);
      return 0;
    }
  }

  QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("TorchWorkbench"));
  QApplication::setApplicationName(QStringLiteral("workbench"));
  QApplication::setApplicationDisplayName(QStringLiteral("Torch Workbench"));
  QApplication::setApplicationVersion(QStringLiteral(WB_VERSION));
  // The desktop entry's id (packaging/): on Wayland the compositor matches the window to its entry and icon
  // by it.
  QGuiApplication::setDesktopFileName(QStringLiteral("io.github.torchworkbench.Workbench"));
  QApplication::setWindowIcon(wb::gui::applicationIcon());

  const wb::gui::CommandLine cl = wb::gui::parseCommandLine(QApplication::arguments());
  if (!cl.error.isEmpty()) {
    std::fprintf(stderr, "error: %s\n\n%s", qPrintable(cl.error), qPrintable(wb::gui::usageText()));
    return 2;
  }

  const bool screenshot = !cl.screenshotFile.isEmpty();
  wb::gui::MainWindow::Options options;
  // Screenshots show the default layout at a fixed size, whatever this user's saved layout is.
  options.useSettings = !screenshot;
  wb::gui::MainWindow window(options);
  if (screenshot) {
    window.setErrorPresenter([](const QString& title, const QString& message, const QString& hint) {
      std::fprintf(stderr, "error: %s: %s\n  what to do: %s\n", qPrintable(title), qPrintable(message),
                   qPrintable(hint));
    });
  }
  if (!cl.experimentFile.isEmpty() && !window.document()->openFile(cl.experimentFile)) {
    if (screenshot) return 2;
  }
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
  auto startEvaluation = [&] {
    if (!cl.evaluateRun.isEmpty()) window.evaluateRun(QDir(cl.evaluateRun).absolutePath());
  };
  wb::gui::CompressDialog* dialog = nullptr;
  auto openDialog = [&] {
    if (cl.compressDialog.isEmpty()) return;
    using Kind = wb::gui::CompressDialog::Kind;
    const Kind kind = cl.compressDialog == QLatin1String("prune")      ? Kind::Prune
                      : cl.compressDialog == QLatin1String("quantize") ? Kind::Quantize
                      : cl.compressDialog == QLatin1String("distill")  ? Kind::Distill
                                                                       : Kind::Pipeline;
    dialog = window.compression()->openDialog(kind, QDir(cl.compressionRun).absolutePath());
  };
  // --export: the run's model into a temporary folder, then the result dialog (or the error dialog).
  auto startExport = [&] {
    if (cl.exportFormat.isEmpty()) return;
    wb::ExportFormat format = wb::ExportFormat::TorchScript;
    wb::exportFormatFromString(cl.exportFormat.toStdString(), format);
    const QString runDir = !cl.compressionRun.isEmpty() ? cl.compressionRun : cl.openRuns.front();
    const auto target = wb::gui::ExportMenu::targetOf(runDir, cl.exportArtifact);
    const QString folder = QDir::temp().filePath(QStringLiteral("workbench-export"));
    QDir().mkpath(folder);
    window.exporter()->exportModelTo(
        target, format, QDir(folder).filePath(wb::gui::ExportMenu::defaultFileName(target, format)));
  };
  if (screenshot) {
    window.resize(1600, 1000);
    window.show();
    openDialog();
    auto* driver = new wb::gui::ScreenshotDriver(&window, cl.screenshotFile, cl.afterSteps, &app);
    if (dialog) driver->setTarget(dialog);
    if (!cl.exportFormat.isEmpty()) {
      // The picture waits for the export's result dialog; a failed export has printed its error.
      QObject::connect(window.exporter(), &wb::gui::ExportMenu::modelExported, driver,
                       [&window, driver](const wb::gui::ExportOutcome& outcome) {
                         if (!outcome.ok) {
                           QApplication::exit(1);
                           return;
                         }
                         driver->setTarget(window.exporter()->resultDialog());
                         driver->startWithoutTraining();
                       });
      QTimer::singleShot(0, &window, startExport);
    } else if (!cl.evaluateRun.isEmpty()) {
      // The picture waits for the evaluation; a failed one has printed its error.
      QObject::connect(window.evaluationView(), &wb::gui::EvaluationView::evaluationFinished, driver,
                       [driver](bool ok) {
                         if (!ok) {
                           QApplication::exit(1);
                           return;
                         }
                         driver->startWithoutTraining();
                       });
      QTimer::singleShot(0, &window, startEvaluation);
    } else if (cl.showModel) {
      // The picture waits for the table and for the Weights section's load report, whichever comes last.
      wb::gui::ModelSummaryView* view = window.modelView();
      auto started = std::make_shared<bool>(false);
      const auto startWhenSettled = [view, driver, started] {
        if (*started || view->isComputing()) return;
        *started = true;
        driver->startWithoutTraining();
      };
      QObject::connect(view, &wb::gui::ModelSummaryView::summaryShown, driver, startWhenSettled);
      QObject::connect(view, &wb::gui::ModelSummaryView::weightsShown, driver, startWhenSettled);
    } else if (!cl.sweep.isEmpty()) {
      // The picture waits for the sweep's results (read once the runs folder is known).
      auto started = std::make_shared<bool>(false);
      QObject::connect(
          window.sweepView(), &wb::gui::SweepView::loaded, driver,
          [&window, driver, started, name = cl.sweep] {
            if (*started || window.sweepView()->currentSweep() != name || !window.sweepView()->results())
              return;
            *started = true;
            driver->startWithoutTraining();
          });
    } else if (cl.openRuns.isEmpty() && cl.compressionRun.isEmpty()) {
      QTimer::singleShot(0, driver, &wb::gui::ScreenshotDriver::start);
    } else {
      QTimer::singleShot(0, driver, &wb::gui::ScreenshotDriver::startWithoutTraining);
    }
  } else {
    window.show();
    openDialog();
    QTimer::singleShot(0, &window, startExport);
    QTimer::singleShot(0, &window, startEvaluation);
  }
  return QApplication::exec();
}
