// processLaunchFromEnvironment: torchrun's, Slurm's and hand-set variables, read from a fake environment;
// each bad or missing variable is an error naming it.

#include "workbench/process_launch.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/test_helpers.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using Variables = std::map<std::string, std::string>;

std::optional<ProcessLaunch> launchFrom(const Variables& variables) {
  return processLaunchFromEnvironment([&variables](const char* name) -> const char* {
    const auto it = variables.find(name);
    return it == variables.end() ? nullptr : it->second.c_str();
  });
}

// The UserError `variables` cause (its message and hint), or a failure when there is none.
UserError errorFrom(const Variables& variables) {
  try {
    const std::optional<ProcessLaunch> launch = launchFrom(variables);
    ADD_FAILURE() << "no error; got " << (launch ? describe(*launch) : std::string("no launch"));
  } catch (const UserError& error) {
    EXPECT_FALSE(error.hint().empty()) << error.what();
    return error;
  }
  return UserError("");
}

// What torchrun --nproc-per-node=2 gives its second worker (torch 1.13's elastic agent).
Variables torchrunWorker() {
  return {{"RANK", "1"},
          {"WORLD_SIZE", "2"},
          {"LOCAL_RANK", "1"},
          {"LOCAL_WORLD_SIZE", "2"},
          {"GROUP_RANK", "0"},
          {"ROLE_RANK", "1"},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", "29500"},
          {"TORCHELASTIC_RUN_ID", "none"},
          {"TORCHELASTIC_RESTART_COUNT", "0"},
          {"TORCHELASTIC_MAX_RESTARTS", "0"},
          {"TORCHELASTIC_USE_AGENT_STORE", "True"}};
}

// What srun --ntasks=4 (two nodes, two tasks each) gives the fourth task.
Variables slurmTask() {
  return {{"SLURM_PROCID", "3"},
          {"SLURM_NTASKS", "4"},
          {"SLURM_LOCALID", "1"},
          {"SLURM_JOB_ID", "81234"},
          {"SLURM_JOB_NODELIST", "node[07-08]"},
          {"SLURM_NODELIST", "node[07-08]"}};
}

TEST(ProcessLaunch, NoLauncherIsNoLaunch) {
  EXPECT_FALSE(launchFrom({}).has_value());
  EXPECT_FALSE(launchFrom({{"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"}}).has_value());
  // A Slurm job of one task, and a batch script's own shell, are not data parallel.
  EXPECT_FALSE(launchFrom({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}}).has_value());
  EXPECT_FALSE(launchFrom({{"SLURM_PROCID", "0"}, {"SLURM_JOB_NODELIST", "node01"}}).has_value());
}

TEST(ProcessLaunch, EveryLauncherHasItsWordAndBack) {
  EXPECT_EQ(allWords<Launcher>(), (std::vector<std::string>{"torchrun", "slurm", "env"}));
  for (const Launcher launcher : {Launcher::Torchrun, Launcher::Slurm, Launcher::Env}) {
    EXPECT_EQ(fromWord<Launcher>(wordOf(launcher)), launcher) << wordString(launcher);
  }
}

TEST(ProcessLaunch, Torchrun) {
  const std::optional<ProcessLaunch> launch = launchFrom(torchrunWorker());
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->rank, 1);
  EXPECT_EQ(launch->world_size, 2);
  EXPECT_EQ(launch->local_rank, 1);
  EXPECT_EQ(launch->master_addr, "127.0.0.1");
  EXPECT_EQ(launch->master_port, 29500);
  EXPECT_EQ(launch->launcher, Launcher::Torchrun);
  EXPECT_TRUE(launch->agent_store);
  EXPECT_EQ(launch->store_prefix, "/worker/attempt_0");
  EXPECT_EQ(describe(*launch),
            "rank 1 of 2 (local rank 1), launched by torchrun, store at 127.0.0.1:29500 (torchrun's agent "
            "store, prefix /worker/attempt_0)");
}

