// What the CPU makes bf16 and int8 cost, where a user meets it: `info` names the CPU and its extensions,
// `check` of an experiment with train.amp bf16 on the CPU says what bf16 costs here (a warning where it is
// slower than fp32), and the run's log says it again when it starts.

#include <gtest/gtest.h>

#include <string>

#include "cli/cli_runner.h"
#include "workbench/system_info.h"

namespace {

using wb::test::runCli;
using wb::test::tempDir;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliCpuCosts, InfoNamesTheCpusExtensionsAndWhatBf16AndInt8CostOnIt) {
  const wb::CpuFeatures cpu = wb::queryCpuFeatures();
  const auto r = runCli("info");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "CPU: ")) << r.out;
  EXPECT_TRUE(has(r.out, wb::describeCpuFeatures(cpu))) << r.out;
  EXPECT_TRUE(has(r.out, wb::cpuBf16Cost(cpu).summary)) << r.out;
  EXPECT_TRUE(has(r.out, "int8 on this CPU: ")) << r.out;
}

TEST(CliCpuCosts, CheckAndTheRunLogSayWhatBf16CostsOnThisCpu) {
  const wb::CpuBf16Cost cost = wb::cpuBf16Cost(wb::queryCpuFeatures());
  const std::string runs = tempDir("cpu-costs");
  // 256 samples make 20 steps: fewer warmup steps than that (check refuses a schedule longer than the run).
  const std::string sets =
      " --example mlp --set data.limit=256 --set schedule.warmup_steps=5 --set output.runs_dir=" + runs;
  const auto bf16 = runCli("check" + sets + " --set train.amp=bf16");
  ASSERT_EQ(bf16.status, 0) << bf16.err;
  EXPECT_TRUE(has(bf16.out,
                  std::string(cost.slower_than_fp32 ? "warning: " : "note: ") + "train.amp: " + cost.summary))
      << bf16.out;
  const auto fp32 = runCli("check" + sets);
  ASSERT_EQ(fp32.status, 0) << fp32.err;
  EXPECT_FALSE(has(fp32.out, "bf16 on this CPU")) << fp32.out;

  const auto run = runCli("train" + sets +
                          " --set train.amp=bf16 --set train.max_steps=2 --set train.epochs=1 "
                          "--set schedule.warmup_steps=0");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_TRUE(has(run.out + run.err, cost.summary)) << run.out << run.err;
}

}  // namespace
