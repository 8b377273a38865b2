// The operator table made from profiler events written by hand, against what PyTorch's key_averages() makes
// of the same nesting (profiler_util.py): self time is the total less the children's, rows group by name and
// input shapes, memory counts within a range, kernels go to the operator that launched them, and each phase
// counts its own time (a nested phase is not counted twice). The trace writer's output is a Chrome trace.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "profiling/profile_events.h"
#include "profiling/profile_trace.h"

namespace wb {
namespace {

ProfiledEvent range(const std::string& name, int64_t start_us, int64_t end_us, uint64_t thread = 1,
                    const std::string& shapes = "") {
  ProfiledEvent e;
  e.name = name;
  e.start_ns = start_us * 1000;
  e.end_ns = end_us * 1000;
  e.thread = thread;
  e.input_shapes = shapes;
  return e;
}

ProfiledEvent memory(int64_t at_us, int64_t bytes, uint64_t thread = 1) {
  ProfiledEvent e = range("[memory]", at_us, at_us, thread);
  e.kind = ProfiledEvent::Kind::Memory;
  e.bytes = bytes;
  return e;
}

// One step of 100 us: data 10, forward 40 (a linear of 30 with an addmm of 25 inside), backward 30,
// optimizer 20 with an allreduce wait of 5 inside it.
std::vector<ProfiledEvent> oneStep() {
  return {range(profilerStepName(3), 0, 100),
          range("## data ##", 0, 10),
          range("## forward ##", 10, 50),
          range("aten::linear", 12, 42, 1, "[[32, 784], [256, 784], [256]]"),
          range("aten::addmm", 14, 39, 1, "[[256], [32, 784], [784, 256], [], []]"),
          memory(15, 32768),
          range("## backward ##", 50, 80),
          range("aten::mm", 55, 75, 1, "[[32, 256], [256, 784]]"),
          range("## optimizer ##", 80, 100),
          range("## allreduce ##", 82, 87),
          range("aten::add_", 90, 95, 1, "[[256, 784], [256, 784], []]"),
          range("aten::add_", 95, 98, 1, "[[256], [256], []]"),
          range("aten::is_leaf", 99, 100)};
}

const ProfileOperatorRow* findRow(const ProfileTable& t, const std::string& name, const std::string& shapes) {
  for (const ProfileOperatorRow& r : t.rows) {
    if (r.name == name && r.input_shapes == shapes) return &r;
  }
  return nullptr;
}

TEST(ProfileTable, SelfTimeIsTheTotalLessTheChildren) {
  const ProfileTable t = tabulateProfile(oneStep(), /*cuda=*/false);
  const ProfileOperatorRow* linear = findRow(t, "aten::linear", "[[32, 784], [256, 784], [256]]");
  ASSERT_NE(linear, nullptr);
  EXPECT_DOUBLE_EQ(linear->cpu_total_ms, 0.030);
  EXPECT_DOUBLE_EQ(linear->self_cpu_ms, 0.005);
  EXPECT_EQ(linear->cpu_memory_bytes, 32768);  // allocated inside it, by its child
  EXPECT_EQ(linear->self_cpu_memory_bytes, 0);
  const ProfileOperatorRow* addmm = findRow(t, "aten::addmm", "[[256], [32, 784], [784, 256], [], []]");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->self_cpu_memory_bytes, 32768);
  EXPECT_EQ(addmm->self_cuda_ms, -1) << "no CUDA columns without CUDA activities";
  // The step's range is one row for every step, as torch.profiler's "ProfilerStep*".
  EXPECT_NE(findRow(t, "ProfilerStep*", ""), nullptr);
  EXPECT_EQ(findRow(t, "aten::is_leaf", ""), nullptr) << "left out as PyTorch's table leaves it out";
  // The self times add up to the step: every microsecond of it is some row's own (is_leaf's in the
  // optimizer's, as PyTorch's table counts it).
  double self_cpu = 0;
  for (const ProfileOperatorRow& r : t.rows) self_cpu += r.self_cpu_ms;
  EXPECT_NEAR(self_cpu, 0.100, 1e-12);
  EXPECT_EQ(t.rows.front().name, "aten::addmm") << "sorted by self CPU time";
}

TEST(ProfileTable, RowsGroupByNameAndShapes) {
  const ProfileTable t = tabulateProfile(oneStep(), false);
  EXPECT_NE(findRow(t, "aten::add_", "[[256, 784], [256, 784], []]"), nullptr);
  EXPECT_NE(findRow(t, "aten::add_", "[[256], [256], []]"), nullptr);
  std::vector<ProfiledEvent> twice = oneStep();
  for (ProfiledEvent e : oneStep()) {
    e.start_ns += 100'000;
    e.end_ns += 100'000;
    if (e.name.rfind("ProfilerStep#", 0) == 0) e.name = profilerStepName(4);
    twice.push_back(e);
  }
  const ProfileTable two = tabulateProfile(twice, false);
  EXPECT_EQ(two.steps, 2);
  EXPECT_DOUBLE_EQ(two.step_ms, 0.1);
  EXPECT_EQ(findRow(two, "aten::mm", "[[32, 256], [256, 784]]")->calls, 2);
}

TEST(ProfileTable, EachPhaseCountsItsOwnTime) {
  const ProfileTable t = tabulateProfile(oneStep(), false);
  ASSERT_EQ(t.phases.size(), 5u);
  const double expected[] = {0.010, 0.040, 0.030, 0.015, 0.005};  // optimizer 20 less the allreduce's 5
  double sum = 0;
  for (size_t i = 0; i < t.phases.size(); ++i) {
    EXPECT_EQ(t.phases[i].phase, static_cast<StepPhase>(i));
    EXPECT_NEAR(t.phases[i].ms, expected[i], 1e-12) << wordString(t.phases[i].phase);
    sum += t.phases[i].ms;
  }
  EXPECT_NEAR(sum, t.step_ms, 1e-12);
}

TEST(ProfileTable, KernelsGoToTheOperatorThatLaunchedThem) {
  std::vector<ProfiledEvent> events = oneStep();
  events[4].correlation = 7;  // aten::addmm
  ProfiledEvent kernel = range("volta_sgemm_128x64_nn", 20, 32, /*thread=*/99);
  kernel.kind = ProfiledEvent::Kind::Device;
  kernel.linked_correlation = 7;
  events.push_back(kernel);
  const ProfileTable t = tabulateProfile(events, /*cuda=*/true);
  const ProfileOperatorRow* addmm = findRow(t, "aten::addmm", "[[256], [32, 784], [784, 256], [], []]");
  EXPECT_DOUBLE_EQ(addmm->self_cuda_ms, 0.012);
  const ProfileOperatorRow* linear = findRow(t, "aten::linear", "[[32, 784], [256, 784], [256]]");
  EXPECT_DOUBLE_EQ(linear->self_cuda_ms, 0);
  EXPECT_DOUBLE_EQ(linear->cuda_total_ms, 0.012) << "the child's kernels count in the parent's total";
  EXPECT_EQ(findRow(t, "volta_sgemm_128x64_nn", ""), nullptr) << "kernels are columns, not rows";
}

TEST(ProfileTable, RangesNestOnTheirOwnThreadOnly) {
  std::vector<ProfiledEvent> events = oneStep();
  events.push_back(range("aten::mul", 20, 30, /*thread=*/2));  // inside forward's time, another thread
  const ProfileTable t = tabulateProfile(events, false);
  EXPECT_DOUBLE_EQ(findRow(t, "aten::mul", "")->self_cpu_ms, 0.010);
  EXPECT_DOUBLE_EQ(findRow(t, "aten::linear", "[[32, 784], [256, 784], [256]]")->self_cpu_ms, 0.005);
}

TEST(ProfileTrace, IsAChromeTraceWithTheRangesAndShapes) {
  const nlohmann::json trace =
      nlohmann::json::parse(chromeTraceJson(oneStep(), {1234, "workbench rank 0 (cpu)"}));
  ASSERT_TRUE(trace["traceEvents"].is_array());
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  bool linear = false, process = false, memory_seen = false;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name")
      process = e["args"]["name"] == "workbench rank 0 (cpu)";
    if (e["ph"] == "i") memory_seen = e["args"]["Bytes"] == 32768;
    if (e["ph"] == "X" && e["name"] == "aten::linear") {
      linear = true;
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 12.0);  // microseconds
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 30.0);
      EXPECT_EQ(e["args"]["Input Dims"], nlohmann::json::parse("[[32, 784], [256, 784], [256]]"));
      EXPECT_EQ(e["cat"], "cpu_op");
    }
    if (e["ph"] == "X" && e["name"] == "## forward ##") {
      EXPECT_EQ(e["cat"], "user_annotation");
    }
  }
  EXPECT_TRUE(linear);
  EXPECT_TRUE(process);
  EXPECT_TRUE(memory_seen);
}

}  // namespace
}  // namespace wb
