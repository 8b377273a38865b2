// train.shard checked before training (distributed/shard_checks.h).
#include <gtest/gtest.h>

#include "distributed/shard_checks.h"
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
  EXPECT_NE(issues[0].message.find("\"parameters\" is not available"), std::string::npos) << issues[0].message;
}

}  // namespace
}  // namespace wb
