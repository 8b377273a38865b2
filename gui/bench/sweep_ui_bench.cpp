// The window while a sweep of many short trials runs to its end (not a test): prints the UI thread's stalls —
// the lateness of a 10 ms timer, p50 / p99 / max — with the Sweeps tab, the runs list and the Queue dock
// shown and reloading as the trials' processes write the index, and how long the sweep took. The trials run
// in the worker the window starts (workbench-cli queue run), as a user's would. usage:
// workbench-sweep-ui-bench [--trials N] [--runs-dir DIR]   (under QT_QPA_PLATFORM=offscreen without a
// display)

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTabWidget>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench_stats.h"
#include "editor/experiment_editor.h"
#include "queue_view/queue_actions.h"
#include "queue_view/queue_panel.h"
#include "runs_browser/runs_browser.h"
#include "sweep_view/sweep_view.h"
#include "window/main_window.h"

using namespace wb;
using namespace wb::gui;

namespace {

using bench::percentile;

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  int trials = 100;
  std::string runs = "/tmp/workbench-sweep-ui-bench";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--trials" && i + 1 < argc)
      trials = std::atoi(argv[++i]);
    else if (a == "--runs-dir" && i + 1 < argc)
      runs = argv[++i];
  }
  std::filesystem::remove_all(runs);
  std::filesystem::create_directories(runs);
  const nlohmann::json experiment = {
      {"name", "ui-bench"},
      {"seed", 7},
      {"data",
       {{"dataset", "synthetic"},
        {"val_fraction", 0.1},
        {"augment", false},
        {"synthetic", {{"samples", 512}, {"classes", 4}, {"shape", {1, 8, 8}}}}}},
      {"model", {{"preset", "mlp"}}},
      {"optimizer", {{"name", "adamw"}, {"lr", 0.003}}},
      {"train", {{"epochs", 2}, {"batch_size", 32}, {"threads", 1}}},
      {"output", {{"runs_dir", runs}}}};
  const std::string sweepFile = runs + "/sweep.json";
  std::ofstream(sweepFile) << nlohmann::json{{"name", "ui-bench"},
                                             {"trials", trials},
                                             {"seed", 1},
                                             {"keys",
                                              {{"optimizer.lr",
                                                {{"min", 1e-4}, {"max", 0.1}, {"scale", "log"}}},
                                               {"optimizer.name", {"adam", "adamw", "sgd"}}}}}
                                  .dump();

  MainWindow window(MainWindow::Options{false});
  window.setErrorPresenter([](const QString& t, const QString& m, const QString&) {
    std::fprintf(stderr, "error: %s: %s\n", qPrintable(t), qPrintable(m));
  });
  window.resize(1600, 1000);
  window.show();
  window.editor()->setDocument(experiment);

  QEventLoop loop;
  QString finished;
  QObject::connect(&window, &MainWindow::queueFinished, &loop, [&](const QString& summary) {
    finished = summary;
    loop.quit();
  });
  bench::LatenessProbe probe;
  QTimer::singleShot(200, &loop,
                     [&] { window.queueActions()->queueSweep(QString::fromStdString(sweepFile)); });
  probe.start();
  loop.exec();
  probe.stop();
  const std::vector<double>& lateness = probe.lateness();
  const double seconds = probe.seconds();
  std::printf(
      "Sweep of %d trials (MLP, synthetic 512 samples, 2 epochs each) through the window's worker: %.1f s, "
      "%.2f s a trial; %s\n",
      trials, seconds, seconds / trials, qPrintable(finished));
  std::printf(
      "While it ran, the window reloaded the runs list, queue and sweep view as the index changed "
      "(sweep view loads %d, queue loads %d, %d runs listed at the end)\n",
      window.sweepView()->loads(), window.queuePanel()->loads(), window.runsBrowser()->rowCount());
  std::printf(
      "UI thread stalls (10 ms timer lateness, %zu ticks): p50 %.2f ms  p99 %.2f ms  max %.2f ms  "
      "goal p99 <= 50 ms: %s\n",
      lateness.size(), percentile(lateness, 50), percentile(lateness, 99), percentile(lateness, 100),
      percentile(lateness, 99) <= 50 ? "met" : "NOT met");
  return finished.isEmpty() ? 1 : 0;
}
