// The README's learning-rate finder screenshot (not a test): runs Tools ▸ Find Learning Rate's dialog on the
// Fashion-MNIST MLP of docs/screenshots/fashion-mnist-mlp.json (20,000 images) and saves the dialog once the
// range test has ended.
// usage: QT_QPA_PLATFORM=offscreen build/gui/workbench-lr-finder-shot docs/screenshots/lr-finder.png

#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <cstdio>
#include <fstream>

#include "finder_dialogs/lr_finder_dialog.h"
#include "workbench/experiment.h"

using namespace wb;
using namespace wb::gui;

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: workbench-lr-finder-shot OUT.png\n");
    return 2;
  }
  QTemporaryDir runs;
  std::ifstream in(std::string(WB_SOURCE_DIR) + "/docs/screenshots/fashion-mnist-mlp.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["data"]["limit"] = 20000;
  doc["output"]["runs_dir"] = runs.path().toStdString();
  const ParseResult parsed = parseExperiment(doc);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s\n", formatIssues(parsed.issues).c_str());
    return 1;
  }
  LrFinderDialog dialog(parsed.experiment, [](double) { return true; });
  dialog.resize(760, 660);
  dialog.show();
  dialog.start();
  QElapsedTimer timer;
  timer.start();
  while (dialog.isRunning() && timer.elapsed() < 300000)
    QApplication::processEvents(QEventLoop::AllEvents, 50);
  if (dialog.isRunning() || !dialog.result().has_value()) {
    std::fprintf(stderr, "the range test did not finish with a result\n");
    return 1;
  }
  if (!dialog.grab().save(QString::fromLocal8Bit(argv[1]))) {
    std::fprintf(stderr, "could not write %s\n", argv[1]);
    return 1;
  }
  std::printf("%s\n", argv[1]);
  return 0;
}
