// What parseExperiment reports, and how: every issue at once, each at the JSON path of the key, saying what
// was expected and what was found, with the closest valid word for a misspelt key or value.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/experiment/experiment_test_support.h"
#include "workbench/experiment.h"

namespace wb {
namespace {

using test::issueAt;
using test::messageAt;
using test::parseText;

// --- unknown keys ---

TEST(ExperimentValidation, UnknownTopLevelKeySuggestsTheClosest) {
  const ParseResult result = parseText(R"({"trian": {"epochs": 2}})");
  EXPECT_EQ(messageAt(result.issues, "trian"), "unknown key \"trian\"; did you mean \"train\"?");
}

TEST(ExperimentValidation, UnknownNestedKeySuggestsTheClosest) {
  const ParseResult result = parseText(R"({"train": {"batchsize": 64, "epoch": 3},
                                           "data": {"augment": {"crop_pading": 4}}})");
  EXPECT_CONTAINS(messageAt(result.issues, "train.batchsize"), "did you mean \"batch_size\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "train.epoch"), "did you mean \"epochs\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "data.augment.crop_pading"), "did you mean \"crop_padding\"?");
}

TEST(ExperimentValidation, UnknownKeyWithNothingCloseListsTheValidKeys) {
  const ParseResult result = parseText(R"({"optimizer": {"learning_rate": 0.1}})");
  const std::string message = messageAt(result.issues, "optimizer.learning_rate");
  EXPECT_CONTAINS(message, "unknown key \"learning_rate\"");
  EXPECT_EQ(message.find("did you mean"), std::string::npos);
  EXPECT_CONTAINS(message, "in optimizer are");
  EXPECT_CONTAINS(message, "\"lr\"");
}

// --- wrong types ---

TEST(ExperimentValidation, WrongTypeSaysWhatWasExpectedAndFound) {
  const ParseResult result = parseText(R"({"train": {"batch_size": "abc", "amp": false, "early_stopping": 3},
                                           "optimizer": {"nesterov": "yes", "lr": [0.1]}, "name": 5})");
  EXPECT_EQ(messageAt(result.issues, "train.batch_size"),
            "expected a positive integer, got the string \"abc\"");
  EXPECT_EQ(messageAt(result.issues, "train.amp"), "expected one of \"off\", \"bf16\", \"fp16\", got false");
  EXPECT_CONTAINS(messageAt(result.issues, "train.early_stopping"), "expected true, false or an object");
  EXPECT_EQ(messageAt(result.issues, "optimizer.nesterov"), "expected true or false, got the string \"yes\"");
  EXPECT_EQ(messageAt(result.issues, "optimizer.lr"), "expected a number > 0, got the array [0.1]");
  EXPECT_EQ(messageAt(result.issues, "name"), "expected a string, got 5");
}

TEST(ExperimentValidation, NumberInQuotesGetsAHint) {
  const ParseResult result = parseText(R"({"train": {"epochs": "5"}, "optimizer": {"nesterov": "true"}})");
  EXPECT_EQ(messageAt(result.issues, "train.epochs"),
            "expected an integer in [0, 1000000], got the string \"5\" (write numbers without quotes)");
  EXPECT_CONTAINS(messageAt(result.issues, "optimizer.nesterov"), "without quotes");
}

TEST(ExperimentValidation, WholeIntegersWrittenAsDecimalsAreIntegers) {
  const ParseResult whole = parseText(R"({"train": {"epochs": 3.0, "batch_size": 64.0}, "seed": 7.0})");
  ASSERT_TRUE(whole.ok()) << formatIssues(whole.issues);
  EXPECT_EQ(whole.experiment.train.epochs, 3);
  EXPECT_EQ(whole.experiment.train.batch_size, 64);
  EXPECT_EQ(whole.experiment.seed, 7u);

  const ParseResult fractional = parseText(R"({"train": {"batch_size": 3.5}, "seed": -1})");
  EXPECT_EQ(messageAt(fractional.issues, "train.batch_size"), "expected a positive integer, got 3.5");
  EXPECT_EQ(messageAt(fractional.issues, "seed"), "expected an integer in [0, 2^64), got -1");
}

