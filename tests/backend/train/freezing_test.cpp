// model.freeze, model.unfreeze and optimizer.param_groups on real models: frozen parameters get no gradient,
// no optimizer state and keep their values; frozen batch norm keeps its statistics; patterns that pick
// nothing or twice are refused by name; thawing joins the optimizer and a run resumed across it ends bit for
// bit where the uninterrupted one did.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <string>
#include <vector>

#include "model/model.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer_factory.h"
#include "optim/parameter_groups.h"
#include "run_folder/checkpoint_store.h"
#include "support/model_weights.h"
#include "support/resumed_session.h"
#include "support/test_experiments.h"
#include "train/frozen_parameters.h"
#include "workbench/errors.h"
#include "workbench/event_json.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

// conv (layers.0) - batch norm (layers.1) - relu - conv (layers.3) - batch norm (layers.4) - relu - flatten -
// linear (layers.7, the head), for 1x8x8 inputs.
nlohmann::json smallConvLayers() {
  const auto conv = [](int64_t out) {
    return nlohmann::json{{"type", "conv2d"}, {"out_channels", out}, {"kernel_size", 3}, {"padding", 1}};
  };
  return nlohmann::json::array({conv(4),
                                {{"type", "batchnorm2d"}},
                                {{"type", "relu"}},
                                conv(4),
                                {{"type", "batchnorm2d"}},
                                {{"type", "relu"}},
                                {{"type", "flatten"}},
                                {{"type", "linear"}, {"out_features", 3}}});
}

std::unique_ptr<Model> smallConvModel() {
  ModelConfig config;
  config.preset = "";
  config.layers = smallConvLayers();
  torch::manual_seed(1);
  return buildModel(config, {1, 8, 8}, 3);
}

std::vector<std::string> frozenNames(Model& model) {
  std::vector<std::string> names;
  for (const auto& [name, tensor] : model.namedParameters()) {
    if (!tensor.requires_grad()) names.push_back(name);
  }
  return names;
}

std::string errorOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const UserError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(Freezing, PatternsFreezeWhatTheyPickAndTheLogSaysSo) {
  auto model = smallConvModel();
  ModelConfig config;
  config.freeze = {"layers.0.*", "layers.1"};  // a module's name alone picks its parameters
  FrozenParameters frozen(config, *model);
  EXPECT_EQ(frozenNames(*model), (std::vector<std::string>{"layers.0.weight", "layers.0.bias",
                                                           "layers.1.weight", "layers.1.bias"}));
  EXPECT_EQ(frozen.summary(),
            "frozen: 4 of 10 tensors (48 parameters); trainable: layers.3.weight, layers.3.bias, "
            "layers.4.weight, layers.4.bias, layers.7.weight, layers.7.bias");
}

TEST(Freezing, BodyFreezesAllButTheHead) {
  auto model = smallConvModel();
  ModelConfig config;
  config.freeze_body = true;
  FrozenParameters frozen(config, *model);
  EXPECT_EQ(frozenNames(*model).size(), 8u);
  EXPECT_TRUE(model->namedParameters().back().second.requires_grad());
  EXPECT_NE(frozen.summary().find("trainable: layers.7.weight, layers.7.bias"), std::string::npos);
}

TEST(Freezing, APatternThatPicksNothingIsNamedWithWhatWasMeant) {
  auto model = smallConvModel();
  ModelConfig config;
  config.freeze = {"layers.0.*", "layer.3.*"};
  const std::string message = errorOf([&] { FrozenParameters frozen(config, *model); });
  EXPECT_NE(message.find("model.freeze[1]: \"layer.3.*\" matches no parameter"), std::string::npos)
      << message;
  EXPECT_NE(message.find("did you mean \"layers.3.*\"?"), std::string::npos) << message;
  config.freeze = {"*"};
  EXPECT_NE(errorOf([&] { FrozenParameters frozen(config, *model); }).find("nothing would train"),
            std::string::npos);
}

