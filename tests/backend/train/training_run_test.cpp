#include "workbench/training_run.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "support/test_experiments.h"
#include "workbench/event_json.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

struct Recorded {
  std::mutex mutex;
  std::vector<Event> events;
  int batches = 0;
  void add(EventBatch&& batch) {
    std::lock_guard<std::mutex> lock(mutex);
    ++batches;
    for (auto& e : batch) events.push_back(std::move(e));
  }
  template <typename T>
  std::vector<T> all() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<T> out;
    for (const auto& e : events) {
      if (const auto* t = std::get_if<T>(&e)) out.push_back(*t);
    }
    return out;
  }
};

RunSummary runToEnd(const Experiment& e, Recorded& rec) {
  return trainBlocking(e, [&rec](EventBatch&& b) { rec.add(std::move(b)); });
}

nlohmann::json readJson(const std::string& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

TEST(TrainingRun, ShortRealRunLearnsAndWritesItsFolder) {
  const std::string runs = test::freshDir("run");
  Recorded rec;
  const RunSummary s = runToEnd(test::smallMlpExperiment(runs), rec);

  ASSERT_EQ(s.status, RunStatus::Completed)
      << (rec.all<RunError>().empty() ? "" : rec.all<RunError>()[0].message);
  EXPECT_GT(s.test_accuracy, 0.65);  // the MLP on 1800 Fashion-MNIST images for 2 epochs reaches ~0.75
  EXPECT_GT(s.samples_per_sec, 0);
  EXPECT_EQ(s.epochs, 2);
  EXPECT_EQ(s.steps, 2 * 29);  // 1800 training samples / 64 → 29 steps an epoch

  const auto steps = rec.all<StepMetrics>();
  ASSERT_FALSE(steps.empty());
  EXPECT_LT(steps.back().loss, steps.front().loss);
  EXPECT_GT(steps.back().cpu_rss_bytes, 0);
  const auto epochs = rec.all<EpochMetrics>();
  ASSERT_EQ(epochs.size(), 2u);
  EXPECT_GE(figureNamed(epochs[1].val_figures, "accuracy", -1), 0.0);
  EXPECT_EQ(rec.all<RunFinished>().size(), 1u);
  EXPECT_LT(rec.batches, static_cast<int>(rec.events.size()));  // batched, not one callback per event

  for (const char* f : {"experiment.json", "metrics.jsonl", "train.log", "model.pt", "summary.json"}) {
    EXPECT_TRUE(fs::exists(s.run_dir + "/" + f)) << f;
  }
  const auto summary = readJson(s.run_dir + "/summary.json");
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_DOUBLE_EQ(summary["test_accuracy"].get<double>(), s.test_accuracy);
  // metrics.jsonl holds every event the subscriber saw, one per line.
  std::ifstream lines(s.run_dir + "/metrics.jsonl");
  size_t count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    ASSERT_TRUE(eventFromJson(nlohmann::json::parse(line)).has_value()) << line;
  }
  EXPECT_EQ(count, rec.events.size());
  // The stored experiment is complete and reloads to the same experiment.
  const ParseResult again = loadExperimentFile(s.run_dir + "/experiment.json");
  ASSERT_TRUE(again.ok()) << formatIssues(again.issues);
  EXPECT_EQ(again.experiment.data.limit, 2000);

  // eval reproduces the test accuracy from the saved model.
  const EvalResult eval = evaluateRunDir(s.run_dir);
  EXPECT_NEAR(eval.accuracy, s.test_accuracy, 1e-9);
  fs::remove_all(runs);
}

TEST(TrainingRun, SameSeedGivesTheSameLossSequence) {
  const std::string runs = test::freshDir("determinism");
  Experiment e = test::smallMlpExperiment(runs);
  e.data.limit = 600;
  e.data.augment_enabled = true;  // augmentation draws from seeded generators too
  e.train.epochs = 1;
  e.train.log_every_steps = 1;
  Recorded a, b;
  runToEnd(e, a);
  runToEnd(e, b);
  const auto la = a.all<StepMetrics>(), lb = b.all<StepMetrics>();
  ASSERT_EQ(la.size(), lb.size());
  ASSERT_GT(la.size(), 5u);
  for (size_t i = 0; i < la.size(); ++i) EXPECT_EQ(la[i].loss, lb[i].loss) << "step " << i;
  e.seed = 7;
  Recorded c;
  runToEnd(e, c);
  EXPECT_NE(c.all<StepMetrics>()[0].loss, la[0].loss);
  fs::remove_all(runs);
}