TEST(ExperimentValidation, SectionThatIsNotAnObject) {
  const ParseResult result = parseText(R"({"train": 5, "output": "runs"})");
  EXPECT_CONTAINS(messageAt(result.issues, "train"), "expected an object with the keys \"epochs\"");
  EXPECT_CONTAINS(messageAt(result.issues, "train"), "got 5");
  EXPECT_CONTAINS(messageAt(result.issues, "output"), "got the string \"runs\"");

  const ParseResult array = parseText(R"([1, 2])");
  EXPECT_CONTAINS(messageAt(array.issues, ""), "JSON object");
}

// --- out of range: each key with a value just outside its range, and the boundary that is still inside ---

struct RangeCase {
  const char* document;
  const char* path;
  const char* message;
};

TEST(ExperimentValidation, OutOfRangeValuesAreReportedAtTheirKey) {
  const RangeCase cases[] = {
      {R"({"train": {"batch_size": 0}})", "train.batch_size", "expected a positive integer, got 0"},
      {R"({"train": {"epochs": -1}})", "train.epochs", "expected an integer in [0, 1000000], got -1"},
      {R"({"train": {"max_steps": -5}})", "train.max_steps", "expected an integer ≥ 0, got -5"},
      {R"({"train": {"grad_accum": 0}})", "train.grad_accum", "expected a positive integer, got 0"},
      {R"({"train": {"clip_grad_norm": -1}})", "train.clip_grad_norm", "expected a number ≥ 0, got -1"},
      {R"({"train": {"threads": -2}})", "train.threads", "expected an integer in [0, 4096], got -2"},
      {R"({"train": {"log_every_steps": 0}})", "train.log_every_steps", "expected a positive integer, got 0"},
      {R"({"train": {"eval_every_epochs": 0}})", "train.eval_every_epochs",
       "expected a positive integer, got 0"},
      {R"({"train": {"early_stopping": {"patience": 0}}})", "train.early_stopping.patience",
       "expected a positive integer, got 0"},
      {R"({"train": {"early_stopping": {"min_delta": -0.1}}})", "train.early_stopping.min_delta",
       "expected a number ≥ 0, got -0.1"},
      {R"({"optimizer": {"lr": 0}})", "optimizer.lr", "expected a number > 0, got 0"},
      {R"({"optimizer": {"weight_decay": -0.01}})", "optimizer.weight_decay",
       "expected a number ≥ 0, got -0.01"},
      {R"({"optimizer": {"momentum": -0.5}})", "optimizer.momentum", "expected a number ≥ 0, got -0.5"},
      {R"({"optimizer": {"eps": 0}})", "optimizer.eps", "expected a number > 0, got 0"},
      {R"({"optimizer": {"betas": [0.9, 1.0]}})", "optimizer.betas[1]",
       "expected a number in [0, 1), got 1.0"},
      {R"({"optimizer": {"betas": [-0.1, 0.9]}})", "optimizer.betas[0]",
       "expected a number in [0, 1), got -0.1"},
      {R"({"optimizer": {"betas": [0.9]}})", "optimizer.betas",
       "expected two numbers in [0, 1) such as [0.9, 0.999], got the array [0.9]"},
      {R"({"data": {"val_fraction": 1}})", "data.val_fraction", "expected a number in [0, 1), got 1"},
      {R"({"data": {"val_fraction": -0.1}})", "data.val_fraction", "expected a number in [0, 1), got -0.1"},
      {R"({"data": {"limit": -1}})", "data.limit", "expected an integer ≥ 0, got -1"},
      {R"({"data": {"augment": {"crop_padding": -2}}})", "data.augment.crop_padding",
       "expected an integer ≥ 0, got -2"},
      {R"({"data": {"synthetic": {"classes": 1}}})", "data.synthetic.classes",
       "expected an integer ≥ 2, got 1"},
      {R"({"data": {"synthetic": {"shape": [1, 0, 28]}}})", "data.synthetic.shape[1]",
       "expected a positive integer, got 0"},
      {R"({"data": {"synthetic": {"shape": []}}})", "data.synthetic.shape",
       "expected 1 to 3 positive integers ([channels, height, width] or [features]), got the array []"},
      {R"({"schedule": {"gamma": 0}})", "schedule.gamma", "expected a number > 0, got 0"},
      {R"({"schedule": {"warmup_start_factor": 0}})", "schedule.warmup_start_factor",
       "expected a number in (0, 1], got 0"},
      {R"({"schedule": {"warmup_start_factor": 1.5}})", "schedule.warmup_start_factor",
       "expected a number in (0, 1], got 1.5"},
      {R"({"schedule": {"pct_start": 1}})", "schedule.pct_start", "expected a number in (0, 1), got 1"},
      {R"({"schedule": {"warmup_steps": -1}})", "schedule.warmup_steps", "expected an integer ≥ 0, got -1"},
      {R"({"schedule": {"step_size": 0}})", "schedule.step_size", "expected a positive integer, got 0"},
      {R"({"schedule": {"milestones": [0, 10]}})", "schedule.milestones[0]",
       "expected a positive integer, got 0"},
      {R"({"schedule": {"factor": 1}})", "schedule.factor", "expected a number in (0, 1), got 1"},
  };
  for (const RangeCase& c : cases) {
    SCOPED_TRACE(c.document);
    const ParseResult result = parseText(c.document);
    EXPECT_EQ(messageAt(result.issues, c.path), c.message);
    EXPECT_EQ(result.issues.size(), 1u) << formatIssues(result.issues);
  }
}

