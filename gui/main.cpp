// The workbench window. See app/command_line.cpp for the arguments, window/command_line_start.h for what they
// open and start.

#include <QApplication>
#include <cstdio>
#include <optional>

#include "app/action_icons.h"
#include "app/command_line.h"
#include "window/command_line_start.h"
#include "window/main_window.h"
#include "workbench/system_info.h"

namespace {

// --help and --version answer before the QApplication exists: they need no display.
std::optional<int> answerWithoutDisplay(int argc, char** argv) {
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
  return std::nullopt;
}

void nameTheApplication() {
  QApplication::setOrganizationName(QStringLiteral("TorchWorkbench"));
  QApplication::setApplicationName(QStringLiteral("workbench"));
  QApplication::setApplicationDisplayName(QStringLiteral("Torch Workbench"));
  QApplication::setApplicationVersion(QStringLiteral(WB_VERSION));
  // The desktop entry's id (packaging/): on Wayland the compositor matches the window to its entry and icon
  // by it.
  QGuiApplication::setDesktopFileName(QStringLiteral("io.github.torchworkbench.Workbench"));
  QApplication::setWindowIcon(wb::gui::applicationIcon());
}

}  // namespace

int main(int argc, char** argv) {
  // First thing: LibTorch's OpenMP reads its wait policy when it loads; spinning workers make training
  // several times slower beside OpenBLAS. This re-executes the program with OMP_WAIT_POLICY=PASSIVE when
  // unset.
  wb::ensurePassiveOpenMpWait(argv);
  if (const std::optional<int> answered = answerWithoutDisplay(argc, argv)) return *answered;

  QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
  QApplication app(argc, argv);
  nameTheApplication();

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
  if (!wb::gui::openFromCommandLine(window, cl) && screenshot) return 2;
  wb::gui::startFromCommandLine(window, cl, &app);
  return QApplication::exec();
}
