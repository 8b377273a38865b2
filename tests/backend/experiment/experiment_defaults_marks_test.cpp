// Which values are defaults (what `runs compare` and the editor mark), and the recipe line a run's log starts
// with.

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workbench/experiment.h"
#include "workbench/experiment_defaults.h"

namespace wb {
namespace {

using nlohmann::json;

bool contains(const std::vector<std::string>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

TEST(DefaultedKeys, EveryKeyOfTheDefaultExperimentIsADefault) {
  const json doc = experimentToJson(Experiment{});
  const std::vector<std::string> keys = defaultedKeys(doc);
  EXPECT_GT(keys.size(), 70u);
  EXPECT_TRUE(contains(keys, "optimizer.betas"));  // lists are whole keys
  EXPECT_TRUE(contains(keys, "data.augment.enabled"));
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
}

TEST(DefaultedKeys, AChangedValueIsNotADefaultAndAKeyTheFileLacksIsNotListed) {
  json doc = experimentToJson(Experiment{});
  doc["train"]["epochs"] = 3;
  doc["data"]["augment"]["enabled"] = true;
  doc["optimizer"].erase("alpha");
  const std::vector<std::string> keys = defaultedKeys(doc);
  EXPECT_FALSE(contains(keys, "train.epochs"));
  EXPECT_FALSE(contains(keys, "data.augment.enabled"));
  EXPECT_FALSE(contains(keys, "optimizer.alpha"));
  EXPECT_TRUE(contains(keys, "train.batch_size"));
  // A whole number written as a float is the same value.
  doc["train"]["batch_size"] = 128.0;
  EXPECT_TRUE(contains(defaultedKeys(doc), "train.batch_size"));
}

// torch.optim's defaults differ by optimizer; a value is a default for the optimizer the document names.
TEST(DefaultedKeys, OptimizerDefaultsFollowTheOptimizerNamed) {
  json doc = experimentToJson(Experiment{});
  EXPECT_TRUE(contains(defaultedKeys(doc), "optimizer.weight_decay"));  // AdamW's 0.01
  doc["optimizer"]["name"] = "sgd";
  EXPECT_FALSE(
      contains(defaultedKeys(doc), "optimizer.name"));  // the default optimizer is AdamW, whatever is named
  EXPECT_FALSE(contains(defaultedKeys(doc), "optimizer.weight_decay"));  // SGD's is 0
  doc["optimizer"]["weight_decay"] = 0.0;
  EXPECT_TRUE(contains(defaultedKeys(doc), "optimizer.weight_decay"));
  doc["optimizer"]["name"] = "adagrad";
  EXPECT_FALSE(contains(defaultedKeys(doc), "optimizer.lr"));   // Adagrad's is 0.01
  EXPECT_FALSE(contains(defaultedKeys(doc), "optimizer.eps"));  // and 1e-10
  EXPECT_EQ(experimentDefaults(doc)["optimizer"]["eps"], json(1e-10));
  // A name the parser cannot read leaves the plain defaults (AdamW's).
  doc["optimizer"]["name"] = "adamx";
  EXPECT_EQ(experimentDefaults(doc)["optimizer"]["weight_decay"], json(0.01));
}

TEST(DefaultedKeys, TheParserGivesTheNamedOptimizersDefaultsToUnwrittenKeys) {
  const ParseResult parsed = parseExperiment(json::parse(R"({"optimizer": {"name": "rmsprop"}})"));
  ASSERT_TRUE(parsed.ok()) << formatIssues(parsed.issues);
  EXPECT_EQ(parsed.experiment.optimizer.lr, 1e-2);
  EXPECT_EQ(parsed.experiment.optimizer.weight_decay, 0.0);
  EXPECT_EQ(parsed.experiment.optimizer.momentum, 0.0);
  EXPECT_EQ(parsed.experiment.optimizer.alpha, 0.99);
  EXPECT_EQ(parsed.experiment.optimizer.eps, 1e-8);
}

TEST(TrainingRecipe, SaysWhatIsOnAndWhichAreDefaults) {
  Experiment e;
  EXPECT_EQ(
      describeTrainingRecipe(e),
      "Recipe: augmentation off (data.augment, default) · validation 10% of the training split held out "
      "(data.val_fraction, default) · schedule constant, lr 0.001 (schedule.name, default)");
  e.data.augment_enabled = true;
  e.data.augment.horizontal_flip = false;
  e.data.val_fraction = 0;
  e.schedule.name = ScheduleName::Cosine;
  e.schedule.warmup_steps = 100;
  EXPECT_EQ(
      describeTrainingRecipe(e),
      "Recipe: augmentation random crop (padding 2 px) (data.augment) · no validation split "
      "(data.val_fraction) · schedule cosine from lr 0.001 to 0 over the whole run, after 100 warmup steps "
      "(schedule.name)");
  // An image folder's crop is RandomResizedCrop(images.crop), not the padded random crop it has no keys for.
  e.data.dataset = DatasetName::ImageFolder;
  e.data.images.crop = 64;
  e.data.augment.horizontal_flip = true;
  EXPECT_EQ(
      describeTrainingRecipe(e),
      "Recipe: augmentation RandomResizedCrop(64) + horizontal flip (data.augment) · no validation split "
      "(data.val_fraction) · schedule cosine from lr 0.001 to 0 over the whole run, after 100 warmup "
      "steps (schedule.name)");
  e.data.augment.random_resized_crop = false;
  e.data.augment.horizontal_flip = false;
  EXPECT_EQ(
      describeTrainingRecipe(e).rfind("Recipe: augmentation on, but random_resized_crop (with images.crop) "
                                      "and horizontal_flip are off (data.augment)",
                                      0),
      0u);
  e.data.dataset = DatasetName::Csv;
  e.schedule.name = ScheduleName::Step;
  e.schedule.warmup_steps = 0;
  EXPECT_EQ(
      describeTrainingRecipe(e),
      "Recipe: no augmentation (tables are never augmented) · no validation split (data.val_fraction) · "
      "schedule step, lr 0.001 x0.1 every 1000 steps (schedule.name)");
}

}  // namespace
}  // namespace wb