// Values that would overflow what they become inside the engine are refused with their bound: minutes on the
// checkpoint timer's nanosecond clock (1e9 minutes is ~1.9e18 ns, near int64's limit; a year is the bound),
// threads (an int for LibTorch and OpenBLAS), epochs (x steps an epoch in int64).
TEST(ExperimentValidation, ValuesThatWouldOverflowInternalTypesAreBounded) {
  const RangeCase cases[] = {
      {R"({"train": {"checkpoint_every_minutes": 1e9}})", "train.checkpoint_every_minutes",
       "expected a number of minutes in [0, 525600] (0 = off; at most a year), got 1000000000.0"},
      {R"({"train": {"checkpoint_every_minutes": 525600.5}})", "train.checkpoint_every_minutes",
       "expected a number of minutes in [0, 525600] (0 = off; at most a year), got 525600.5"},
      {R"({"train": {"checkpoint_every_minutes": -1}})", "train.checkpoint_every_minutes",
       "expected a number of minutes in [0, 525600] (0 = off; at most a year), got -1"},
      {R"({"train": {"threads": 3000000000}})", "train.threads",
       "expected an integer in [0, 4096], got 3000000000"},
      {R"({"train": {"blas_threads": 5000}})", "train.blas_threads",
       "expected an integer in [0, 4096], got 5000"},
      {R"({"train": {"epochs": 1000000000000}})", "train.epochs",
       "expected an integer in [0, 1000000], got 1000000000000"},
  };
  for (const RangeCase& c : cases) {
    SCOPED_TRACE(c.document);
    const ParseResult result = parseText(c.document);
    EXPECT_EQ(messageAt(result.issues, c.path), c.message);
    EXPECT_EQ(result.issues.size(), 1u) << formatIssues(result.issues);
  }
  const ParseResult bounds = parseText(R"({"train": {"checkpoint_every_minutes": 525600, "threads": 4096,
                                                     "blas_threads": 4096, "epochs": 1000000}})");
  EXPECT_TRUE(bounds.ok()) << formatIssues(bounds.issues);
  EXPECT_EQ(bounds.experiment.train.checkpoint_every_minutes, 525600.0);

  // The same through a --set override (the CLI's and the window's path).
  nlohmann::json doc = nlohmann::json::object();
  std::vector<ValidationIssue> issues = applyOverride(doc, "train.checkpoint_every_minutes=1e9");
  if (issues.empty()) issues = parseExperiment(doc).issues;
  EXPECT_CONTAINS(messageAt(issues, "train.checkpoint_every_minutes"), "at most a year");
}

TEST(ExperimentValidation, BoundariesInsideTheRangeAreAccepted) {
  const ParseResult result = parseText(R"({
    "data": {"val_fraction": 0, "limit": 0},
    "optimizer": {"betas": [0, 0.999999], "momentum": 0, "weight_decay": 0},
    "schedule": {"warmup_start_factor": 1, "milestones": [1, 2]},
    "train": {"epochs": 0, "max_steps": 1, "threads": 0, "clip_grad_norm": 0}
  })");
  EXPECT_TRUE(result.ok()) << formatIssues(result.issues);
}

