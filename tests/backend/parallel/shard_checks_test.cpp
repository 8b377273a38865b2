// train.shard checked before training (parallel/shard_checks.h).
#include "parallel/shard_checks.h"

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

// ZeRO stage 3 trains a layer list on data-parallel ranks: a TorchScript model and a pipeline are refused
// naming the key and what to choose instead.
TEST(ShardChecks, ParametersRefuseWhatItCannotGatherLayerByLayer) {
  Experiment e;
  e.train.devices = {"cpu", "cpu"};
  e.train.shard = ShardLevel::Parameters;
  EXPECT_TRUE(shardLevelTrains(ShardLevel::Parameters));
  EXPECT_TRUE(checkShard(e).empty());
  e.model.torchscript = "model.pt";
  std::vector<ValidationIssue> issues = checkShard(e);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "train.shard");
  EXPECT_NE(
      issues[0].message.find("TorchScript model (model.torchscript) has no layer list; use \"gradients\""),
      std::string::npos)
      << issues[0].message;
  e.model.torchscript.clear();
  e.train.pipeline.enabled = true;
  issues = checkShard(e);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("train.pipeline"), std::string::npos) << issues[0].message;
}

TEST(ShardChecks, ShardedGradientsRefuseFp16LossScaling) {
  Experiment e;
  e.train.devices = {"cpu", "cpu"};
  e.train.shard = ShardLevel::Gradients;
  e.train.amp = Precision::Fp16;
  const std::vector<ValidationIssue> issues = checkShard(e);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("fp16"), std::string::npos) << issues[0].message;
  e.train.shard = ShardLevel::Parameters;
  ASSERT_EQ(checkShard(e).size(), 1u);
  EXPECT_NE(checkShard(e)[0].message.find("\"parameters\" does not work with train.amp"), std::string::npos);
  e.train.shard = ShardLevel::Optimizer;  // every rank sees every gradient: the scaler agrees
  EXPECT_TRUE(checkShard(e).empty());
}

}  // namespace
}  // namespace wb
