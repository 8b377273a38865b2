#pragma once
// Run folders as the engine leaves them, made without training: experiment.json (the resolved experiment),
// metrics.jsonl (a step line every `every` steps, an epoch line per epoch), summary.json (unless the run was
// interrupted), run.json, all registered in the runs folder's index. For the runs list's tests and its
// benchmark (hundreds of runs in seconds). Header-only; plain C++ on the engine's public API.

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "workbench/event_json.h"
#include "workbench/experiment.h"
#include "workbench/run_index.h"
#include "workbench/run_info.h"

namespace wb::test {

struct SyntheticRunSpec {
  int index = 0;  // picks model, optimizer, learning rate, batch, AMP, devices, status, tags from fixed lists
  int steps = 300;
  int epochs = 3;
  int every = 2;  // a step line every this many steps (train.log_every_steps)
};

// Writes and indexes one run; returns its folder.
inline std::string writeSyntheticRun(const std::string& runs_dir, const SyntheticRunSpec& spec) {
  namespace fs = std::filesystem;
  static const char* kModels[] = {"cnn", "mlp", "resnet", "vit"};
  static const OptimizerName kOptimizers[] = {OptimizerName::AdamW, OptimizerName::Sgd, OptimizerName::Adam};
  static const double kLrs[] = {1e-3, 3e-4, 1e-2, 3e-3, 0.05};
  static const int kBatches[] = {128, 64, 256};
  const int i = spec.index;
  Experiment e;
  e.model.preset = kModels[i % 4];
  e.optimizer.name = kOptimizers[(i / 4) % 3];
  e.optimizer.lr = kLrs[(i / 3) % 5];
  e.train.batch_size = kBatches[(i / 5) % 3];
  e.train.amp = i % 7 == 0 ? Precision::Bf16 : Precision::Off;
  e.train.devices = i % 11 == 0 ? std::vector<std::string>{"cpu", "cpu"} : std::vector<std::string>{"cpu"};
  e.train.epochs = spec.epochs;
  e.train.log_every_steps = spec.every;
  e.seed = static_cast<uint64_t>(i);
  e.output.runs_dir = runs_dir;
  if (i % 9 == 4) e.name = "sweep-" + std::to_string(i);  // some named by hand, the rest after model and data

  char stamp[40];
  std::snprintf(stamp, sizeof(stamp), "2026%02d%02d-%02d%02d%02d", 1 + (i / 600) % 12, 1 + (i / 24) % 28,
                i % 24, (i * 7) % 60, (i * 13) % 60);
  const fs::path folder = fs::path(runs_dir) / (std::string(stamp) + "-" + experimentRunName(e));
  fs::create_directories(folder);
  std::ofstream(folder / "experiment.json") << experimentToJson(e).dump(2) << "\n";

  // A loss that falls like a real run's, a little different per run; interrupted runs stop two thirds in.
  const bool interrupted = i % 13 == 5;
  const bool failed = i % 29 == 17;
  const int last = interrupted || failed ? spec.steps * 2 / 3 : spec.steps;
  const int per_epoch = std::max(1, spec.steps / spec.epochs);
  const double speed = 0.004 + 0.002 * (i % 5);
  std::ofstream metrics(folder / "metrics.jsonl");
  double best_loss = -1, best_acc = -1;
  for (int step = spec.every; step <= last; step += spec.every) {
    StepMetrics m;
    m.step = step;
    m.epoch = 1 + (step - 1) / per_epoch;
    m.epoch_fraction = static_cast<double>((step - 1) % per_epoch + 1) / per_epoch;
    m.total_steps = spec.steps;
    m.loss = 0.3 + 2.0 * std::exp(-speed * step) + 0.05 * std::sin(step * 0.7 + i);
    m.lr = e.optimizer.lr * 0.5 * (1 + std::cos(M_PI * step / spec.steps));
    m.samples_per_sec = 2000 + 40 * (i % 10) + 30 * std::sin(step * 0.1);
    m.cpu_rss_bytes = (400 + i % 50) * 1024ll * 1024;
    m.elapsed_s = step * 0.05;
    metrics << eventToJson(Event(m)).dump() << "\n";
    if (step % per_epoch == 0) {
      EpochMetrics ep;
      ep.epoch = step / per_epoch;
      ep.step = step;
      ep.train_loss = m.loss;
      const double train_accuracy = 0.9 - 0.6 * std::exp(-speed * step);
      const double val_accuracy = train_accuracy - 0.02 - 0.001 * (i % 17);
      ep.train_figures = {{"accuracy", train_accuracy}};
      ep.val_loss = m.loss + 0.04;
      ep.val_figures = {{"accuracy", val_accuracy}};
      ep.lr = m.lr;
      ep.epoch_s = per_epoch * 0.05;
      ep.samples_per_sec = m.samples_per_sec;
      metrics << eventToJson(Event(ep)).dump() << "\n";
      if (best_loss < 0 || ep.val_loss < best_loss) best_loss = ep.val_loss;
      if (val_accuracy > best_acc) best_acc = val_accuracy;
    }
  }
  metrics.close();
  if (!interrupted) {
    RunSummary s;
    s.status = failed ? RunStatus::Failed : RunStatus::Completed;
    s.run_dir = folder.string();
    s.steps = last;
    s.epochs = last / per_epoch;
    s.best_val_loss = best_loss;
    s.best_val_accuracy = best_acc;
    s.test_accuracy = failed ? -1 : best_acc - 0.004;
    s.test_loss = failed ? -1 : best_loss + 0.01;
    s.samples_per_sec = 2000 + 40 * (i % 10);
    s.wall_s = last * 0.05 + i % 60;
    std::ofstream(folder / "summary.json") << summaryToJson(s).dump(2) << "\n";
  }
  RunRecord record = addRunFolder(runs_dir, folder.string());
  if (i % 6 == 1) {
    updateRunInfo(runs_dir, folder.string(),
                  RunInfo{record.name, {i % 12 == 1 ? "baseline" : "lr-sweep"}, ""});
  }
  return folder.string();
}

}  // namespace wb::test