TEST(ExperimentValidation, MilestonesMustIncreaseStrictly) {
  const ParseResult result = parseText(R"({"schedule": {"milestones": [100, 300, 300]}})");
  EXPECT_CONTAINS(messageAt(result.issues, "schedule.milestones[2]"), "greater than the one before it (300)");
}

// --- enums ---

TEST(ExperimentValidation, UnknownChoiceSuggestsTheClosest) {
  const ParseResult result = parseText(R"({
    "optimizer": {"name": "Adam"},
    "schedule": {"name": "consine", "mode": "MAX", "anneal_strategy": "cosine", "threshold_mode": "relative"},
    "data": {"dataset": "fashion_mnist"},
    "model": {"preset": "resnet_18"},
    "train": {"amp": "fp32", "early_stopping": {"metric": "val_acc"}}
  })");
  EXPECT_EQ(
      messageAt(result.issues, "optimizer.name"),
      "expected one of \"sgd\", \"adam\", \"adamw\", \"rmsprop\", \"adagrad\", got the string \"Adam\"; "
      "did you mean \"adam\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "schedule.name"), "did you mean \"cosine\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "schedule.mode"), "did you mean \"max\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "schedule.anneal_strategy"), "one of \"cos\", \"linear\"");
  EXPECT_CONTAINS(messageAt(result.issues, "schedule.threshold_mode"), "one of \"rel\", \"abs\"");
  EXPECT_CONTAINS(messageAt(result.issues, "data.dataset"), "did you mean \"fashion-mnist\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "model.preset"), "did you mean \"resnet18\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "train.amp"), "got the string \"fp32\"");
  EXPECT_CONTAINS(messageAt(result.issues, "train.early_stopping.metric"), "\"val_loss\", \"val_accuracy\"");
}

TEST(ExperimentValidation, ChoiceWithStraySpaceSuggestsItself) {
  const ParseResult result = parseText(R"({"optimizer": {"name": "adamw "}})");
  EXPECT_CONTAINS(messageAt(result.issues, "optimizer.name"), "did you mean \"adamw\"?");
}

TEST(ExperimentValidation, DevicesAreCheckedByName) {
  const ParseResult result =
      parseText(R"({"train": {"devices": ["cpu", "gpu", "cuda1", "CPU", "tpu", "cuda:x"]}})");
  EXPECT_CONTAINS(messageAt(result.issues, "train.devices[1]"), "did you mean \"cuda\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "train.devices[2]"), "did you mean \"cuda:1\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "train.devices[3]"), "did you mean \"cpu\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "train.devices[4]"),
                  "expected \"cpu\", \"cpu:N\" (N CPU ranks), \"cuda\" or \"cuda:N\" (N = 0, 1, ...), "
                  "got the string \"tpu\"");
  EXPECT_NE(issueAt(result.issues, "train.devices[5]"), nullptr);
  EXPECT_EQ(issueAt(result.issues, "train.devices[0]"), nullptr);

  const ParseResult fine = parseText(R"({"train": {"devices": ["cuda:0", "cuda:1", "cpu"]}})");
  ASSERT_TRUE(fine.ok()) << formatIssues(fine.issues);
  EXPECT_EQ(fine.experiment.train.devices, (std::vector<std::string>{"cuda:0", "cuda:1", "cpu"}));
}

TEST(ExperimentValidation, DuplicateAndMissingDevices) {
  const ParseResult twice = parseText(R"({"train": {"devices": ["cuda:0", "cuda:1", "cuda:0"]}})");
  EXPECT_EQ(messageAt(twice.issues, "train.devices[2]"),
            "\"cuda:0\" is listed twice: each CUDA device runs one rank, name it once");
  // "cuda" is cuda:0.
  const ParseResult alias = parseText(R"({"train": {"devices": ["cuda:0", "cuda"]}})");
  EXPECT_CONTAINS(messageAt(alias.issues, "train.devices[1]"), "\"cuda\" is listed twice (it is cuda:0)");
  const ParseResult none = parseText(R"({"train": {"devices": []}})");
  EXPECT_CONTAINS(messageAt(none.issues, "train.devices"), "got the array []");
}

// --- data parallel ---