// torchvision's names: "body" leaves resnet18's fc, patterns are written as torchvision's keys, and a typo is
// answered in them.
TEST(Freezing, Resnet18IsFrozenInTorchvisionsNames) {
  ModelConfig config;
  config.preset = "resnet18";
  auto model = buildModel(config, {3, 64, 64}, 1000);
  config.freeze_body = true;
  EXPECT_EQ(FrozenParameters(config, *model).summary(),
            "frozen: 60 of 62 tensors (11,176,512 parameters); trainable: fc.weight, fc.bias");
  auto fresh = buildModel(ModelConfig{"resnet18"}, {3, 64, 64}, 10);
  config.freeze_body = false;
  config.freeze = {"conv1", "bn1", "layer1.*"};
  FrozenParameters frozen(config, *fresh);
  EXPECT_EQ(frozenNames(*fresh).size(), 15u);  // conv1.weight, bn1's 2, layer1's 12
  config.freeze = {"layr1.*"};
  EXPECT_NE(errorOf([&] { FrozenParameters typo(config, *fresh); }).find("did you mean \"layer1.*\"?"),
            std::string::npos);
}

// A pattern in torchvision's names picks only torchvision's names: "layer*" (layer1 to layer4) also matches
// every one of our "layers.<i>" names, and matched against both it put resnet18's head into the body's group
// (bench/finetune.sh's full fine-tune trained fc at a tenth of its rate) and froze it with the body. A
// pattern that matches no torchvision name still picks by ours.
TEST(ParameterGroups, ATorchvisionPatternLeavesTheHeadOutOfTheBodysGroup) {
  auto model = buildModel(ModelConfig{"resnet18"}, {3, 64, 64}, 7);
  std::vector<std::string> ours;
  for (const auto& [name, tensor] : model->namedParameters()) ours.push_back(name);
  const std::vector<size_t> groups = assignParameterGroups(
      {ParamGroupConfig{{"conv1.*", "bn1.*", "layer*"}, 0, 0.1, -1}}, ours, model->externalNames());
  std::vector<std::string> default_group;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (groups[i] == 0) default_group.push_back(model->externalNames().at(ours[i]));
  }
  EXPECT_EQ(default_group, (std::vector<std::string>{"fc.weight", "fc.bias"}));
  ModelConfig config;
  config.freeze = {"layer*"};
  FrozenParameters frozen(config, *model);
  EXPECT_EQ(frozenNames(*model).size(), 57u);  // layer1 to layer4; conv1, bn1 and fc train
  EXPECT_TRUE(model->namedParameters().back().second.requires_grad());
  const std::vector<size_t> by_ours =
      assignParameterGroups({ParamGroupConfig{{"layers.0.*"}, 0, 0.1, -1}}, ours, model->externalNames());
  EXPECT_EQ(by_ours.front(), 1u);  // conv1.weight, written as ours
}

