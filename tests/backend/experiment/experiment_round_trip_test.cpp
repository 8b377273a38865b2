// experimentToJson and parseExperiment are inverses: a run folder's experiment.json gives back the very
// experiment that was trained, and the written form of a parsed file does not drift when written again.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/experiment/experiment_test_support.h"
#include "workbench/experiment.h"

namespace wb {
namespace {

using nlohmann::json;

// Every field away from its default (and still a valid experiment), so a field the file forgets shows up.
Experiment everyFieldChanged() {
  Experiment e;
  e.name = "iris-layers";
  e.seed = std::numeric_limits<uint64_t>::max();
  e.data.dataset = DatasetName::Csv;
  e.data.path = "data/iris.csv";
  e.data.limit = 120;
  e.data.val_fraction = 0.25;
  e.data.augment_enabled = true;
  e.data.augment.random_crop = false;
  e.data.augment.crop_padding = 4;
  e.data.augment.horizontal_flip = false;
  e.data.label_column = "species";
  e.data.test_path = "data/iris-test.csv";
  e.data.test_fraction = 0.15;
  e.data.synthetic_samples = 512;
  e.data.synthetic_classes = 3;
  e.data.synthetic_shape = {3, 32, 32};
  e.model.preset = "";
  e.model.layers = json::parse(R"([{"type": "linear", "out_features": 16}, {"type": "relu"},
                                   {"type": "linear", "out_features": 3, "bias": false}])");
  e.optimizer.name = OptimizerName::Sgd;
  e.optimizer.lr = 0.1 + 0.2;  // not exactly 0.3: doubles must survive bit for bit
  e.optimizer.weight_decay = 5e-4;
  e.optimizer.momentum = 0.95;
  e.optimizer.nesterov = true;
  e.optimizer.beta1 = 0.8;
  e.optimizer.beta2 = 0.95;
  e.optimizer.eps = 1e-6;
  e.optimizer.alpha = 0.9;
  e.optimizer.decay_bias_and_norm = false;
  e.optimizer.fused = false;
  e.schedule.name = ScheduleName::MultiStep;
  e.schedule.warmup_steps = 100;
  e.schedule.warmup_start_factor = 0.1;
  e.schedule.step_size = 30;
  e.schedule.milestones = {300, 600, 900};
  e.schedule.gamma = 0.5;
  e.schedule.t_max = 5000;
  e.schedule.eta_min = 1e-6;
  e.schedule.pct_start = 0.25;
  e.schedule.anneal_strategy = AnnealStrategy::Linear;
  e.schedule.div_factor = 10.0;
  e.schedule.final_div_factor = 100.0;
  e.schedule.three_phase = true;
  e.schedule.plateau_mode = PlateauMode::Max;
  e.schedule.factor = 0.5;
  e.schedule.patience = 2;
  e.schedule.threshold = 1e-3;
  e.schedule.threshold_mode = ThresholdMode::Abs;
  e.schedule.cooldown = 1;
  e.schedule.min_lr = 1e-5;
  e.train.epochs = 40;
  e.train.max_steps = 1000;
  e.train.batch_size = 16;
  e.train.grad_accum = 4;
  e.train.clip_grad_norm = 1.0;
  e.train.amp = Precision::Bf16;
  e.train.devices = {"cuda:0", "cuda:1"};
  e.train.bucket_mb = 8.0;
  e.train.sync_batchnorm = true;
  e.train.collective_timeout = 30.0;
  e.train.threads = 4;
  e.train.blas_threads = 2;
  e.train.cudnn_benchmark = false;
  e.train.tf32 = false;
  e.train.channels_last = true;
  e.train.pinned_memory = false;
  e.train.data_on_device = AutoSwitch::Off;
  e.train.cuda_graphs = AutoSwitch::On;
  e.train.eval_every_epochs = 2;
  e.train.log_every_steps = 5;
  e.train.checkpoint_every_steps = 50;
  e.train.checkpoint_every_minutes = 2.5;
  e.train.keep_checkpoints = 4;
  e.train.early_stopping.enabled = true;
  e.train.early_stopping.metric = ValidationMetric::ValAccuracy;
  e.train.early_stopping.patience = 6;
  e.train.early_stopping.min_delta = 0.001;
  e.output.runs_dir = "/tmp/workbench-runs";
  return e;
}

void expectSameExperiment(const Experiment& a, const Experiment& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.data.dataset, b.data.dataset);
  EXPECT_EQ(a.data.path, b.data.path);
  EXPECT_EQ(a.data.limit, b.data.limit);
  EXPECT_EQ(a.data.val_fraction, b.data.val_fraction);
  EXPECT_EQ(a.data.augment_enabled, b.data.augment_enabled);
  EXPECT_EQ(a.data.augment.random_crop, b.data.augment.random_crop);
  EXPECT_EQ(a.data.augment.crop_padding, b.data.augment.crop_padding);
  EXPECT_EQ(a.data.augment.horizontal_flip, b.data.augment.horizontal_flip);
  EXPECT_EQ(a.data.label_column, b.data.label_column);
  EXPECT_EQ(a.data.test_path, b.data.test_path);
  EXPECT_EQ(a.data.test_fraction, b.data.test_fraction);
  EXPECT_EQ(a.data.synthetic_samples, b.data.synthetic_samples);
  EXPECT_EQ(a.data.synthetic_classes, b.data.synthetic_classes);
  EXPECT_EQ(a.data.synthetic_shape, b.data.synthetic_shape);
  EXPECT_EQ(a.model.preset, b.model.preset);
  EXPECT_EQ(a.model.layers, b.model.layers);
  EXPECT_EQ(a.model.torchscript, b.model.torchscript);
  EXPECT_EQ(a.optimizer.name, b.optimizer.name);
  EXPECT_EQ(a.optimizer.lr, b.optimizer.lr);
  EXPECT_EQ(a.optimizer.weight_decay, b.optimizer.weight_decay);
  EXPECT_EQ(a.optimizer.momentum, b.optimizer.momentum);
  EXPECT_EQ(a.optimizer.nesterov, b.optimizer.nesterov);
  EXPECT_EQ(a.optimizer.beta1, b.optimizer.beta1);
  EXPECT_EQ(a.optimizer.beta2, b.optimizer.beta2);
  EXPECT_EQ(a.optimizer.eps, b.optimizer.eps);
  EXPECT_EQ(a.optimizer.alpha, b.optimizer.alpha);
  EXPECT_EQ(a.optimizer.decay_bias_and_norm, b.optimizer.decay_bias_and_norm);
  EXPECT_EQ(a.optimizer.fused, b.optimizer.fused);
  EXPECT_EQ(a.schedule.name, b.schedule.name);
  EXPECT_EQ(a.schedule.warmup_steps, b.schedule.warmup_steps);
  EXPECT_EQ(a.schedule.warmup_start_factor, b.schedule.warmup_start_factor);
  EXPECT_EQ(a.schedule.step_size, b.schedule.step_size);
  EXPECT_EQ(a.schedule.milestones, b.schedule.milestones);
  EXPECT_EQ(a.schedule.gamma, b.schedule.gamma);
  EXPECT_EQ(a.schedule.t_max, b.schedule.t_max);
  EXPECT_EQ(a.schedule.eta_min, b.schedule.eta_min);
  EXPECT_EQ(a.schedule.pct_start, b.schedule.pct_start);
  EXPECT_EQ(a.schedule.anneal_strategy, b.schedule.anneal_strategy);
  EXPECT_EQ(a.schedule.div_factor, b.schedule.div_factor);
  EXPECT_EQ(a.schedule.final_div_factor, b.schedule.final_div_factor);
  EXPECT_EQ(a.schedule.three_phase, b.schedule.three_phase);
  EXPECT_EQ(a.schedule.plateau_mode, b.schedule.plateau_mode);
  EXPECT_EQ(a.schedule.factor, b.schedule.factor);
  EXPECT_EQ(a.schedule.patience, b.schedule.patience);
  EXPECT_EQ(a.schedule.threshold, b.schedule.threshold);
  EXPECT_EQ(a.schedule.threshold_mode, b.schedule.threshold_mode);
  EXPECT_EQ(a.schedule.cooldown, b.schedule.cooldown);
  EXPECT_EQ(a.schedule.min_lr, b.schedule.min_lr);
  EXPECT_EQ(a.train.epochs, b.train.epochs);
  EXPECT_EQ(a.train.max_steps, b.train.max_steps);
  EXPECT_EQ(a.train.batch_size, b.train.batch_size);
  EXPECT_EQ(a.train.grad_accum, b.train.grad_accum);
  EXPECT_EQ(a.train.clip_grad_norm, b.train.clip_grad_norm);
  EXPECT_EQ(a.train.amp, b.train.amp);
  EXPECT_EQ(a.train.devices, b.train.devices);
  EXPECT_EQ(a.train.bucket_mb, b.train.bucket_mb);
  EXPECT_EQ(a.train.sync_batchnorm, b.train.sync_batchnorm);
  EXPECT_EQ(a.train.collective_timeout, b.train.collective_timeout);
  EXPECT_EQ(a.train.threads, b.train.threads);
  EXPECT_EQ(a.train.blas_threads, b.train.blas_threads);
  EXPECT_EQ(a.train.cudnn_benchmark, b.train.cudnn_benchmark);
  EXPECT_EQ(a.train.tf32, b.train.tf32);
  EXPECT_EQ(a.train.channels_last, b.train.channels_last);
  EXPECT_EQ(a.train.pinned_memory, b.train.pinned_memory);
  EXPECT_EQ(a.train.data_on_device, b.train.data_on_device);
  EXPECT_EQ(a.train.cuda_graphs, b.train.cuda_graphs);
  EXPECT_EQ(a.train.eval_every_epochs, b.train.eval_every_epochs);
  EXPECT_EQ(a.train.log_every_steps, b.train.log_every_steps);
  EXPECT_EQ(a.train.checkpoint_every_steps, b.train.checkpoint_every_steps);
  EXPECT_EQ(a.train.checkpoint_every_minutes, b.train.checkpoint_every_minutes);
  EXPECT_EQ(a.train.keep_checkpoints, b.train.keep_checkpoints);
  EXPECT_EQ(a.train.early_stopping.enabled, b.train.early_stopping.enabled);
  EXPECT_EQ(a.train.early_stopping.metric, b.train.early_stopping.metric);
  EXPECT_EQ(a.train.early_stopping.patience, b.train.early_stopping.patience);
  EXPECT_EQ(a.train.early_stopping.min_delta, b.train.early_stopping.min_delta);
  EXPECT_EQ(a.output.runs_dir, b.output.runs_dir);
}

