// The window's benchmark (not a test): prints
//   1. replot time of four charts holding 1,000,000 points per curve (goal: <= 16 ms each);
//   2. UI event-loop latency while a run trains with the window attached (goal: p99 <= 50 ms), measured as
//   the
//      lateness of a 10 ms QTimer;
//   3. training throughput with the window attached against the headless engine path the CLI uses, on the
//   same
//      experiment, alternating rounds (goal: >= 0.97x).
// usage: workbench-gui-bench [--points N] [--rounds R] [--skip-training] [--experiment FILE]
// Run it under QT_QPA_PLATFORM=offscreen on a machine without a display.

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QGridLayout>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "bench_stats.h"
#include "charts/charts_panel.h"
#include "charts/metric_chart.h"
#include "window/main_window.h"
#include "workbench/system_info.h"
#include "workbench/training_run.h"

using namespace wb;
using namespace wb::gui;

namespace {

using bench::percentile;

void replotBenchmark(int points) {
  QWidget host;
  auto* grid = new QGridLayout(&host);
  const char* titles[] = {"Loss", "Throughput", "Learning rate", "Memory"};
  std::vector<MetricChart*> charts;
  std::mt19937 rng(1);
  std::normal_distribution<double> noise(0, 0.05);
  QVector<double> keys(points), raw(points), smooth(points);
  for (int i = 0; i < points; ++i) {
    keys[i] = i;
    raw[i] = 2.3 * std::exp(-i / (points / 5.0)) + 0.2 + noise(rng);
  }
  double s = raw[0];
  for (int i = 0; i < points; ++i) smooth[i] = s = 0.99 * s + 0.01 * raw[i];
  for (int c = 0; c < 4; ++c) {
    auto* chart = new MetricChart(QString::fromLatin1(titles[c]), QStringLiteral("optimizer step"),
                                  QStringLiteral("value"), &host);
    SeriesStyle a;
    a.color = QColor(0x1f, 0x77, 0xb4);
    SeriesStyle b;
    b.color = QColor(0xff, 0x7f, 0x0e);
    // Appended in 1,000 chunks as a live run would, so the container's growth is part of the setup.
    const int s1 = chart->addSeries(QStringLiteral("raw"), a, QStringLiteral("run"));
    const int s2 = chart->addSeries(QStringLiteral("smoothed"), b, QStringLiteral("run"));
    const int chunk = std::max(1, points / 1000);
    for (int i = 0; i < points; i += chunk) {
      const int n = std::min(chunk, points - i);
      chart->appendPoints(s1, keys.mid(i, n), raw.mid(i, n));
      chart->appendPoints(s2, keys.mid(i, n), smooth.mid(i, n));
    }
    grid->addWidget(chart, c / 2, c % 2);
    charts.push_back(chart);
  }
  host.resize(1600, 1000);
  host.show();
  QApplication::processEvents();
  std::printf("Replot: 4 charts of %dx%d px, 2 curves x %d points each (%d points per chart)\n",
              charts[0]->width(), charts[0]->height(), points, 2 * points);
  std::printf("  %-14s %10s %10s %10s\n", "chart", "mean [ms]", "p90 [ms]", "max [ms]");
  double worst = 0;
  for (MetricChart* chart : charts) {
    chart->autoscale();
    chart->replot(QCustomPlot::rpImmediateRefresh);  // warm-up: first paint builds the buffers
    // Wall time of the whole replot() call, including rebuilding the per-pixel view (which QCustomPlot's own
    // replotTime() would leave out). Each round pans the view a little so the view is rebuilt every time.
    std::vector<double> times;
    for (int r = 0; r < 20; ++r) {
      chart->xAxis->moveRange(r % 2 == 0 ? 1.0 : -1.0);
      QElapsedTimer timer;
      timer.start();
      chart->replot(QCustomPlot::rpImmediateRefresh);
      times.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
    double mean = 0;
    for (double t : times) mean += t;
    mean /= static_cast<double>(times.size());
    const double mx = *std::max_element(times.begin(), times.end());
    worst = std::max(worst, mean);
    std::printf("  %-14s %10.2f %10.2f %10.2f\n", qPrintable(chart->title()), mean, percentile(times, 90),
                mx);
  }
  std::printf("  goal <= 16 ms per chart: %s (worst mean %.2f ms)\n\n", worst <= 16 ? "met" : "NOT met",
              worst);
}

Experiment benchExperiment(const QString& file) {
  if (!file.isEmpty()) {
    ParseResult parsed = loadExperimentFile(file.toStdString());
    if (!parsed.ok()) {
      std::fprintf(stderr, "%s\n", formatIssues(parsed.issues).c_str());
      std::exit(2);
    }
    return parsed.experiment;
  }
  Experiment e;
  e.name = "gui-bench-mlp";
  e.model.preset = "mlp";
  e.data.limit = 20000;
  e.data.augment_enabled = false;
  e.train.epochs = 2;
  e.train.batch_size = 128;
  e.train.checkpoint_every_minutes = 0;
  e.output.runs_dir = "/tmp/workbench-gui-bench-runs";
  return e;
}

struct WindowRound {
  double samplesPerSec = 0;
  std::vector<double> lateness;
};

WindowRound runWithWindow(const Experiment& experiment) {
  MainWindow window(MainWindow::Options{false});
  window.setErrorPresenter([](const QString& t, const QString& m, const QString&) {
    std::fprintf(stderr, "error: %s: %s\n", qPrintable(t), qPrintable(m));
  });
  window.resize(1600, 1000);
  window.show();
  WindowRound round;
  QEventLoop loop;
  QObject::connect(&window, &MainWindow::runEnded, &loop, [&](const RunSummary& s) {
    round.samplesPerSec = s.samples_per_sec;
    loop.quit();
  });
  bench::LatenessProbe probe;
  probe.start();
  window.runActions()->startExperiment(experiment);
  loop.exec();
  probe.stop();
  round.lateness = probe.lateness();
  return round;
}

double runHeadless(const Experiment& experiment) {
  // The CLI's engine path: a TrainingRun whose sink only queues the batches for another thread.
  return trainBlocking(experiment, [](EventBatch&&) {}).samples_per_sec;
}

void trainingBenchmark(const Experiment& experiment, int rounds) {
  std::printf(
      "Training: %s, model %s, batch %lld, %lld epoch(s), data.limit %lld; %d round(s) each, alternating\n",
      experiment.name.c_str(), experiment.model.preset.c_str(),
      static_cast<long long>(experiment.train.batch_size), static_cast<long long>(experiment.train.epochs),
      static_cast<long long>(experiment.data.limit), rounds);
  std::vector<double> headless, windowed, lateness;
  for (int r = 0; r < rounds; ++r) {
    headless.push_back(runHeadless(experiment));
    std::printf("  round %d: headless (CLI path) %9.0f samples/s\n", r + 1, headless.back());
    std::fflush(stdout);
    WindowRound w = runWithWindow(experiment);
    windowed.push_back(w.samplesPerSec);
    lateness.insert(lateness.end(), w.lateness.begin(), w.lateness.end());
    std::printf("  round %d: window attached    %9.0f samples/s   (UI latency p99 %.1f ms over %zu ticks)\n",
                r + 1, windowed.back(), percentile(w.lateness, 99), w.lateness.size());
    std::fflush(stdout);
  }
  const double bestHeadless = *std::max_element(headless.begin(), headless.end());
  const double bestWindow = *std::max_element(windowed.begin(), windowed.end());
  std::printf("\nUI event-loop latency while training (10 ms timer lateness, %zu ticks):\n", lateness.size());
  std::printf("  p50 %.2f ms   p99 %.2f ms   max %.2f ms   goal p99 <= 50 ms: %s\n", percentile(lateness, 50),
              percentile(lateness, 99), percentile(lateness, 100),
              percentile(lateness, 99) <= 50 ? "met" : "NOT met");
  std::printf(
      "\nThroughput, best of %d: headless %.0f, window %.0f samples/s: ratio %.3fx (goal >= 0.97x: %s)\n",
      rounds, bestHeadless, bestWindow, bestWindow / bestHeadless,
      bestWindow / bestHeadless >= 0.97 ? "met" : "NOT met");
  double mh = 0, mw = 0;
  for (double v : headless) mh += v;
  for (double v : windowed) mw += v;
  std::printf("Throughput, mean of %d: headless %.0f, window %.0f samples/s: ratio %.3fx\n", rounds,
              mh / rounds, mw / rounds, mw / mh);
}

}  // namespace

int main(int argc, char** argv) {
  ensurePassiveOpenMpWait(argv);
  QApplication app(argc, argv);
  int points = 1000000;
  int rounds = 2;
  bool training = true;
  QString experimentFile;
  const QStringList args = QApplication::arguments();
  for (int i = 1; i < args.size(); ++i) {
    if (args[i] == QLatin1String("--points") && i + 1 < args.size()) {
      points = args[++i].toInt();
    } else if (args[i] == QLatin1String("--rounds") && i + 1 < args.size()) {
      rounds = std::max(1, args[++i].toInt());
    } else if (args[i] == QLatin1String("--skip-training")) {
      training = false;
    } else if (args[i] == QLatin1String("--experiment") && i + 1 < args.size()) {
      experimentFile = args[++i];
    } else {
      std::fprintf(
          stderr,
          "usage: workbench-gui-bench [--points N] [--rounds R] [--skip-training] [--experiment FILE]\n");
      return 2;
    }
  }
  std::printf("%s\n\n", describe(querySystemInfo()).c_str());
  replotBenchmark(points);
  if (training) trainingBenchmark(benchExperiment(experimentFile), rounds);
  return 0;
}