// Each entry is a rank: the CPU may be listed as often as it should have ranks, and "cpu:N" is N of them.
TEST(ExperimentValidation, CpuRanksHaveThreeSpellings) {
  const char* documents[] = {
      R"({"train": {"devices": "cpu:2"}})",
      R"({"train": {"devices": ["cpu:2"]}})",
      R"({"train": {"devices": ["cpu", "cpu"]}})",
      R"({"train": {"devices": ["cpu:1", "cpu"]}})",
  };
  for (const char* document : documents) {
    SCOPED_TRACE(document);
    const ParseResult result = parseText(document);
    ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
    EXPECT_EQ(result.experiment.train.devices, (std::vector<std::string>{"cpu", "cpu"}));
  }
  const ParseResult four = parseText(R"({"train": {"devices": ["cpu:3", "cpu"]}})");
  ASSERT_TRUE(four.ok()) << formatIssues(four.issues);
  EXPECT_EQ(four.experiment.train.devices.size(), 4u);
  const ParseResult most = parseText(R"({"train": {"devices": "cpu:1024"}})");
  ASSERT_TRUE(most.ok()) << formatIssues(most.issues);
  EXPECT_EQ(most.experiment.train.devices.size(), 1024u);
}

TEST(ExperimentValidation, BadCpuRankCounts) {
  const ParseResult zero = parseText(R"({"train": {"devices": "cpu:0"}})");
  EXPECT_EQ(messageAt(zero.issues, "train.devices"),
            "expected \"cpu:N\" with N in [1, 1024] (N CPU ranks), got the string \"cpu:0\"; for one CPU "
            "rank write \"cpu\"");
  const ParseResult many = parseText(R"({"train": {"devices": ["cpu", "cpu:2048"]}})");
  EXPECT_CONTAINS(messageAt(many.issues, "train.devices[1]"), "with N in [1, 1024]");
  EXPECT_EQ(issueAt(many.issues, "train.devices[0]"), nullptr);

  const ParseResult letters =
      parseText(R"({"train": {"devices": ["cpu:x", "cpu:", "cpu:-1", "CPU:2", "cpu2"]}})");
  EXPECT_CONTAINS(messageAt(letters.issues, "train.devices[0]"), "got the string \"cpu:x\"");
  EXPECT_CONTAINS(messageAt(letters.issues, "train.devices[0]"), "\"cpu:N\" (N CPU ranks)");
  EXPECT_CONTAINS(messageAt(letters.issues, "train.devices[1]"), "got the string \"cpu:\"");
  EXPECT_CONTAINS(messageAt(letters.issues, "train.devices[2]"), "got the string \"cpu:-1\"");
  EXPECT_CONTAINS(messageAt(letters.issues, "train.devices[3]"), "did you mean \"cpu:2\"?");
  EXPECT_CONTAINS(messageAt(letters.issues, "train.devices[4]"), "did you mean \"cpu:2\"?");
  // The default stays when the list is not valid.
  EXPECT_EQ(letters.experiment.train.devices, std::vector<std::string>{"cpu"});
}

TEST(ExperimentValidation, DataParallelKeys) {
  const ParseResult result =
      parseText(R"({"train": {"bucket_mb": 4.5, "sync_batchnorm": true, "collective_timeout": 10}})");
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_EQ(result.experiment.train.bucket_mb, 4.5);
  EXPECT_TRUE(result.experiment.train.sync_batchnorm);
  EXPECT_EQ(result.experiment.train.collective_timeout, 10.0);

  const ParseResult defaults = parseText("{}");
  EXPECT_EQ(defaults.experiment.train.bucket_mb, 25.0);
  EXPECT_FALSE(defaults.experiment.train.sync_batchnorm);
  EXPECT_EQ(defaults.experiment.train.collective_timeout, 300.0);
}

TEST(ExperimentValidation, ShardLevelIsOneOfFourWords) {
  for (const auto& [word, level] :
       std::vector<std::pair<std::string, ShardLevel>>{{"none", ShardLevel::None},
                                                       {"optimizer", ShardLevel::Optimizer},
                                                       {"gradients", ShardLevel::Gradients},
                                                       {"parameters", ShardLevel::Parameters}}) {
    const ParseResult result = parseText(R"({"train": {"shard": ")" + word + R"("}})");
    ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
    EXPECT_EQ(result.experiment.train.shard, level) << word;
  }
  EXPECT_EQ(parseText("{}").experiment.train.shard, ShardLevel::None);
  const ParseResult typo = parseText(R"({"train": {"shard": "optimiser"}})");
  EXPECT_CONTAINS(messageAt(typo.issues, "train.shard"), "did you mean \"optimizer\"?");
}