TEST(ExperimentRoundTrip, EveryFieldComesBack) {
  const Experiment original = everyFieldChanged();
  const ParseResult result = parseExperiment(experimentToJson(original));
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  expectSameExperiment(result.experiment, original);
}

// What a run folder stores is text: the round trip must hold through dump() and parse() as well.
TEST(ExperimentRoundTrip, EveryFieldComesBackThroughText) {
  const Experiment original = everyFieldChanged();
  const std::string text = experimentToJson(original).dump(2);
  const ParseResult result = parseExperiment(json::parse(text));
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  expectSameExperiment(result.experiment, original);
}

TEST(ExperimentRoundTrip, DefaultsComeBack) {
  const ParseResult result = parseExperiment(experimentToJson(Experiment{}));
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  expectSameExperiment(result.experiment, Experiment{});
}

TEST(ExperimentRoundTrip, TorchScriptModelComesBack) {
  Experiment original;
  original.model.preset = "";
  original.model.torchscript = "models/net.pt";
  const ParseResult result = parseExperiment(experimentToJson(original));
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  expectSameExperiment(result.experiment, original);
}

// Shorthands (`"augment": false`, a single device, 3.0 for 3, an early_stopping object without "enabled")
// are written out in full once, and the full form then stays as it is.
TEST(ExperimentRoundTrip, WrittenFormOfAParsedFileIsAFixedPoint) {
  const char* documents[] = {
      R"({})",
      R"({"data": {"augment": false}, "train": {"devices": "cuda:1", "epochs": 3.0}})",
      R"({"train": {"devices": "cpu:3", "bucket_mb": 1, "collective_timeout": 60}})",
      R"({"data": {"augment": {"crop_padding": 4}}, "train": {"early_stopping": {"metric": "val_accuracy"}}})",
      R"({"model": {"layers": [{"type": "flatten"}, {"type": "linear", "out_features": 10}]}})",
      R"({"model": {"torchscript": "net.pt"}, "optimizer": {"betas": [0, 0.5]}, "seed": 7})",
  };
  for (const char* document : documents) {
    SCOPED_TRACE(document);
    const ParseResult first = test::parseText(document);
    ASSERT_TRUE(first.ok()) << formatIssues(first.issues);
    const json written = experimentToJson(first.experiment);
    const ParseResult second = parseExperiment(written);
    ASSERT_TRUE(second.ok()) << formatIssues(second.issues);
    EXPECT_EQ(experimentToJson(second.experiment), written);
  }
}