// Frozen: no gradient, no optimizer state, the values unchanged; their batch norm runs on its running
// statistics, which stay as they were, while the rest trains.
TEST(Freezing, FrozenPartsGetNoGradientNoStateAndKeepTheirBatchNormStatistics) {
  auto model = smallConvModel();
  ModelConfig config;
  config.freeze = {"layers.0.*", "layers.1.*"};
  FrozenParameters frozen(config, *model);
  OptimizerConfig optimizer_config;
  optimizer_config.name = OptimizerName::Adam;
  optimizer_config.lr = 0.1;
  auto optimizer = makeOptimizer(optimizer_config, model->namedParameters());
  size_t in_optimizer = 0;
  for (const auto& group : optimizer->param_groups()) in_optimizer += group.params().size();
  EXPECT_EQ(in_optimizer, 6u);

  auto buffers = model->namedBuffers();
  const torch::Tensor frozen_mean = buffers[0].second.clone();   // layers.1.running_mean
  const torch::Tensor trained_mean = buffers[3].second.clone();  // layers.4.running_mean
  ASSERT_EQ(buffers[0].first, "layers.1.running_mean");
  ASSERT_EQ(buffers[3].first, "layers.4.running_mean");
  const torch::Tensor frozen_weight = model->namedParameters()[0].second.detach().clone();
  torch::manual_seed(2);
  for (int step = 0; step < 3; ++step) {
    model->train(true);
    frozen.keepStatisticsFrozen(*model);
    optimizer->zero_grad();
    torch::nn::functional::cross_entropy(model->forward(torch::randn({8, 1, 8, 8}) * 3 + 1),
                                         torch::randint(0, 3, {8}))
        .backward();
    optimizer->step();
  }
  EXPECT_FALSE(model->namedParameters()[0].second.grad().defined());
  EXPECT_TRUE(torch::equal(model->namedParameters()[0].second, frozen_weight));
  EXPECT_TRUE(torch::equal(buffers[0].second, frozen_mean));
  EXPECT_FALSE(torch::equal(buffers[3].second, trained_mean));
  EXPECT_EQ(optimizer->state().size(), 6u);  // state for the trainable tensors only
}

// Gradual: one pattern at a time, nearest the head first, `every_epochs` apart; each thaw appends groups
// with their own base rate to the optimizer and the schedule.
TEST(Freezing, GradualUnfreezingThawsFromTheHeadBackAndJoinsTheOptimizer) {
  auto model = smallConvModel();
  ModelConfig config;
  config.freeze = {"layers.0.*", "layers.3.*"};
  config.unfreeze.after_epochs = 1;
  config.unfreeze.every_epochs = 2;
  FrozenParameters frozen(config, *model);
  EXPECT_EQ(frozen.plan(), "unfreeze: layers.3.* at epoch 2; layers.0.* at epoch 4");
  OptimizerConfig optimizer_config;
  optimizer_config.name = OptimizerName::Sgd;
  optimizer_config.lr = 0.5;
  optimizer_config.param_groups = {ParamGroupConfig{{"layers.3.*"}, 0, 0.1, -1}};
  auto optimizer = makeOptimizer(optimizer_config, model->namedParameters());
  ScheduleConfig schedule_config;
  LrSchedule schedule(schedule_config, optimizer_config.lr, 100);
  schedule.addGroups(groupLearningRates(*optimizer));
  const size_t groups_before = optimizer->param_groups().size();
  EXPECT_EQ(thawIntoOptimizer(frozen, 1, *model, *optimizer, optimizer_config, schedule), "");
  const std::string line = thawIntoOptimizer(frozen, 3, *model, *optimizer, optimizer_config, schedule);
  EXPECT_EQ(line.rfind("Unfreeze at epoch 3: layers.3.* joins the optimizer (1 parameter group(s)", 0), 0u)
      << line;
  EXPECT_EQ(optimizer->param_groups().size(), groups_before + 1);
  EXPECT_EQ(schedule.groupLrsAt(0).back(), 0.05);  // the thawed group's own rate: lr_scale 0.1
  EXPECT_EQ(frozenNames(*model), (std::vector<std::string>{"layers.0.weight", "layers.0.bias"}));
  thawIntoOptimizer(frozen, 4, *model, *optimizer, optimizer_config, schedule);
  EXPECT_TRUE(frozenNames(*model).empty());
  EXPECT_EQ(schedule.groupLrsAt(0).size(), optimizer->param_groups().size());
}