TEST(ExperimentValidation, BucketSizeBounds) {
  for (const char* good : {"1e-3", "1024", "0.5", "25"}) {
    SCOPED_TRACE(good);
    const ParseResult result = parseText(std::string(R"({"train": {"bucket_mb": )") + good + "}}");
    EXPECT_TRUE(result.ok()) << formatIssues(result.issues);
  }
  const ParseResult zero = parseText(R"({"train": {"bucket_mb": 0}})");
  EXPECT_EQ(messageAt(zero.issues, "train.bucket_mb"),
            "expected a number of megabytes in (0, 1024] (gradients allreduced together), got 0");
  const ParseResult big = parseText(R"({"train": {"bucket_mb": 1024.5}})");
  EXPECT_CONTAINS(messageAt(big.issues, "train.bucket_mb"), "in (0, 1024]");
  const ParseResult negative = parseText(R"({"train": {"bucket_mb": -1}})");
  EXPECT_CONTAINS(messageAt(negative.issues, "train.bucket_mb"), "got -1");
  const ParseResult quoted = parseText(R"({"train": {"bucket_mb": "25"}})");
  EXPECT_CONTAINS(messageAt(quoted.issues, "train.bucket_mb"), "(write numbers without quotes)");
  EXPECT_EQ(quoted.experiment.train.bucket_mb, 25.0);
}

TEST(ExperimentValidation, CollectiveTimeoutBounds) {
  for (const char* good : {"1", "86400", "300", "2.5"}) {
    SCOPED_TRACE(good);
    const ParseResult result = parseText(std::string(R"({"train": {"collective_timeout": )") + good + "}}");
    EXPECT_TRUE(result.ok()) << formatIssues(result.issues);
  }
  const ParseResult short_ = parseText(R"({"train": {"collective_timeout": 0.5}})");
  EXPECT_EQ(messageAt(short_.issues, "train.collective_timeout"),
            "expected a number of seconds in [1, 86400] (one second to one day), got 0.5");
  const ParseResult long_ = parseText(R"({"train": {"collective_timeout": 86401}})");
  EXPECT_CONTAINS(messageAt(long_.issues, "train.collective_timeout"), "got 86401");
  const ParseResult text = parseText(R"({"train": {"collective_timeout": "5m", "sync_batchnorm": "yes"}})");
  EXPECT_CONTAINS(messageAt(text.issues, "train.collective_timeout"), "got the string \"5m\"");
  EXPECT_EQ(messageAt(text.issues, "train.sync_batchnorm"), "expected true or false, got the string \"yes\"");
}

TEST(ExperimentValidation, DataParallelKeysSuggestTheirSpelling) {
  const ParseResult result =
      parseText(R"({"train": {"bucket_mbs": 25, "collective_timout": 60, "sync_batch_norm": true}})");
  EXPECT_CONTAINS(messageAt(result.issues, "train.bucket_mbs"), "did you mean \"bucket_mb\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "train.collective_timout"),
                  "did you mean \"collective_timeout\"?");
  EXPECT_CONTAINS(messageAt(result.issues, "train.sync_batch_norm"), "did you mean \"sync_batchnorm\"?");
}

// --- model ---

TEST(ExperimentValidation, LayerListAloneNeedsNoPreset) {
  const ParseResult result = parseText(R"({"model": {"layers": [{"type": "flatten"}, {"type": "linear",
                                                                  "out_features": 10}]}})");
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_EQ(result.experiment.model.preset, "");
  EXPECT_EQ(result.experiment.model.layers.size(), 2u);
  EXPECT_EQ(result.experiment.model.layers[1]["out_features"], 10);

  const ParseResult script = parseText(R"({"model": {"torchscript": "net.pt", "preset": ""}})");
  ASSERT_TRUE(script.ok()) << formatIssues(script.issues);
  EXPECT_EQ(script.experiment.model.preset, "");
  EXPECT_EQ(script.experiment.model.torchscript, "net.pt");
}

