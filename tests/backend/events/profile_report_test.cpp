#include "workbench/profile_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "workbench/errors.h"
#include "workbench/event_json.h"

namespace wb {
namespace {

ProfileReport sampleReport() {
  ProfileReport r;
  r.device = "cpu";
  r.profiler = ProfilerKind::Kineto;
  r.record_shapes = true;
  r.profile_memory = true;
  r.first_step = 4;
  r.steps = 3;
  r.step_ms = 10;
  r.phases = {
      {StepPhase::Data, 1}, {StepPhase::Forward, 3}, {StepPhase::Backward, 4}, {StepPhase::Optimizer, 2}};
  ProfileOperatorRow conv;
  conv.name = "aten::convolution";
  conv.input_shapes = "[[64, 1, 28, 28], [16, 1, 3, 3], [16]]";
  conv.calls = 3;
  conv.self_cpu_ms = 4.5;
  conv.cpu_total_ms = 6;
  conv.cpu_memory_bytes = 3 * 1024 * 1024;
  ProfileOperatorRow add;
  add.name = "aten::add_";
  add.calls = 30;
  add.self_cpu_ms = 0.75;
  add.cpu_total_ms = 0.75;
  r.operators = {add, conv};
  r.trace_path = "/runs/x/profile/steps-5-7.pt.trace.json";
  r.report_path = "/runs/x/profile/steps-5-7.json";
  r.source = "workbench-cli profile";
  return r;
}

TEST(ProfileReport, JsonRoundTripKeepsEveryField) {
  const ProfileReport r = sampleReport();
  std::string problem;
  const auto back = profileReportFromJson(profileReportToJson(r), problem);
  ASSERT_TRUE(back.has_value()) << problem;
  EXPECT_EQ(profileReportToJson(*back), profileReportToJson(r));
  ASSERT_EQ(back->phases.size(), 4u);
  EXPECT_EQ(back->phases[1].phase, StepPhase::Forward);
  EXPECT_EQ(back->operators[1].input_shapes, "[[64, 1, 28, 28], [16, 1, 3, 3], [16]]");
  EXPECT_EQ(back->operators[1].self_cuda_ms, -1);
}

TEST(ProfileReport, DamagedFilesAreRefusedNamingTheKey) {
  nlohmann::json j = profileReportToJson(sampleReport());
  j["profiler"] = "nsight";
  std::string problem;
  EXPECT_FALSE(profileReportFromJson(j, problem).has_value());
  EXPECT_NE(problem.find("profiler"), std::string::npos) << problem;
  j = profileReportToJson(sampleReport());
  j["operators"][0]["calls"] = "many";
  EXPECT_FALSE(profileReportFromJson(j, problem).has_value());
  EXPECT_NE(problem.find("calls"), std::string::npos) << problem;
  EXPECT_FALSE(profileReportFromJson(nlohmann::json::array(), problem).has_value());
}

TEST(ProfileReport, EventKeepsTheReportButNotItsRows) {
  ProfileRecorded recorded{sampleReport(), ""};
  const nlohmann::json line = eventToJson(recorded);
  EXPECT_EQ(line["event"], "profile");
  EXPECT_FALSE(line.contains("operators"));
  const auto back = eventFromJson(line);
  ASSERT_TRUE(back.has_value());
  const auto* p = std::get_if<ProfileRecorded>(&*back);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->error.empty());
  EXPECT_EQ(p->report.steps, 3);
  EXPECT_EQ(p->report.report_path, "/runs/x/profile/steps-5-7.json");
  EXPECT_TRUE(p->report.operators.empty());
  ProfileRecorded refused;
  refused.error = "step 900 is beyond the run's 100 steps";
  const auto refused_back = eventFromJson(eventToJson(refused));
  ASSERT_TRUE(refused_back.has_value());
  EXPECT_EQ(std::get<ProfileRecorded>(*refused_back).error, refused.error);
}

TEST(ProfileReport, TableSortsAndTotalsLikePyTorchs) {
  const std::string table = formatProfileTable(sampleReport(), ProfileSort::SelfCpu, 0);
  // The larger self CPU time first, whatever the report's order.
  EXPECT_LT(table.find("aten::convolution"), table.find("aten::add_")) << table;
  EXPECT_NE(table.find("Self CPU %"), std::string::npos);
  EXPECT_NE(table.find("85.71%"), std::string::npos) << table;  // 4.5 of 5.25 ms
  EXPECT_NE(table.find("3.00 Mb"), std::string::npos) << table;
  EXPECT_NE(table.find("Self CPU time total: 5.250ms"), std::string::npos) << table;
  EXPECT_EQ(table.find("CUDA"), std::string::npos) << "no CUDA columns for a CPU profile";
  EXPECT_NE(table.find("forward"), std::string::npos);
  const std::string by_calls = formatProfileTable(sampleReport(), ProfileSort::Calls, 1);
  EXPECT_NE(by_calls.find("aten::add_"), std::string::npos);
  EXPECT_EQ(by_calls.find("aten::convolution"), std::string::npos) << "one row asked";
}

TEST(ProfileReport, RequestsNeedAStepOrMore) {
  ProfileRequest request;
  request.steps = 0;
  EXPECT_NE(checkProfileRequest(request).find("1 or more"), std::string::npos);
  request.steps = 5;
  EXPECT_EQ(checkProfileRequest(request), "");
  request.first_step = -2;
  EXPECT_NE(checkProfileRequest(request), "");
  EXPECT_EQ(phaseRangeName(StepPhase::Backward), "## backward ##");
}

TEST(ProfileReport, ReportsInARunFolderInStepOrder) {
  namespace fs = std::filesystem;
  const fs::path run = fs::path(::testing::TempDir()) / "profile_report_paths";
  fs::remove_all(run);
  fs::create_directories(run / "profile");
  for (const char* name :
       {"steps-101-110.json", "steps-91-100.json", "steps-91-100.pt.trace.json", "x.json"}) {
    std::ofstream(run / "profile" / name) << profileReportToJson(sampleReport()).dump();
  }
  const std::vector<std::string> paths = profileReportPaths(run.string());
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(fs::path(paths[0]).filename(), "steps-91-100.json");
  EXPECT_EQ(readProfileReport(paths[1]).steps, 3);
  std::ofstream(run / "profile" / "steps-1-2.json") << "{\"steps\": 1";
  EXPECT_THROW(readProfileReport((run / "profile" / "steps-1-2.json").string()), UserError);
  EXPECT_THROW(readProfileReport((run / "missing.json").string()), UserError);
  fs::remove_all(run);
}

}  // namespace
}  // namespace wb
