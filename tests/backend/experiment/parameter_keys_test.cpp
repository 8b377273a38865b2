// model.freeze, model.unfreeze and optimizer.param_groups in the experiment file: read, written back the
// same, set from the command line, and bad forms reported at their path.

#include <gtest/gtest.h>

#include "backend/experiment/experiment_test_support.h"

namespace wb {
namespace {

using test::messageAt;
using test::parseText;

TEST(ParameterKeys, FreezeUnfreezeAndGroupsAreReadAndWrittenBack) {
  const ParseResult result = parseText(R"({
    "model": {"preset": "resnet", "freeze": ["conv1.*", "layer1"], "unfreeze": {"after_epochs": 2, "every_epochs": 1}},
    "optimizer": {"param_groups": [{"params": ["fc.*"], "lr_scale": 10},
                                   {"params": ["layer4.*"], "lr": 0.05, "weight_decay": 0}]}
  })");
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  const Experiment& e = result.experiment;
  EXPECT_EQ(e.model.freeze, (std::vector<std::string>{"conv1.*", "layer1"}));
  EXPECT_FALSE(e.model.freeze_body);
  EXPECT_EQ(e.model.unfreeze.after_epochs, 2);
  EXPECT_EQ(e.model.unfreeze.every_epochs, 1);
  ASSERT_EQ(e.optimizer.param_groups.size(), 2u);
  EXPECT_EQ(e.optimizer.param_groups[0].lr_scale, 10);
  EXPECT_EQ(e.optimizer.param_groups[0].weight_decay, -1);
  EXPECT_EQ(e.optimizer.param_groups[1].lr, 0.05);
  EXPECT_EQ(e.optimizer.param_groups[1].weight_decay, 0);
  const nlohmann::json written = experimentToJson(e);
  EXPECT_EQ(written["optimizer"]["param_groups"],
            nlohmann::json::parse(R"([{"params": ["fc.*"], "lr_scale": 10.0},
                                      {"params": ["layer4.*"], "lr": 0.05, "weight_decay": 0.0}])"));
  const ParseResult again = parseExperiment(written);
  ASSERT_TRUE(again.ok()) << formatIssues(again.issues);
  EXPECT_EQ(experimentToJson(again.experiment), written);
}

TEST(ParameterKeys, BodyIsAWordAndOverridesSetIt) {
  nlohmann::json doc = nlohmann::json::object();
  EXPECT_TRUE(applyOverride(doc, "model.freeze=body").empty());
  EXPECT_TRUE(applyOverride(doc, "optimizer.param_groups=[{\"params\": [\"fc.*\"], \"lr\": 0.1}]").empty());
  const ParseResult result = parseExperiment(doc);
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_TRUE(result.experiment.model.freeze_body);
  EXPECT_EQ(experimentToJson(result.experiment)["model"]["freeze"], "body");
  EXPECT_EQ(result.experiment.optimizer.param_groups.at(0).lr, 0.1);
}

TEST(ParameterKeys, BadFormsAreReportedAtTheirPath) {
  const ParseResult result = parseText(R"({
    "model": {"freeze": "bdy", "unfreeze": {"after_epochs": -1}},
    "optimizer": {"param_groups": [{"params": ["fc.*"], "lr": 0.1, "lr_scale": 2},
                                   {"parms": ["x"]}, {"params": [""], "weight_decay": -1}]}
  })");
  EXPECT_CONTAINS(messageAt(result.issues, "model.freeze"),
                  "expected \"body\" (every parameter but the head)");
  EXPECT_CONTAINS(messageAt(result.issues, "model.unfreeze.after_epochs"), "got -1");
  EXPECT_CONTAINS(messageAt(result.issues, "optimizer.param_groups[0]"), "\"lr\" or \"lr_scale\"");
  EXPECT_CONTAINS(messageAt(result.issues, "optimizer.param_groups[1].parms"), "did you mean \"params\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "optimizer.param_groups[1].params"), "a group needs \"params\"");
  EXPECT_FALSE(messageAt(result.issues, "optimizer.param_groups[2].params[0]").empty());
  EXPECT_CONTAINS(messageAt(result.issues, "optimizer.param_groups[2].weight_decay"), "got -1");
}

}  // namespace
}  // namespace wb