TEST(ProcessLaunch, TorchrunRestartedUsesTheAttemptsPrefix) {
  Variables variables = torchrunWorker();
  variables["TORCHELASTIC_RESTART_COUNT"] = "3";
  EXPECT_EQ(launchFrom(variables)->store_prefix, "/worker/attempt_3");

  variables.erase("TORCHELASTIC_RESTART_COUNT");
  const UserError missing = errorFrom(variables);
  EXPECT_TRUE(test::contains(missing.what(), "TORCHELASTIC_RESTART_COUNT is not set")) << missing.what();

  variables["TORCHELASTIC_RESTART_COUNT"] = "x";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "TORCHELASTIC_RESTART_COUNT=\"x\""));
}

TEST(ProcessLaunch, TorchrunWithoutTheAgentStore) {
  Variables variables = torchrunWorker();
  variables.erase("TORCHELASTIC_USE_AGENT_STORE");
  const std::optional<ProcessLaunch> launch = launchFrom(variables);
  ASSERT_TRUE(launch.has_value());
  EXPECT_FALSE(launch->agent_store);
  EXPECT_EQ(launch->store_prefix, "");

  variables["TORCHELASTIC_USE_AGENT_STORE"] = "False";
  EXPECT_FALSE(launchFrom(variables)->agent_store);
  variables["TORCHELASTIC_USE_AGENT_STORE"] = "yes";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "TORCHELASTIC_USE_AGENT_STORE=\"yes\""));
}

TEST(ProcessLaunch, GroupRankAloneMeansTorchrun) {
  Variables variables = torchrunWorker();
  variables.erase("TORCHELASTIC_RUN_ID");
  EXPECT_EQ(launchFrom(variables)->launcher, Launcher::Torchrun);
  variables.erase("GROUP_RANK");
  EXPECT_EQ(launchFrom(variables)->launcher, Launcher::Env);
}

TEST(ProcessLaunch, ByHand) {
  const std::optional<ProcessLaunch> launch =
      launchFrom({{"RANK", "2"}, {"WORLD_SIZE", "3"}, {"MASTER_ADDR", "10.1.2.3"}, {"MASTER_PORT", "12345"}});
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->rank, 2);
  EXPECT_EQ(launch->world_size, 3);
  EXPECT_EQ(launch->local_rank, 2);  // LOCAL_RANK unset: the rank
  EXPECT_EQ(launch->master_addr, "10.1.2.3");
  EXPECT_EQ(launch->master_port, 12345);
  EXPECT_EQ(launch->launcher, Launcher::Env);
  EXPECT_FALSE(launch->agent_store);
  EXPECT_EQ(launch->store_prefix, "");
  EXPECT_TRUE(test::contains(describe(*launch), "rank 2 of 3 (local rank 2)"));
  EXPECT_TRUE(test::contains(describe(*launch), "10.1.2.3:12345"));
}