TEST(TrainingRun, PauseResumeAndStop) {
  const std::string runs = test::freshDir("control");
  Experiment e = test::smallMlpExperiment(runs);
  e.train.epochs = 50;
  e.train.log_every_steps = 1;
  Recorded rec;
  TrainingRun run(e, [&rec](EventBatch&& b) { rec.add(std::move(b)); });
  run.start();
  auto stepsSoFar = [&] { return rec.all<StepMetrics>().size(); };
  while (stepsSoFar() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  run.pause();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the step in flight finishes
  const size_t paused_at = stepsSoFar();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(stepsSoFar(), paused_at);  // nothing trains while paused
  EXPECT_TRUE(run.isPaused());
  run.resume();
  while (stepsSoFar() < paused_at + 3) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  run.requestStop();
  run.wait();
  const RunSummary s = run.summary();
  EXPECT_EQ(s.status, RunStatus::Interrupted);
  // A stopped run is resumable: a checkpoint of exactly where it stopped, no test yet.
  EXPECT_LT(s.test_accuracy, 0.0);
  ASSERT_TRUE(fs::exists(s.run_dir + "/checkpoints"));
  EXPECT_FALSE(fs::is_empty(s.run_dir + "/checkpoints"));
  EXPECT_EQ(readJson(s.run_dir + "/summary.json")["status"], "interrupted");
  EXPECT_LT(s.steps, 50 * 29);
  fs::remove_all(runs);
}

TEST(TrainingRun, NonFiniteLossEndsTheRunWithAClearMessage) {
  const std::string runs = test::freshDir("nan");
  Experiment e = test::smallMlpExperiment(runs);
  e.optimizer.name = OptimizerName::Sgd;
  e.optimizer.lr = 1e12;
  e.optimizer.weight_decay = 0;
  e.train.epochs = 1;
  e.train.log_every_steps = 2;
  Recorded rec;
  const RunSummary s = runToEnd(e, rec);
  EXPECT_EQ(s.status, RunStatus::Failed);
  const auto errors = rec.all<RunError>();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].kind, ErrorKind::NonFinite);
  EXPECT_NE(errors[0].message.find("training loss became"), std::string::npos) << errors[0].message;
  EXPECT_NE(errors[0].hint.find("optimizer.lr"), std::string::npos);
  // The folder is consistent: a summary that says failed and why, every event up to the error kept.
  const auto summary = readJson(s.run_dir + "/summary.json");
  EXPECT_EQ(summary["status"], "failed");
  EXPECT_EQ(summary["error"]["kind"], "non_finite");
  EXPECT_TRUE(fs::exists(s.run_dir + "/metrics.jsonl"));
  fs::remove_all(runs);
}

TEST(TrainingRun, AnUnwritableRunsDirFailsBeforeTraining) {
  const std::string base = test::freshDir("readonly");
  const std::string blocker = base + "/a-file";
  std::ofstream(blocker) << "x";
  Experiment e = test::smallMlpExperiment(blocker + "/runs");  // a folder under a file cannot exist
  const auto issues = checkExperiment(e);
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues.back().path, "output.runs_dir");
  Recorded rec;
  const RunSummary s = runToEnd(e, rec);
  EXPECT_EQ(s.status, RunStatus::Failed);
  ASSERT_EQ(rec.all<RunError>().size(), 1u);
  EXPECT_EQ(rec.all<RunError>()[0].kind, ErrorKind::BadInput);
  EXPECT_TRUE(rec.all<StepMetrics>().empty());
  fs::remove_all(base);
}

TEST(TrainingRun, CheckExperimentCatchesWhatTheSchemaCannot) {
  Experiment e = test::smallMlpExperiment(test::freshDir("checks"));
  e.train.devices = {"cuda:3"};
  e.model.preset = "";
  e.model.layers = nlohmann::json::parse(R"([{"type":"flatten"},{"type":"linear","out_features":7}])");
  const auto issues = checkExperiment(e);
  auto has = [&](const std::string& path) {
    for (const auto& i : issues) {
      if (i.path.rfind(path, 0) == 0) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("train.devices[0]")) << formatIssues(issues);
  EXPECT_TRUE(has("model.layers")) << formatIssues(issues);  // 7 outputs, 10 classes
}

}  // namespace
}  // namespace wb
