// The workbench window. See app/command_line.cpp for the arguments.

#include <cstdio>

#include <QApplication>
#include <QDir>
#include <QTimer>

#include "app/command_line.h"
#include "app/screenshot_driver.h"
#include "export/export_menu.h"
#include "window/main_window.h"
#include "workbench/system_info.h"

int main(int argc, char** argv) {
  // First thing: LibTorch's OpenMP reads its wait policy when it loads; spinning workers make training several
  // times slower beside OpenBLAS. This re-executes the program with OMP_WAIT_POLICY=PASSIVE when unset.
  wb::ensurePassiveOpenMpWait(argv);

  QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("TorchWorkbench"));
  QApplication::setApplicationName(QStringLiteral("workbench"));
  QApplication::setApplicationDisplayName(QStringLiteral("Torch Workbench"));
  QApplication::setApplicationVersion(QStringLiteral(WB_VERSION));

  const wb::gui::CommandLine cl = wb::gui::parseCommandLine(QApplication::arguments());
  if (!cl.error.isEmpty()) {
    std::fprintf(stderr, "error: %s\n\n%s", qPrintable(cl.error), qPrintable(wb::gui::usageText()));
    return 2;
  }
  if (cl.help) {
    std::printf("%s", qPrintable(wb::gui::usageText()));
    return 0;
  }
  if (cl.version) {
    std::printf("workbench %s\n", WB_VERSION);
    return 0;
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
  if (!cl.experimentFile.isEmpty() && !window.openFile(cl.experimentFile)) {
    if (screenshot) return 2;
  }
  if (!cl.openRuns.isEmpty()) {
    window.openRuns(cl.openRuns, /*replace=*/false);
    window.showRunsPanel(cl.openRuns);
  }
  if (!cl.compressionRun.isEmpty()) window.showCompression(cl.compressionRun);
  wb::gui::CompressDialog* dialog = nullptr;
  auto openDialog = [&] {
    if (cl.compressDialog.isEmpty()) return;
    using Kind = wb::gui::CompressDialog::Kind;
    const Kind kind = cl.compressDialog == QLatin1String("prune")      ? Kind::Prune
                      : cl.compressDialog == QLatin1String("quantize") ? Kind::Quantize
                      : cl.compressDialog == QLatin1String("distill")  ? Kind::Distill
                                                                       : Kind::Pipeline;
    dialog = window.openCompressDialog(kind, QDir(cl.compressionRun).absolutePath());
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
    window.exporter()->exportModelTo(target, format,
                                     QDir(folder).filePath(wb::gui::ExportMenu::defaultFileName(target, format)));
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
    } else if (cl.openRuns.isEmpty() && cl.compressionRun.isEmpty()) {
      QTimer::singleShot(0, driver, &wb::gui::ScreenshotDriver::start);
    } else {
      QTimer::singleShot(0, driver, &wb::gui::ScreenshotDriver::startWithoutTraining);
    }
  } else {
    window.show();
    openDialog();
    QTimer::singleShot(0, &window, startExport);
  }
  return QApplication::exec();
}
