#include "workbench/event_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace wb {
namespace {

TEST(EventJson, StepMetricsRoundTrip) {
  StepMetrics m;
  m.step = 120;
  m.epoch = 2;
  m.loss = 0.25;
  m.lr = 1e-3;
  m.samples_per_sec = 900;
  m.grad_norm = 1.5;
  const auto back = eventFromJson(eventToJson(m));
  ASSERT_TRUE(back.has_value());
  const auto* s = std::get_if<StepMetrics>(&*back);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->step, 120);
  EXPECT_EQ(s->epoch, 2);
  EXPECT_DOUBLE_EQ(s->loss, 0.25);
  EXPECT_DOUBLE_EQ(s->grad_norm, 1.5);
  EXPECT_EQ(s->cuda_allocated_bytes, -1);  // CPU run: no CUDA memory keys written or read
}

// An epoch's figures are the task's, by name: classification's file keys are "train_accuracy" and
// "val_accuracy" as ever, and another task's figures come back under theirs, read without knowing the task.
TEST(EventJson, AnEpochsFiguresTravelByTheTasksNames) {
  EpochMetrics m;
  m.epoch = 3;
  m.train_loss = 0.5;
  m.train_figures = {{"accuracy", 0.8}};
  m.val_loss = 0.6;
  m.val_figures = {{"accuracy", 0.75}};
  const nlohmann::json j = eventToJson(m);
  EXPECT_DOUBLE_EQ(j.at("train_accuracy").get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(j.at("val_accuracy").get<double>(), 0.75);
  EXPECT_FALSE(j.contains("train_figures"));

  EpochMetrics other;
  other.train_loss = 0.5;
  other.train_figures = {{"dice", 0.7}, {"iou", 0.6}};
  other.val_loss = -1;  // no validation this epoch: no val_ figures written
  other.val_figures = {{"dice", 0.1}};
  const nlohmann::json o = eventToJson(other);
  EXPECT_FALSE(o.contains("val_dice")) << o.dump();
  const auto back = eventFromJson(o);
  ASSERT_TRUE(back.has_value());
  const auto* e = std::get_if<EpochMetrics>(&*back);
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->train_figures.size(), 2U) << o.dump();
  EXPECT_DOUBLE_EQ(figureNamed(e->train_figures, "dice", -1), 0.7);
  EXPECT_DOUBLE_EQ(figureNamed(e->train_figures, "iou", -1), 0.6);
  EXPECT_DOUBLE_EQ(e->train_loss, 0.5) << "the loss is not a figure";
  EXPECT_TRUE(e->val_figures.empty());

  // A validation whose loss was not finite keeps its figures (its loss is written as null).
  const auto infinite = eventFromJson(nlohmann::json::parse(
      R"({"event": "epoch", "epoch": 2, "train_loss": 0.4, "train_accuracy": 0.9, "val_loss": null,
          "val_accuracy": 0.5})"));
  ASSERT_TRUE(infinite.has_value());
  const auto* i = std::get_if<EpochMetrics>(&*infinite);
  ASSERT_NE(i, nullptr);
  EXPECT_LT(i->val_loss, 0);
  EXPECT_DOUBLE_EQ(figureNamed(i->val_figures, "accuracy", -1), 0.5);
}

TEST(EventJson, FinishedCarriesTheSummary) {
  RunSummary summary;
  summary.status = RunStatus::EarlyStopped;
  summary.test_accuracy = 0.91;
  summary.run_dir = "runs/x";
  const auto back = eventFromJson(eventToJson(RunFinished{summary}));
  ASSERT_TRUE(back.has_value());
  const auto* f = std::get_if<RunFinished>(&*back);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->summary.status, RunStatus::EarlyStopped);
  EXPECT_DOUBLE_EQ(f->summary.test_accuracy, 0.91);
  EXPECT_EQ(f->summary.run_dir, "runs/x");
}

// summary.json's "status" is the word of RunStatus's table: every value is written as its word and read back
// as itself; the words are those older run folders hold; a word from a newer engine reads as Failed.
TEST(EventJson, EveryRunStatusIsWrittenAsItsWordAndReadBack) {
  const std::vector<std::pair<RunStatus, std::string>> words = {{RunStatus::Completed, "completed"},
                                                                {RunStatus::EarlyStopped, "early_stopped"},
                                                                {RunStatus::Interrupted, "interrupted"},
                                                                {RunStatus::Failed, "failed"}};
  ASSERT_EQ(allWords<RunStatus>().size(), words.size()) << "a value was added: add it here";
  for (const auto& [status, word] : words) {
    RunSummary summary;
    summary.status = status;
    const nlohmann::json file = summaryToJson(summary);
    EXPECT_EQ(file["status"], word);
    EXPECT_EQ(summaryFromJson(file).status, status) << word;
    EXPECT_EQ(fromWord<RunStatus>(wordOf(status)), status) << word;
  }
  EXPECT_EQ(summaryFromJson(nlohmann::json::parse(R"({"status":"paused_by_a_newer_engine"})")).status,
            RunStatus::Failed);
  EXPECT_EQ(summaryFromJson(nlohmann::json::object()).status, RunStatus::Failed);
}

TEST(EventJson, ErrorAndLogRoundTrip) {
  const auto err = eventFromJson(eventToJson(RunError{ErrorKind::NonFinite, "loss NaN", "lower lr"}));
  ASSERT_TRUE(err && std::holds_alternative<RunError>(*err));
  EXPECT_EQ(std::get<RunError>(*err).kind, ErrorKind::NonFinite);
  const auto log = eventFromJson(eventToJson(LogLine{LogLevel::Warning, "careful"}));
  ASSERT_TRUE(log && std::holds_alternative<LogLine>(*log));
  EXPECT_EQ(std::get<LogLine>(*log).level, LogLevel::Warning);
}

TEST(EventJson, UnknownOrDamagedLinesAreSkippedNotFatal) {
  EXPECT_FALSE(eventFromJson(nlohmann::json::parse(R"({"event":"from-the-future"})")).has_value());
  EXPECT_FALSE(eventFromJson(nlohmann::json::parse("[1,2]")).has_value());
  const auto odd = eventFromJson(nlohmann::json::parse(R"({"event":"step","loss":"oops","step":3})"));
  ASSERT_TRUE(odd.has_value());
  EXPECT_EQ(std::get<StepMetrics>(*odd).step, 3);
}

}  // namespace
}  // namespace wb
