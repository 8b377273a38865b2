// applyOverride: `--set key.path=value` edits of an experiment document, checked against the same schema the
// parser reads, so a typo in an override is caught before training with the key that was meant.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/experiment/experiment_test_support.h"
#include "workbench/experiment.h"

namespace wb {
namespace {

using nlohmann::json;

void expectApplies(json& doc, const std::string& assignment) {
  const std::vector<ValidationIssue> issues = applyOverride(doc, assignment);
  EXPECT_TRUE(issues.empty()) << assignment << ":\n" << formatIssues(issues);
}

TEST(ExperimentOverride, CommandLineSequenceOnAnEmptyDocument) {
  json doc = json::object();
  for (const char* assignment : {"train.epochs=1", "data.limit=5000", "model.preset=mlp"}) {
    expectApplies(doc, assignment);
  }
  const ParseResult result = parseExperiment(doc);
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_EQ(result.experiment.train.epochs, 1);
  EXPECT_EQ(result.experiment.data.limit, 5000);
  EXPECT_EQ(result.experiment.model.preset, "mlp");
  EXPECT_EQ(result.experiment.train.batch_size, 128);
}

TEST(ExperimentOverride, ValuesAreReadAsJsonWhenTheyParse) {
  json doc = json::object();
  expectApplies(doc, "optimizer.lr=3e-4");
  expectApplies(doc, "train.early_stopping=true");
  expectApplies(doc, "train.devices=[\"cuda:0\", \"cuda:1\"]");
  expectApplies(doc, "data.augment={\"crop_padding\": 4}");
  expectApplies(doc, "data.path=\"my data/train.csv\"");
  EXPECT_EQ(doc["optimizer"]["lr"], 3e-4);
  EXPECT_EQ(doc["train"]["early_stopping"], true);
  EXPECT_EQ(doc["train"]["devices"], json::parse(R"(["cuda:0", "cuda:1"])"));
  EXPECT_EQ(doc["data"]["augment"], json::parse(R"({"crop_padding": 4})"));
  EXPECT_EQ(doc["data"]["path"], "my data/train.csv");
}

TEST(ExperimentOverride, UnparsableValuesAreStrings) {
  json doc = json::object();
  expectApplies(doc, "schedule.name=onecycle");
  expectApplies(doc, "train.devices=cuda:1");
  expectApplies(doc, "data.path=");
  EXPECT_EQ(doc["schedule"]["name"], "onecycle");
  EXPECT_EQ(doc["train"]["devices"], "cuda:1");
  EXPECT_EQ(doc["data"]["path"], "");
}

// The command line's way to ask for data parallel on the CPU, and to tune it.
TEST(ExperimentOverride, CpuRanksAndDataParallelKeys) {
  json doc = json::object();
  expectApplies(doc, "train.devices=cpu:2");
  expectApplies(doc, "train.bucket_mb=4");
  expectApplies(doc, "train.sync_batchnorm=true");
  expectApplies(doc, "train.collective_timeout=10");
  EXPECT_EQ(doc["train"]["devices"], "cpu:2");
  const ParseResult result = parseExperiment(doc);
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_EQ(result.experiment.train.devices, (std::vector<std::string>{"cpu", "cpu"}));
  EXPECT_EQ(result.experiment.train.bucket_mb, 4.0);
  EXPECT_TRUE(result.experiment.train.sync_batchnorm);
  EXPECT_EQ(result.experiment.train.collective_timeout, 10.0);

  const std::vector<ValidationIssue> typo = applyOverride(doc, "train.bucketmb=4");
  ASSERT_EQ(typo.size(), 1u);
  EXPECT_CONTAINS(typo[0].message, "did you mean \"bucket_mb\"?");
}

// A number typed for a text key is the text: a run called 2024, a path called 007.
TEST(ExperimentOverride, TextKeysKeepTheTextAsTyped) {
  json doc = json::object();
  expectApplies(doc, "name=2024");
  expectApplies(doc, "data.path=007");
  EXPECT_EQ(doc["name"], "2024");
  EXPECT_EQ(doc["data"]["path"], "007");
  const ParseResult result = parseExperiment(doc);
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_EQ(result.experiment.name, "2024");
}

TEST(ExperimentOverride, NestedKeysCreateTheirSectionsAndKeepSiblings) {
  json doc = json::parse(R"({"train": {"batch_size": 32}})");
  expectApplies(doc, "train.early_stopping.patience=7");
  expectApplies(doc, "data.synthetic.shape=[3, 32, 32]");
  EXPECT_EQ(doc, json::parse(R"({"train": {"batch_size": 32, "early_stopping": {"patience": 7}},
                                 "data": {"synthetic": {"shape": [3, 32, 32]}}})"));
}

TEST(ExperimentOverride, SwitchOffThenTuneKeepsItOff) {
  json doc = json::parse(R"({"data": {"augment": false}})");
  expectApplies(doc, "data.augment.crop_padding=4");
  const ParseResult result = parseExperiment(doc);
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_FALSE(result.experiment.data.augment_enabled);
  EXPECT_EQ(result.experiment.data.augment.crop_padding, 4);
}

TEST(ExperimentOverride, UnknownKeySuggestsTheClosestAndChangesNothing) {
  json doc = json::parse(R"({"train": {"epochs": 5}})");
  const json before = doc;
  const std::vector<ValidationIssue> nested = applyOverride(doc, "train.epoch=3");
  ASSERT_EQ(nested.size(), 1u);
  EXPECT_EQ(nested[0].path, "train.epoch");
  EXPECT_EQ(nested[0].message, "unknown key \"epoch\"; did you mean \"epochs\"?");

  const std::vector<ValidationIssue> top = applyOverride(doc, "trian.epochs=3");
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].path, "trian");
  EXPECT_CONTAINS(top[0].message, "did you mean \"train\"?");

