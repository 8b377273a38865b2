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