TEST(ProcessLaunch, OneProcessWorldIsALaunchOfOne) {
  const std::optional<ProcessLaunch> launch =
      launchFrom({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_PORT", "29500"}});
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->world_size, 1);
  EXPECT_EQ(launch->rank, 0);
  EXPECT_EQ(launch->master_addr, "127.0.0.1");  // MASTER_ADDR is needed only by several processes
}

TEST(ProcessLaunch, RankAndWorldSizeComeTogether) {
  const UserError noWorld = errorFrom({{"RANK", "0"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}});
  EXPECT_TRUE(test::contains(noWorld.what(), "WORLD_SIZE is not")) << noWorld.what();
  const UserError noRank = errorFrom({{"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}});
  EXPECT_TRUE(test::contains(noRank.what(), "RANK is not")) << noRank.what();
}

TEST(ProcessLaunch, IntegersAreStrict) {
  const Variables good = {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "29500"}};
  for (const std::string bad : {"2x", " 2", "2 ", "", "+2", "two", "0x2", "2.0", "99999999999"}) {
    SCOPED_TRACE(bad);
    Variables variables = good;
    variables["WORLD_SIZE"] = bad;
    const UserError error = errorFrom(variables);
    EXPECT_TRUE(test::contains(error.what(), "WORLD_SIZE=\"" + bad + "\"")) << error.what();
  }
  for (const std::string bad : {"1x", "-0x1", ""}) {
    SCOPED_TRACE(bad);
    Variables variables = good;
    variables["RANK"] = bad;
    EXPECT_TRUE(test::contains(errorFrom(variables).what(), "RANK=\"" + bad + "\""));
  }
}

TEST(ProcessLaunch, RanksMustFitTheWorld) {
  const Variables good = {{"RANK", "0"}, {"WORLD_SIZE", "4"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "29500"}};
  Variables variables = good;
  variables["WORLD_SIZE"] = "0";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "WORLD_SIZE=\"0\" is not a positive integer"));
  variables = good;
  variables["RANK"] = "4";
  const UserError tooHigh = errorFrom(variables);
  EXPECT_TRUE(test::contains(tooHigh.what(), "RANK=\"4\" is not in 0 to 3")) << tooHigh.what();
  variables["RANK"] = "-1";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "RANK=\"-1\""));
  variables = good;
  variables["LOCAL_RANK"] = "-1";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "LOCAL_RANK=\"-1\""));
  variables["LOCAL_RANK"] = "4";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "LOCAL_RANK=\"4\""));
  variables["LOCAL_RANK"] = "3";
  EXPECT_EQ(launchFrom(variables)->local_rank, 3);
}

TEST(ProcessLaunch, MasterAddressAndPort) {
  const Variables good = {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "29500"}};
  Variables variables = good;
  variables.erase("MASTER_ADDR");
  const UserError noAddr = errorFrom(variables);
  EXPECT_TRUE(test::contains(noAddr.what(), "MASTER_ADDR is not set")) << noAddr.what();
  EXPECT_TRUE(test::contains(noAddr.hint(), "127.0.0.1")) << noAddr.hint();
  variables["MASTER_ADDR"] = "";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "MASTER_ADDR is empty"));

  variables = good;
  variables.erase("MASTER_PORT");
  const UserError noPort = errorFrom(variables);
  EXPECT_TRUE(test::contains(noPort.what(), "MASTER_PORT is not set")) << noPort.what();
  EXPECT_TRUE(test::contains(noPort.hint(), "29500")) << noPort.hint();
  for (const std::string bad : {"0", "65536", "-1", "80a", ""}) {
    SCOPED_TRACE(bad);
    variables["MASTER_PORT"] = bad;
    EXPECT_TRUE(test::contains(errorFrom(variables).what(), "MASTER_PORT=\"" + bad + "\""));
  }
  variables["MASTER_PORT"] = "65535";
  EXPECT_EQ(launchFrom(variables)->master_port, 65535);
  variables["MASTER_PORT"] = "1";
  EXPECT_EQ(launchFrom(variables)->master_port, 1);
}

TEST(ProcessLaunch, Slurm) {
  const std::optional<ProcessLaunch> launch = launchFrom(slurmTask());
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->launcher, Launcher::Slurm);
  EXPECT_EQ(launch->rank, 3);
  EXPECT_EQ(launch->world_size, 4);
  EXPECT_EQ(launch->local_rank, 1);
  EXPECT_EQ(launch->master_addr, "node07");
  EXPECT_EQ(launch->master_port, 29500);
  EXPECT_FALSE(launch->agent_store);
  EXPECT_EQ(describe(*launch), "rank 3 of 4 (local rank 1), launched by Slurm, store at node07:29500");
}

