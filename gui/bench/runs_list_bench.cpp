// The runs list's benchmark (not a test): makes N synthetic run folders (experiment.json, metrics.jsonl of a
// few hundred steps, summary.json, run.json; indexed as the engine indexes runs) and prints
//   1. time to list them: the worker's read of the index (plus model sizes and compress.json), and the whole
//      refresh until the rows are shown, with the UI thread's longest stall meanwhile (lateness of a 5 ms
//      timer);
//   2. time to filter (search words, a tag, a status) and to sort (by number, by text);
//   3. time to overlay 20 runs on the window's charts (read off the UI thread, then plotted and replotted).
// With --shots DIR it also trains two real runs (an MLP on 2,000 Fashion-MNIST images) beside the synthetic
// ones and saves docs screenshots: the window with the runs list (runs-list.png) and a compare view
// (runs-compare.png). usage: workbench-runs-bench [--runs N] [--steps S] [--shots DIR] [--keep DIR] Run it
// under QT_QPA_PLATFORM=offscreen on a machine without a display.

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "charts/charts_panel.h"
#include "editor/experiment_editor.h"
#include "run/past_runs_on_charts.h"
#include "runs_browser/run_compare_view.h"
#include "runs_browser/runs_browser.h"
#include "runs_browser/runs_browser_actions.h"
#include "runs_browser/runs_filter_proxy.h"
#include "runs_browser/runs_filters.h"
#include "runs_browser/runs_table_model.h"
#include "synthetic_runs.h"
#include "window/main_window.h"
#include "workbench/training_run.h"

using namespace wb;
using namespace wb::gui;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Runs the event loop until `done` or the timeout; returns false on timeout.
template <typename Done>
bool waitFor(Done done, int timeoutMs = 120000) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > timeoutMs) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  }
  return true;
}

// The UI thread's longest stall while `work` runs in the event loop: how late a 5 ms timer fires.
struct StallProbe {
  QTimer timer;
  QElapsedTimer clock;
  double worst = 0;
  qint64 last = 0;
  StallProbe() {
    timer.setInterval(5);
    QObject::connect(&timer, &QTimer::timeout, &timer, [this] {
      const qint64 now = clock.nsecsElapsed();
      worst = std::max(worst, (now - last) / 1e6 - 5.0);
      last = now;
    });
  }
  void start() {
    clock.start();
    last = 0;
    worst = 0;
    timer.start();
  }
  void stop() { timer.stop(); }
};

template <typename F>
double timeMs(F f) {
  QElapsedTimer t;
  t.start();
  f();
  return t.nsecsElapsed() / 1e6;
}

nlohmann::json realExperiment(const QString& runsDir, int seed, double lr) {
  return {{"seed", seed},
          {"data", {{"dataset", "fashion-mnist"}, {"limit", 2000}, {"val_fraction", 0.1}}},
          {"model", {{"preset", "mlp"}}},
          {"optimizer", {{"name", "adamw"}, {"lr", lr}}},
          {"train",
           {{"epochs", 2},
            {"batch_size", 64},
            {"threads", 1},
            {"log_every_steps", 5},
            {"checkpoint_every_minutes", 0.0}}},
          {"output", {{"runs_dir", runsDir.toStdString()}}}};
}

