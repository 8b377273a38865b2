// train.shard checked before training (distributed/shard_checks.h).
#include "distributed/shard_checks.h"

#include <gtest/gtest.h>

#include "workbench/experiment.h"

namespace wb {
namespace {

TEST(ShardChecks, NoneIsAlwaysFine) {
  Experiment e;
  EXPECT_TRUE(checkShard(e).empty());
  e.train.devices = {"cpu", "cpu"};
  EXPECT_TRUE(checkShard(e).empty());
}

TEST(ShardChecks, LevelsNotTrainedYetAreRefusedNamingTheKey) {
  Experiment e;
  e.train.devices = {"cpu", "cpu"};
  e.train.shard = ShardLevel::Parameters;
  const std::vector<ValidationIssue> issues = checkShard(e);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "train.shard");
  EXPECT_NE(issues[0].message.find("\"parameters\" (ZeRO stage 3) is not available"), std::string::npos)
      << issues[0].message;
}

TEST(ShardChecks, ShardedGradientsRefuseFp16LossScaling) {
  Experiment e;
  e.train.devices = {"cpu", "cpu"};
  e.train.shard = ShardLevel::Gradients;
  e.train.amp = Precision::Fp16;
  const std::vector<ValidationIssue> issues = checkShard(e);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("fp16"), std::string::npos) << issues[0].message;
  e.train.shard = ShardLevel::Optimizer;  // every rank sees every gradient: the scaler agrees
  EXPECT_TRUE(checkShard(e).empty());
}

}  // namespace
}  // namespace wb