TEST(ExperimentValidation, LayerListOutlineIsChecked) {
  const ParseResult result =
      parseText(R"({"model": {"layers": [{"type": "flatten"}, {"type": 3}, 5, {"out_features": 10}]}})");
  EXPECT_CONTAINS(messageAt(result.issues, "model.layers[1].type"), "got 3");
  EXPECT_CONTAINS(messageAt(result.issues, "model.layers[2]"), "expected a layer object");
  EXPECT_CONTAINS(messageAt(result.issues, "model.layers[3]"), "needs a \"type\"");
  EXPECT_EQ(result.issues.size(), 3u) << formatIssues(result.issues);

  const ParseResult empty = parseText(R"({"model": {"layers": []}})");
  EXPECT_CONTAINS(messageAt(empty.issues, "model.layers"), "expected a list of layers");
}

TEST(ExperimentValidation, EmptyPresetWithNoOtherModelIsReported) {
  const ParseResult result = parseText(R"({"model": {"preset": ""}})");
  EXPECT_CONTAINS(messageAt(result.issues, "model.preset"), "no model given");
}

// --- inconsistent combinations ---

TEST(ExperimentValidation, PresetTogetherWithLayersNamesBoth) {
  const ParseResult result = parseText(R"({"model": {"preset": "mlp", "layers": [{"type": "flatten"}]}})");
  const std::string message = messageAt(result.issues, "model.preset");
  EXPECT_CONTAINS(message, "model.preset (\"mlp\")");
  EXPECT_CONTAINS(message, "model.layers");
  EXPECT_EQ(result.issues.size(), 1u) << formatIssues(result.issues);
}

TEST(ExperimentValidation, LayersTogetherWithTorchScript) {
  const ParseResult result =
      parseText(R"({"model": {"layers": [{"type": "flatten"}], "torchscript": "a.pt"}})");
  EXPECT_CONTAINS(messageAt(result.issues, "model.layers"), "model.torchscript");
}

// A Hugging Face folder is the model (no preset) and, unless another is named, its tokenizer is the texts'.
TEST(ExperimentValidation, AHuggingFaceFolderIsTheModelAndItsTokenizerTheTexts) {
  const ParseResult result =
      parseText(R"({"data": {"dataset": "text", "path": "r.csv"}, "model": {"huggingface": "/m/bert"}})");
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_EQ(result.experiment.model.preset, "");
  EXPECT_EQ(result.experiment.data.text.tokenizer, "/m/bert");
  const ParseResult own = parseText(R"({"data": {"dataset": "text", "path": "r.csv", "text": {"tokenizer":
      "/t/tokenizer.json"}}, "model": {"huggingface": "/m/bert"}})");
  ASSERT_TRUE(own.ok()) << formatIssues(own.issues);
  EXPECT_EQ(own.experiment.data.text.tokenizer, "/t/tokenizer.json");
  const ParseResult both = parseText(R"({"model": {"torchscript": "a.pt", "huggingface": "/m/bert"}})");
  EXPECT_CONTAINS(messageAt(both.issues, "model.torchscript"), "model.huggingface are both given");
}

TEST(ExperimentValidation, TextsAndTextModelsComeTogether) {
  const ParseResult texts = parseText(R"({"data": {"dataset": "text", "path": "r.csv"}})");
  EXPECT_CONTAINS(messageAt(texts.issues, "model.huggingface"), "the text dataset trains a text model");
  const ParseResult noPath =
      parseText(R"({"data": {"dataset": "text"}, "model": {"huggingface": "/m/bert"}})");
  EXPECT_CONTAINS(messageAt(noPath.issues, "data.path"), "the text dataset needs data.path");
  const ParseResult images = parseText(R"({"model": {"huggingface": "/m/bert"}})");
  EXPECT_CONTAINS(messageAt(images.issues, "model.huggingface"), "data.dataset is \"fashion-mnist\"");
}