// "cpu:N" is written as the N entries it stands for.
TEST(ExperimentRoundTrip, CpuRanksAreWrittenExpanded) {
  const ParseResult result = test::parseText(R"({"train": {"devices": ["cpu:2", "cpu"]}})");
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  const json written = experimentToJson(result.experiment);
  EXPECT_EQ(written["train"]["devices"], json::parse(R"(["cpu", "cpu", "cpu"])"));
  EXPECT_EQ(parseExperiment(written).experiment.train.devices, result.experiment.train.devices);
}

TEST(ExperimentRoundTrip, ShorthandsReadAsTheirFullForm) {
  const ParseResult result = test::parseText(
      R"({"data": {"augment": {"crop_padding": 4}}, "train": {"devices": "cuda:1", "epochs": 3.0,
          "early_stopping": {"metric": "val_accuracy"}}})");
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_TRUE(result.experiment.data.augment_enabled);
  EXPECT_EQ(result.experiment.data.augment.crop_padding, 4);
  EXPECT_TRUE(result.experiment.data.augment.random_crop);
  EXPECT_EQ(result.experiment.train.devices, std::vector<std::string>{"cuda:1"});
  EXPECT_EQ(result.experiment.train.epochs, 3);
  EXPECT_TRUE(result.experiment.train.early_stopping.enabled);
  EXPECT_EQ(result.experiment.train.early_stopping.metric, ValidationMetric::ValAccuracy);

  const ParseResult off =
      test::parseText(R"({"data": {"augment": false}, "train": {"early_stopping": true}})");
  ASSERT_TRUE(off.ok()) << formatIssues(off.issues);
  EXPECT_FALSE(off.experiment.data.augment_enabled);
  EXPECT_TRUE(off.experiment.train.early_stopping.enabled);

  const ParseResult disabled =
      test::parseText(R"({"train": {"early_stopping": {"enabled": false, "patience": 9}}})");
  ASSERT_TRUE(disabled.ok()) << formatIssues(disabled.issues);
  EXPECT_FALSE(disabled.experiment.train.early_stopping.enabled);
  EXPECT_EQ(disabled.experiment.train.early_stopping.patience, 9);
}

}  // namespace
}  // namespace wb

namespace wb {
namespace {

// A checkpoint written before a key existed lacks it; resuming it must not be refused as a change of the
// experiment: the run trained with the key's default.
TEST(ExperimentChanges, AKeyASavedExperimentPredatesReadsAsItsDefault) {
  json saved = experimentToJson(Experiment{});
  saved.erase("task");
  EXPECT_TRUE(diffExperiments(saved, experimentToJson(Experiment{})).size() == 1) << "the raw files differ";
  EXPECT_TRUE(changesSinceSaved(saved, Experiment{}).empty())
      << describeChanges(changesSinceSaved(saved, {}));
  // A real change is still one.
  Experiment now;
  now.seed = 7;
  const std::vector<ExperimentChange> changes = changesSinceSaved(saved, now);
  ASSERT_EQ(changes.size(), 1U) << describeChanges(changes);
  EXPECT_EQ(changes.front().path, "seed");
}

}  // namespace
}  // namespace wb
