#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "workbench/errors.h"
#include "workbench/event_json.h"
#include "workbench/run_history.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

TEST(RunHistory, ReadsMetricsSkippingDamagedLinesAndSummary) {
  const fs::path dir = fs::temp_directory_path() / ("wb-run-history-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  Experiment experiment;
  experiment.name = "history";
  std::ofstream(dir / "experiment.json") << experimentToJson(experiment).dump(2);
  {
    std::ofstream metrics(dir / "metrics.jsonl");
    StepMetrics step;
    step.step = 20;
    step.loss = 1.5;
    metrics << eventToJson(step).dump() << "\n";
    metrics << "{\"event\": \"from-a-newer-version\"}\n";
    EpochMetrics epoch;
    epoch.epoch = 1;
    epoch.val_accuracy = 0.7;
    epoch.val_loss = 0.9;
    metrics << eventToJson(epoch).dump() << "\n";
    metrics << eventToJson(LogLine{LogLevel::Info, "hello"}).dump() << "\n";
    metrics << "{\"event\": \"step\", \"step\": 4";  // cut off by a crash
  }
  EXPECT_THROW(loadRunHistory((dir / "nothing").string()), UserError);

  RunHistory history = loadRunHistory(dir.string());
  EXPECT_EQ(history.experiment.name, "history");
  ASSERT_EQ(history.steps.size(), 1u);
  EXPECT_EQ(history.steps[0].step, 20);
  EXPECT_DOUBLE_EQ(history.steps[0].loss, 1.5);
  ASSERT_EQ(history.epochs.size(), 1u);
  EXPECT_DOUBLE_EQ(history.epochs[0].val_accuracy, 0.7);
  ASSERT_EQ(history.logs.size(), 1u);
  EXPECT_FALSE(history.summary);

  RunSummary summary;
  summary.status = RunStatus::Interrupted;
  summary.steps = 20;
  std::ofstream(dir / "summary.json") << summaryToJson(summary).dump();
  history = loadRunHistory(dir.string());
  ASSERT_TRUE(history.summary);
  EXPECT_EQ(history.summary->status, RunStatus::Interrupted);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace wb
