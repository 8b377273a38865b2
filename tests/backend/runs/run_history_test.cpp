#include "workbench/run_history.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/temporary_folder.h"
#include "workbench/errors.h"
#include "workbench/event_json.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

TEST(RunHistory, ReadsMetricsSkippingDamagedLinesAndSummary) {
  const test::TemporaryFolder folder("run-history");
  const fs::path dir = folder.path();
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
    epoch.val_figures = {{"accuracy", 0.7}};
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
  EXPECT_DOUBLE_EQ(figureNamed(history.epochs[0].val_figures, "accuracy", -1), 0.7);
  ASSERT_EQ(history.logs.size(), 1u);
  EXPECT_FALSE(history.summary);

  RunSummary summary;
  summary.status = RunStatus::Interrupted;
  summary.steps = 20;
  std::ofstream(dir / "summary.json") << summaryToJson(summary).dump();
  history = loadRunHistory(dir.string());
  ASSERT_TRUE(history.summary);
  EXPECT_EQ(history.summary->status, RunStatus::Interrupted);
}

// Following a run another process writes: each read takes the whole lines past the offset (a line still being
// written waits), says when the summary exists, and notices a log cut back by a resume.
TEST(RunHistory, TailReadsWholeNewLinesAndNoticesAnEndAndARewind) {
  const test::TemporaryFolder folder("run-tail");
  const fs::path dir = folder.path();
  Experiment experiment;
  std::ofstream(dir / "experiment.json") << experimentToJson(experiment).dump(2);
  const auto stepLine = [](int64_t n) {
    StepMetrics step;
    step.step = n;
    step.loss = 2.0 / static_cast<double>(n);
    return eventToJson(step).dump();
  };
  { std::ofstream(dir / "metrics.jsonl") << stepLine(1) << "\n" << stepLine(2) << "\n"; }
  const RunHistory start = loadRunHistory(dir.string());
  ASSERT_EQ(start.steps.size(), 2u);
  EXPECT_EQ(start.metrics_bytes, fs::file_size(dir / "metrics.jsonl"));

  const std::string third = stepLine(3);
  {
    std::ofstream more(dir / "metrics.jsonl", std::ios::app);
    more << third.substr(0, 10);  // half a line: being written
  }
  RunHistoryTail tail = readRunHistoryTail(dir.string(), start.metrics_bytes);
  EXPECT_TRUE(tail.steps.empty());
  EXPECT_EQ(tail.metrics_bytes, start.metrics_bytes) << "a partial line is left for the next read";
  EXPECT_FALSE(tail.ended);
  {
    std::ofstream more(dir / "metrics.jsonl", std::ios::app);
    more << third.substr(10) << "\n" << stepLine(4) << "\n";
  }
  tail = readRunHistoryTail(dir.string(), tail.metrics_bytes);
  ASSERT_EQ(tail.steps.size(), 2u);
  EXPECT_EQ(tail.steps[0].step, 3);
  EXPECT_EQ(tail.steps[1].step, 4);
  EXPECT_EQ(tail.metrics_bytes, fs::file_size(dir / "metrics.jsonl"));

  RunSummary summary;
  summary.status = RunStatus::Completed;
  std::ofstream(dir / "summary.json") << summaryToJson(summary).dump();
  tail = readRunHistoryTail(dir.string(), tail.metrics_bytes);
  EXPECT_TRUE(tail.ended);
  EXPECT_TRUE(tail.steps.empty());

  // Resumed from the checkpoint at step 1: the log is cut back below what was read.
  { std::ofstream(dir / "metrics.jsonl") << stepLine(1) << "\n"; }
  tail = readRunHistoryTail(dir.string(), tail.metrics_bytes);
  EXPECT_TRUE(tail.rewound);
  EXPECT_TRUE(tail.steps.empty());
}

}  // namespace
}  // namespace wb