TEST(ParameterGroups, APatternThatPicksNothingOrAParameterPickedTwiceIsAnError) {
  auto model = smallConvModel();
  OptimizerConfig config;
  config.param_groups = {ParamGroupConfig{{"layers.7.*"}, 0, 10, -1},
                         ParamGroupConfig{{"layers.0.*", "laers.3"}, 0, 1, -1}};
  std::string message = errorOf([&] { makeOptimizer(config, model->namedParameters()); });
  EXPECT_NE(message.find("optimizer.param_groups[1].params[1]: \"laers.3\" matches no parameter"),
            std::string::npos)
      << message;
  config.param_groups[1].params = {"layers.*.bias"};
  message = errorOf([&] { makeOptimizer(config, model->namedParameters()); });
  EXPECT_NE(
      message.find("\"layers.7.bias\" is picked by optimizer.param_groups[0] and optimizer.param_groups[1]"),
      std::string::npos)
      << message;
}

// The no-decay rule splits each group: its decayed parameters with the group's weight decay, its 1-D ones
// with none.
TEST(ParameterGroups, EachGroupHasItsRateAndWeightDecaySplitByTheNoDecayRule) {
  auto model = smallConvModel();
  OptimizerConfig config;
  config.name = OptimizerName::AdamW;
  config.lr = 0.01;
  config.weight_decay = 0.05;
  config.decay_bias_and_norm = false;
  config.param_groups = {ParamGroupConfig{{"layers.7"}, 0.2, 1, 0.5}};
  auto optimizer = makeOptimizer(config, model->namedParameters());
  const auto& groups = optimizer->param_groups();
  ASSERT_EQ(groups.size(), 4u);
  const auto wd = [](const torch::optim::OptimizerParamGroup& g) {
    return static_cast<const torch::optim::AdamWOptions&>(g.options()).weight_decay();
  };
  EXPECT_EQ(groups[0].options().get_lr(), 0.01);
  EXPECT_EQ(wd(groups[0]), 0.05);
  EXPECT_EQ(wd(groups[1]), 0.0);
  EXPECT_EQ(groups[2].params().size(), 1u);  // layers.7.weight
  EXPECT_EQ(groups[2].options().get_lr(), 0.2);
  EXPECT_EQ(wd(groups[2]), 0.5);
  EXPECT_EQ(groups[3].options().get_lr(), 0.2);
  EXPECT_EQ(wd(groups[3]), 0.0);
}

// A run that freezes the first conv and thaws it at epoch 2, with a body group at a tenth of the rate:
// stopped before the thaw and after it, each resumed run ends bit for bit where the run left alone did.
Experiment unfreezingExperiment(const std::string& runs) {
  Experiment e = test::smallMlpExperiment(runs);
  test::useSyntheticImages(e, 240, {1, 8, 8}, 3);
  e.model.layers = smallConvLayers();
  e.model.freeze = {"layers.0.*", "layers.1.*"};
  e.model.unfreeze.after_epochs = 1;
  e.optimizer.name = OptimizerName::Sgd;
  e.optimizer.lr = 0.05;
  e.optimizer.momentum = 0.9;
  e.optimizer.param_groups = {ParamGroupConfig{{"layers.0.*", "layers.1.*"}, 0, 0.1, -1}};
  e.schedule.name = ScheduleName::Cosine;
  e.schedule.eta_min = 0.001;
  e.train.epochs = 3;
  e.train.batch_size = 20;
  e.train.log_every_steps = 1;
  e.train.checkpoint_every_steps = 4;
  e.train.checkpoint_every_minutes = 0;
  e.train.keep_checkpoints = 100;
  return e;
}

// Runs `e`, asking for a stop when epoch `stop_epoch` ends (0: never): epoch ends reach the sink at once, so
// the stop lands at the next epoch's first step boundary. The log lines go to `log`.
// check finds a pattern that picks nothing before a run folder exists, at the pattern's own path.
TEST(Unfreezing, CheckNamesAPatternThatPicksNothing) {
  Experiment e = unfreezingExperiment(test::freshDir("freeze-check"));
  e.model.freeze = {"layers.0.*", "layrs.3"};
  std::vector<ValidationIssue> issues = checkExperiment(e);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "model.freeze[1]");
  EXPECT_EQ(issues[0].message, "\"layrs.3\" matches no parameter of the model; did you mean \"layers.3\"?");
  e.model.freeze = {"layers.0.*"};
  e.optimizer.param_groups[0].params = {"layers.7.*", "laers.3"};
  issues = checkExperiment(e);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "optimizer.param_groups[0].params[1]");
  fs::remove_all(e.output.runs_dir);
}