TEST(ProcessLaunch, SlurmTakesMasterAddressAndPortFromTheEnvironmentFirst) {
  Variables variables = slurmTask();
  variables["MASTER_ADDR"] = "10.0.0.9";
  variables["MASTER_PORT"] = "23456";
  const std::optional<ProcessLaunch> launch = launchFrom(variables);
  EXPECT_EQ(launch->master_addr, "10.0.0.9");
  EXPECT_EQ(launch->master_port, 23456);
  variables["MASTER_PORT"] = "port";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "MASTER_PORT=\"port\""));
}

TEST(ProcessLaunch, SlurmFallsBackToTheOlderNodeListName) {
  Variables variables = slurmTask();
  variables.erase("SLURM_JOB_NODELIST");
  variables["SLURM_NODELIST"] = "gpu[3-4],cpu1";
  EXPECT_EQ(launchFrom(variables)->master_addr, "gpu3");
  variables.erase("SLURM_NODELIST");
  const UserError none = errorFrom(variables);
  EXPECT_TRUE(test::contains(none.what(), "SLURM_JOB_NODELIST")) << none.what();
  EXPECT_TRUE(test::contains(none.what(), "MASTER_ADDR")) << none.what();
  variables["SLURM_JOB_NODELIST"] = "node[01";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "SLURM_JOB_NODELIST=\"node[01\""));
}

TEST(ProcessLaunch, SlurmVariablesAreChecked) {
  Variables variables = slurmTask();
  variables["SLURM_PROCID"] = "4";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "SLURM_PROCID=\"4\" is not in 0 to 3"));
  variables["SLURM_PROCID"] = "x";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "SLURM_PROCID=\"x\""));
  variables = slurmTask();
  variables.erase("SLURM_LOCALID");
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "SLURM_LOCALID is not set"));
  variables["SLURM_LOCALID"] = "-2";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "SLURM_LOCALID=\"-2\""));
  variables = slurmTask();
  variables["SLURM_NTASKS"] = "4 tasks";
  EXPECT_TRUE(test::contains(errorFrom(variables).what(), "SLURM_NTASKS=\"4 tasks\""));
}

// torchrun inside a Slurm allocation: the launcher's own variables win.
TEST(ProcessLaunch, TorchrunUnderSlurmIsTorchrun) {
  Variables variables = slurmTask();
  for (const auto& [name, value] : torchrunWorker()) variables[name] = value;
  const std::optional<ProcessLaunch> launch = launchFrom(variables);
  EXPECT_EQ(launch->launcher, Launcher::Torchrun);
  EXPECT_EQ(launch->world_size, 2);
}

TEST(ProcessLaunch, FirstSlurmHost) {
  EXPECT_EQ(firstSlurmHost("node01"), "node01");
  EXPECT_EQ(firstSlurmHost("node[01-04,07]"), "node01");
  EXPECT_EQ(firstSlurmHost("gpu[1-2],cpu3"), "gpu1");
  EXPECT_EQ(firstSlurmHost("a-b[001-002]"), "a-b001");
  EXPECT_EQ(firstSlurmHost("node[7]"), "node7");
  EXPECT_EQ(firstSlurmHost("cpu3,gpu[1-2]"), "cpu3");
  EXPECT_EQ(firstSlurmHost("rack[1-2]-n[08-09]"), "rack1-n08");
  EXPECT_EQ(firstSlurmHost("host.example.org"), "host.example.org");
  for (const char* bad : {"", "node[01", "node01]", "node[]", "node[a-b]", "node[[1]]", ",node01"}) {
    EXPECT_EQ(firstSlurmHost(bad), "") << bad;
  }
}

TEST(ProcessLaunch, ReadsTheProcessEnvironmentByDefault) {
  // This test's own process: started by no launcher (ctest sets none of these).
  if (std::getenv("WORLD_SIZE") != nullptr || std::getenv("RANK") != nullptr ||
      std::getenv("SLURM_PROCID") != nullptr) {
    GTEST_SKIP() << "running under a launcher";
  }
  EXPECT_FALSE(processLaunchFromEnvironment().has_value());
}

}  // namespace
}  // namespace wb