bool saveShot(QWidget* widget, const QString& file) {
  QCoreApplication::processEvents();
  const bool ok = widget->grab().save(file);
  std::printf("  screenshot %s: %s\n", qPrintable(file), ok ? "written" : "FAILED");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  int runs = 500;
  int steps = 300;
  QString shots;
  QString keep;
  const QStringList args = QCoreApplication::arguments();
  for (int i = 1; i < args.size(); ++i) {
    if (args[i] == QLatin1String("--runs") && i + 1 < args.size()) {
      runs = args[++i].toInt();
    } else if (args[i] == QLatin1String("--steps") && i + 1 < args.size()) {
      steps = args[++i].toInt();
    } else if (args[i] == QLatin1String("--shots") && i + 1 < args.size()) {
      shots = args[++i];
    } else if (args[i] == QLatin1String("--keep") && i + 1 < args.size()) {
      keep = args[++i];
    } else {
      std::fprintf(stderr, "usage: workbench-runs-bench [--runs N] [--steps S] [--shots DIR] [--keep DIR]\n");
      return 2;
    }
  }
  if (runs < 60) {
    std::fprintf(stderr, "--runs must be at least 60 (three rounds overlay 20 each)\n");
    return 2;
  }
  QTemporaryDir temp;
  const QString dir = keep.isEmpty() ? temp.filePath(QStringLiteral("runs")) : keep;
  QDir().mkpath(dir);

  std::printf("Making %d synthetic run folders of %d steps in %s…\n", runs, steps, qPrintable(dir));
  QStringList folders;
  const double makeMs = timeMs([&] {
    for (int i = 0; i < runs; ++i) {
      folders << QString::fromStdString(
          test::writeSyntheticRun(dir.toStdString(), test::SyntheticRunSpec{i, steps, 3, 2}));
    }
  });
  std::printf("  made in %.1f s (not part of the figures)\n\n", makeMs / 1000);

  // 1. Listing.
  std::vector<double> worker;
  for (int round = 0; round < 5; ++round) {
    worker.push_back(timeMs([&] { (void)loadRunRows(dir); }));
  }
  std::vector<double> refresh, stalls;
  for (int round = 0; round < 5; ++round) {
    RunsBrowser browser;
    browser.resize(1500, 600);
    browser.show();
    StallProbe probe;
    probe.start();
    refresh.push_back(timeMs([&] {
      browser.setRunsDir(dir);
      waitFor([&] { return !browser.isLoading() && browser.rowCount() == runs; });
    }));
    QCoreApplication::processEvents();
    probe.stop();
    stalls.push_back(probe.worst);
  }
  std::printf(
      "list %d runs: index read (worker thread) median %.1f ms; refresh until shown median %.1f ms; "
      "longest UI stall median %.1f ms\n",
      runs, median(worker), median(refresh), median(stalls));

  // 2. Filtering and sorting (on the UI thread: what a keystroke or a header click costs).
  {
    RunsBrowser browser;
    browser.resize(1500, 600);
    browser.show();
    browser.setRunsDir(dir);
    waitFor([&] { return !browser.isLoading() && browser.rowCount() == runs; });
    struct Filter {
      const char* what;
      QString text;
      QString status;
    };
    const Filter filters[] = {{"search \"resnet\"", QStringLiteral("resnet"), {}},
                              {"search \"resnet sgd 0.01\"", QStringLiteral("resnet sgd 0.01"), {}},
                              {"tag:baseline", QStringLiteral("tag:baseline"), {}},
                              {"status interrupted", {}, QStringLiteral("interrupted")},
                              {"clear", {}, {}}};
    for (const Filter& f : filters) {
      std::vector<double> times;
      int shown = 0;
      for (int round = 0; round < 5; ++round) {
        browser.filters()->searchBox()->clear();
        browser.filters()->statusFilter()->setCurrentIndex(0);
        QCoreApplication::processEvents();
        times.push_back(timeMs([&] {
          if (!f.status.isEmpty())
            browser.filters()->statusFilter()->setCurrentIndex(
                browser.filters()->statusFilter()->findData(f.status));
          if (!f.text.isEmpty()) browser.filters()->searchBox()->setText(f.text);
          QCoreApplication::processEvents();
        }));
        shown = browser.visibleRowCount();
      }
      std::printf("filter %-26s median %6.2f ms (%d of %d shown)\n", f.what, median(times), shown, runs);
    }
    browser.filters()->searchBox()->clear();
    browser.filters()->statusFilter()->setCurrentIndex(0);
    const std::pair<const char*, int> sorts[] = {{"learning rate", RunsTableModel::kLr},
                                                 {"best val accuracy", RunsTableModel::kValAcc},
                                                 {"name", RunsTableModel::kName},
                                                 {"started", RunsTableModel::kStarted}};
    for (const auto& [what, column] : sorts) {
      std::vector<double> times;
      for (int round = 0; round < 6; ++round) {
        times.push_back(timeMs([&] {
          browser.view()->sortByColumn(column, round % 2 ? Qt::DescendingOrder : Qt::AscendingOrder);
          QCoreApplication::processEvents();
        }));
      }
      std::printf("sort by %-18s median %6.2f ms\n", what, median(times));
    }
  }

  // 3. Overlaying 20 runs on the window's charts.
  {
    std::vector<double> overlay, replot;
    for (int round = 0; round < 3; ++round) {
      MainWindow window(MainWindow::Options{false});
      window.resize(1560, 980);
      window.show();
      window.editor()->setDocument(realExperiment(dir, 1, 1e-3));
      const QStringList twenty = folders.mid(round * 20, 20);
      overlay.push_back(timeMs([&] {
        window.pastRuns()->open(twenty, /*replace=*/true);
        waitFor([&] { return window.pastRuns()->pendingLoads() == 0; });
        window.charts()->replotAllNow();
      }));
      replot.push_back(timeMs([&] { window.charts()->replotAllNow(); }));
      if (window.charts()->traceCount() != 20) {
        std::fprintf(stderr, "overlay: %d traces on the charts, expected 20\n",
                     window.charts()->traceCount());
        return 1;
      }
    }
    std::printf(
        "overlay 20 runs (%d steps each): read + plot + replot median %.0f ms; a replot of the six charts "
        "with them %.0f ms\n",
        steps, median(overlay), median(replot));
  }

  if (shots.isEmpty()) return 0;

  // Screenshots: two real runs beside the synthetic ones, the list sorted by start (newest first).
  std::printf("\nTraining two real runs for the screenshots…\n");
  QStringList real;
  for (int k = 0; k < 2; ++k) {
    const ParseResult parsed = parseExperiment(realExperiment(dir, 10 + k, k == 0 ? 1e-3 : 3e-3));
    if (!parsed.ok()) {
      std::fprintf(stderr, "%s\n", formatIssues(parsed.issues).c_str());
      return 1;
    }
    const RunSummary s = trainBlocking(parsed.experiment, [](EventBatch&&) {});
    if (s.status != RunStatus::Completed) {
      std::fprintf(stderr, "a real run did not finish\n");
      return 1;
    }
    real << QDir(QString::fromStdString(s.run_dir)).absolutePath();
  }
  updateRunInfo(dir.toStdString(), real[0].toStdString(),
                RunInfo{"mlp baseline", {"baseline", "real"}, "lr 1e-3"});
  updateRunInfo(dir.toStdString(), real[1].toStdString(), RunInfo{"mlp lr 3e-3", {"lr-sweep", "real"}, ""});

  QDir().mkpath(shots);
  MainWindow window(MainWindow::Options{false});
  window.resize(1560, 1000);
  window.show();
  window.editor()->setDocument(realExperiment(dir, 1, 1e-3));
  RunsBrowser* browser = window.runsBrowser();
  if (QDockWidget* dock = window.findChild<QDockWidget*>(QStringLiteral("runsDock"))) {
    dock->show();
    dock->raise();
    window.resizeDocks({dock}, {430}, Qt::Vertical);
  }
  waitFor([&] { return !browser->isLoading() && browser->rowCount() == runs + 2; });
  browser->view()->sortByColumn(RunsTableModel::kStarted, Qt::DescendingOrder);
  browser->selectFolders(QStringList{real[0], real[1], folders[1], folders[13]});
  browser->actions()->overlaySelected();
  waitFor([&] { return window.pastRuns()->pendingLoads() == 0; });
  window.charts()->replotAllNow();
  bool ok = saveShot(&window, QDir(shots).filePath(QStringLiteral("runs-list.png")));

  browser->selectFolders(QStringList{real[0], real[1], folders[1]});
  browser->actions()->compareSelected();
  RunCompareView* compare = browser->actions()->compareView();
  compare->setOnlyDifferences(true);
  QWidget* compareWindow = compare->window();
  compareWindow->resize(980, 640);
  ok = saveShot(compareWindow, QDir(shots).filePath(QStringLiteral("runs-compare.png"))) && ok;
  return ok ? 0 : 1;
}