TEST(ExperimentValidation, EarlyStoppingWithoutValidation) {
  const ParseResult result = parseText(R"({"data": {"val_fraction": 0}, "train": {"early_stopping": true}})");
  const std::string message = messageAt(result.issues, "train.early_stopping");
  EXPECT_CONTAINS(message, "data.val_fraction is 0");
  EXPECT_EQ(result.issues.size(), 1u);

  const ParseResult off = parseText(R"({"data": {"val_fraction": 0}, "train": {"early_stopping": false}})");
  EXPECT_TRUE(off.ok()) << formatIssues(off.issues);
}

TEST(ExperimentValidation, PlateauScheduleWithoutValidation) {
  const ParseResult result = parseText(R"({"data": {"val_fraction": 0}, "schedule": {"name": "plateau"}})");
  EXPECT_CONTAINS(messageAt(result.issues, "schedule.name"), "data.val_fraction is 0");
}

TEST(ExperimentValidation, NesterovNeedsSgdWithMomentum) {
  const ParseResult noMomentum =
      parseText(R"({"optimizer": {"name": "sgd", "momentum": 0, "nesterov": true}})");
  EXPECT_CONTAINS(messageAt(noMomentum.issues, "optimizer.nesterov"), "optimizer.momentum > 0");

  const ParseResult notSgd = parseText(R"({"optimizer": {"name": "adam", "nesterov": true}})");
  EXPECT_CONTAINS(messageAt(notSgd.issues, "optimizer.nesterov"), "optimizer.name is \"adam\"");

  const ParseResult fine = parseText(R"({"optimizer": {"name": "sgd", "momentum": 0.9, "nesterov": true}})");
  EXPECT_TRUE(fine.ok()) << formatIssues(fine.issues);
}

TEST(ExperimentValidation, NothingToTrain) {
  const ParseResult result = parseText(R"({"train": {"epochs": 0, "max_steps": 0}})");
  EXPECT_CONTAINS(messageAt(result.issues, "train.epochs"), "both 0");
}

TEST(ExperimentValidation, CsvNeedsAPathAndMultistepNeedsMilestones) {
  const ParseResult result = parseText(R"({"data": {"dataset": "csv"}, "schedule": {"name": "multistep"}})");
  EXPECT_CONTAINS(messageAt(result.issues, "data.path"), "csv dataset needs data.path");
  EXPECT_CONTAINS(messageAt(result.issues, "schedule.milestones"), "at least one milestone");
}

// A combination check stays quiet when one of its keys is wrong itself: the user sees the cause only.
TEST(ExperimentValidation, CombinationOfAnInvalidKeyIsNotReportedTwice) {
  const ParseResult result = parseText(R"({"optimizer": {"name": "sgdd", "nesterov": true}})");
  EXPECT_CONTAINS(messageAt(result.issues, "optimizer.name"), "did you mean \"sgd\"?");
  EXPECT_EQ(result.issues.size(), 1u) << formatIssues(result.issues);
}

// --- all at once ---

TEST(ExperimentValidation, AllIssuesAreReportedAtOnce) {
  const ParseResult result = parseText(R"({
    "trian": {},
    "data": {"val_fraction": 0, "dataset": "mnst"},
    "optimizer": {"lr": -1, "betas": [0.9, 2]},
    "train": {"batch_size": "abc", "early_stopping": {"metric": "val_loss"}},
    "model": {"preset": "cnn", "layers": [{"type": "flatten"}]}
  })");
  EXPECT_FALSE(result.ok());
  const std::vector<std::string> paths = {"trian",
                                          "data.dataset",
                                          "optimizer.lr",
                                          "optimizer.betas[1]",
                                          "train.batch_size",
                                          "train.early_stopping",
                                          "model.preset"};
  for (const std::string& path : paths) EXPECT_NE(issueAt(result.issues, path), nullptr) << path;
  EXPECT_EQ(result.issues.size(), paths.size()) << formatIssues(result.issues);
}

TEST(ExperimentValidation, FormatIssuesWritesOneLinePerIssue) {
  const std::vector<ValidationIssue> issues = {
      {"train.batch_size", "expected a positive integer, got 0"},
      {"", "experiment file \"x.json\" does not exist"},
  };
  EXPECT_EQ(formatIssues(issues),
            "  train.batch_size: expected a positive integer, got 0\n"
            "  experiment file \"x.json\" does not exist\n");
  EXPECT_EQ(formatIssues({}), "");
}

}  // namespace
}  // namespace wb