  const std::vector<ValidationIssue> deep = applyOverride(doc, "data.augment.flip=true");
  ASSERT_EQ(deep.size(), 1u);
  EXPECT_EQ(deep[0].path, "data.augment.flip");
  EXPECT_CONTAINS(deep[0].message, "\"horizontal_flip\"");
  EXPECT_EQ(doc, before);
}

TEST(ExperimentOverride, MissingEqualsSignIsAnIssue) {
  json doc = json::object();
  const std::vector<ValidationIssue> issues = applyOverride(doc, "train.epochs");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "");
  EXPECT_CONTAINS(issues[0].message, "has no '='");
  EXPECT_EQ(doc, json::object());
}

TEST(ExperimentOverride, MalformedPathsAndKeysInsideValues) {
  json doc = json::object();
  for (const char* assignment : {"=3", "train..epochs=1", "train.epochs[x]=1", "[0]=1", "train.=1"}) {
    const std::vector<ValidationIssue> issues = applyOverride(doc, assignment);
    ASSERT_EQ(issues.size(), 1u) << assignment;
    EXPECT_CONTAINS(issues[0].message, "is not a key path");
  }
  const std::vector<ValidationIssue> inside = applyOverride(doc, "train.batch_size.max=1");
  ASSERT_EQ(inside.size(), 1u);
  EXPECT_EQ(inside[0].path, "train.batch_size.max");
  const std::vector<ValidationIssue> notList = applyOverride(doc, "train.epochs[0]=1");
  ASSERT_EQ(notList.size(), 1u);
  EXPECT_CONTAINS(notList[0].message, "train.epochs is not a list");
  EXPECT_EQ(doc, json::object());
}

TEST(ExperimentOverride, ListItemsByIndexStartFromTheDefaultList) {
  json doc = json::object();
  expectApplies(doc, "optimizer.betas[0]=0.8");
  expectApplies(doc, "train.devices[1]=cuda:0");
  EXPECT_EQ(doc["optimizer"]["betas"], json::parse("[0.8, 0.999]"));
  EXPECT_EQ(doc["train"]["devices"], json::parse(R"(["cpu", "cuda:0"])"));
  const ParseResult result = parseExperiment(doc);
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_EQ(result.experiment.optimizer.beta1, 0.8);
  EXPECT_EQ(result.experiment.optimizer.beta2, 0.999);

  const std::vector<ValidationIssue> far = applyOverride(doc, "optimizer.betas[3]=0.5");
  ASSERT_EQ(far.size(), 1u);
  EXPECT_EQ(far[0].path, "optimizer.betas[3]");
  EXPECT_CONTAINS(far[0].message, "has 2 items");
}

// The layer list's contents belong to the model module: any key inside a layer may be set.
TEST(ExperimentOverride, LayerListContentsAreOpen) {
  json doc =
      json::parse(R"({"model": {"layers": [{"type": "flatten"}, {"type": "linear", "out_features": 10}]}})");
  expectApplies(doc, "model.layers[1].out_features=20");
  expectApplies(doc, "model.layers[2]={\"type\": \"relu\"}");
  EXPECT_EQ(doc["model"]["layers"][1]["out_features"], 20);
  EXPECT_EQ(doc["model"]["layers"][2]["type"], "relu");
}

// Overrides check paths, not values: a wrong value is the parser's to report, with its usual message.
TEST(ExperimentOverride, WrongValueIsReportedByTheParser) {
  json doc = json::object();
  expectApplies(doc, "train.batch_size=abc");
  const ParseResult result = parseExperiment(doc);
  EXPECT_EQ(test::messageAt(result.issues, "train.batch_size"),
            "expected a positive integer, got the string \"abc\"");
}

// A command line in a legacy encoding must give an issue, not an exception when the run folder is written.
TEST(ExperimentOverride, TextThatIsNotUtf8IsReportedByTheParser) {
  json doc = json::object();
  expectApplies(doc, "name=caf\xe9");
  expectApplies(doc, "model.layers=[{\"type\": \"relu\"}, {\"type\": \"caf\xe9\"}]");
  const ParseResult result = parseExperiment(doc);
  EXPECT_CONTAINS(test::messageAt(result.issues, "name"), "expected text in UTF-8");
  EXPECT_CONTAINS(test::messageAt(result.issues, "model.layers"), "expected text in UTF-8");
}

}  // namespace
}  // namespace wb