RunSummary runStoppingAfterEpoch(const Experiment& e, int64_t stop_epoch,
                                 std::vector<std::string>* log = nullptr) {
  TrainingRun* self = nullptr;
  TrainingRun run(e, [&](EventBatch&& batch) {
    for (const Event& ev : batch) {
      if (const auto* m = std::get_if<EpochMetrics>(&ev)) {
        if (stop_epoch > 0 && m->epoch >= stop_epoch) self->requestStop();
      }
      if (const auto* l = std::get_if<LogLine>(&ev); l && log) log->push_back(l->text);
    }
  });
  self = &run;
  run.start();
  run.wait();
  return run.summary();
}

// A run killed right after its checkpoint of `step`: the newer checkpoints are gone.
void keepCheckpointsThrough(const std::string& run_dir, int64_t step) {
  for (const std::string& file : CheckpointStore(run_dir, 100, true).list()) {
    const std::string stem = fs::path(file).stem().string();  // step-000000000016
    if (std::stoll(stem.substr(stem.find('-') + 1)) > step) fs::remove(file);
  }
}

TEST(Unfreezing, ResumedBeforeAtAndAfterTheThawEndsWhereTheUninterruptedRunDid) {
  const std::string runs = test::freshDir("unfreeze");
  std::vector<std::string> log;
  const RunSummary reference = runStoppingAfterEpoch(unfreezingExperiment(runs), 0, &log);
  ASSERT_EQ(reference.status, RunStatus::Completed);
  const auto has = [&](const std::string& text) {
    for (const std::string& line : log) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("frozen: 4 of 10 tensors (48 parameters); trainable: layers.3.weight"));
  EXPECT_TRUE(has("unfreeze: layers.1.*, layers.0.* at epoch 2"));
  EXPECT_TRUE(
      has("Unfreeze at epoch 2: layers.1.*, layers.0.* joins the optimizer (1 parameter group(s), fresh "
          "state); frozen: 0 of 10 tensors"));
  EXPECT_TRUE(
      has("Parameter groups: default (6 tensors, lr 0.05, weight decay 0.01); layers.0.*, layers.1.* (0 "
          "tensors, lr 0.005, weight decay 0.01)"));
  // 11 steps an epoch (216 training samples in batches of 20), a checkpoint every 4 steps and at each epoch's
  // end: step 8 lies before the thaw, step 11 at epoch 2's start (before its first step thaws), 16 after it.
  for (int64_t step : {8, 11, 16}) {
    SCOPED_TRACE("killed after the checkpoint of step " + std::to_string(step));
    const RunSummary stopped = runStoppingAfterEpoch(unfreezingExperiment(runs), 2);
    ASSERT_EQ(stopped.status, RunStatus::Interrupted);
    ASSERT_GT(stopped.steps, 16);
    keepCheckpointsThrough(stopped.run_dir, step);
    std::string resume_error;
    const RunSummary resumed = resumeBlocking(ResumeRequest{stopped.run_dir, false}, [&](EventBatch&& batch) {
      for (const Event& ev : batch) {
        if (const auto* err = std::get_if<RunError>(&ev)) resume_error = err->message;
      }
    });
    ASSERT_EQ(resumed.status, RunStatus::Completed) << resume_error;
    EXPECT_EQ(resumed.steps, reference.steps);
    EXPECT_EQ(test::lastResumedSession(resumed.run_dir + "/metrics.jsonl").continued_at, step);
    test::expectBitIdentical(reference.run_dir + "/model.pt", resumed.run_dir + "/model.pt");
  }
  fs::remove_all(runs);
}

}  // namespace
}  // namespace wb
