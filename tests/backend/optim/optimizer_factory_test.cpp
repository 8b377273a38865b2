// makeOptimizer against torch.optim: tests/fixtures/optimizers.json holds a tiny model's parameters after
// each of 5 steps of every optimizer configuration, run in Python (scripts/make_optimizer_fixtures.py).

#include "optim/optimizer_factory.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "optim/fused_adam.h"
#include "optim/lr_schedule.h"
#include "optim/multi_tensor_step.h"
#include "optim/step_path.h"
#include "support/test_helpers.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using NamedParameters = std::vector<std::pair<std::string, torch::Tensor>>;

const nlohmann::json& optimizerFixture() {
  static const nlohmann::json fixture = test::loadFixture("optimizers.json");
  return fixture;
}

torch::Tensor tensorFromJson(const nlohmann::json& j) {
  const std::vector<double> values = j.at("values").get<std::vector<double>>();
  const std::vector<int64_t> shape = j.at("shape").get<std::vector<int64_t>>();
  // The values are float32 numbers written exactly, so the round trip through double loses nothing.
  return torch::tensor(values, torch::kFloat64).to(torch::kFloat32).reshape(shape);
}

OptimizerConfig optimizerFromJson(const nlohmann::json& j) {
  OptimizerConfig config;
  config.name = fromWord<OptimizerName>(j.at("name").get<std::string>()).value();
  config.lr = j.at("lr").get<double>();
  config.weight_decay = j.at("weight_decay").get<double>();
  config.momentum = j.at("momentum").get<double>();
  config.nesterov = j.at("nesterov").get<bool>();
  config.beta1 = j.at("beta1").get<double>();
  config.beta2 = j.at("beta2").get<double>();
  config.eps = j.at("eps").get<double>();
  config.alpha = j.at("alpha").get<double>();
  config.decay_bias_and_norm = j.at("decay_bias_and_norm").get<bool>();
  return config;
}

NamedParameters initialParameters() {
  NamedParameters parameters;
  for (const nlohmann::json& entry : optimizerFixture().at("parameters")) {
    parameters.emplace_back(entry.at("name").get<std::string>(), tensorFromJson(entry).requires_grad_(true));
  }
  return parameters;
}

const torch::Tensor& parameterNamed(const NamedParameters& parameters, const std::string& name) {
  for (const auto& named : parameters) {
    if (named.first == name) {
      return named.second;
    }
  }
  throw std::runtime_error("no parameter " + name);
}

// The same forward pass as the fixture script's loss_of(), op for op.
torch::Tensor lossOf(const NamedParameters& p, const torch::Tensor& x, const torch::Tensor& y) {
  torch::Tensor hidden = torch::linear(x, parameterNamed(p, "fc1.weight"), parameterNamed(p, "fc1.bias"));
  hidden = torch::tanh(
      torch::layer_norm(hidden, {3}, parameterNamed(p, "norm.weight"), parameterNamed(p, "norm.bias"), 1e-5));
  return torch::mse_loss(
      torch::linear(hidden, parameterNamed(p, "fc2.weight"), parameterNamed(p, "fc2.bias")), y);
}

double weightDecayOf(const torch::optim::OptimizerOptions& options) {
  if (auto sgd = dynamic_cast<const torch::optim::SGDOptions*>(&options)) {
    return sgd->weight_decay();
  }
  if (auto adam = dynamic_cast<const torch::optim::AdamOptions*>(&options)) {
    return adam->weight_decay();
  }
  if (auto adamw = dynamic_cast<const torch::optim::AdamWOptions*>(&options)) {
    return adamw->weight_decay();
  }
  if (auto rmsprop = dynamic_cast<const torch::optim::RMSpropOptions*>(&options)) {
    return rmsprop->weight_decay();
  }
  if (auto adagrad = dynamic_cast<const torch::optim::AdagradOptions*>(&options)) {
    return adagrad->weight_decay();
  }
  ADD_FAILURE() << "options of an unexpected optimizer type";
  return -1;
}

// The names of a group's tensors, found by identity among the named parameters.
std::vector<std::string> namesOf(const torch::optim::OptimizerParamGroup& group,
                                 const NamedParameters& parameters) {
  std::vector<std::string> names;
  for (const torch::Tensor& tensor : group.params()) {
    std::string found = "<unknown>";
    for (const auto& named : parameters) {
      if (named.second.is_same(tensor)) {
        found = named.first;
      }
    }
    names.push_back(found);
  }
  return names;
}

// float32 after `steps` optimizer steps. The fixture was made by torch 1.13 on OpenBLAS; the matmuls of the
// loss's gradient may sum in another order here (pip torch's MKL, another CPU's kernels), which moves each
// gradient element by a few float32 roundings (unit roundoff 6e-8) of its terms, and every step adds that
// again, twice over with Nesterov momentum (the gradient enters the update directly and through the buffer).
// So: 1e-6 of the value, plus 2e-7 a step (measured with MKL against OpenBLAS: 2.2e-7 after 4 steps of
// Nesterov SGD, 6.9e-7 after 5, where a fixed 1e-7 failed; a wrong formula is off by 1e-4 and more).
void expectCloseFloat32(const torch::Tensor& actual, const std::vector<double>& expected,
                        const std::string& what, size_t steps) {
  const torch::Tensor flat = actual.detach().to(torch::kFloat64).flatten().contiguous();
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(expected.size())) << what;
  const double* values = flat.data_ptr<double>();
  for (size_t i = 0; i < expected.size(); ++i) {
    const double tolerance = 2e-7 * static_cast<double>(steps) + 1e-6 * std::abs(expected[i]);
    EXPECT_NEAR(values[i], expected[i], tolerance) << what << "[" << i << "]";
  }
}

TEST(OptimizerFactoryTest, FixtureCoversEveryOptimizer) {
  std::set<std::string> names;
  for (const nlohmann::json& fixture_case : optimizerFixture().at("cases")) {
    names.insert(fixture_case.at("config").at("name").get<std::string>());
  }
  EXPECT_EQ(names, (std::set<std::string>{"sgd", "adam", "adamw", "rmsprop", "adagrad"}));
}

struct StepVariant {
  std::string name;
  bool fused;
  StepPath path;
};

std::vector<StepVariant> stepVariants() {
  std::vector<StepVariant> variants = {{"plain", false, StepPath::Auto},
                                       {"default", true, StepPath::Auto},
                                       {"foreach", true, StepPath::Foreach}};
#if WB_HAS_FUSED_CPU_KERNELS
  variants.push_back({"fused kernels", true, StepPath::Fused});  // rmsprop, adagrad: foreach (none fused)
#endif
  return variants;
}

TEST(OptimizerFactoryTest, StepsLikeTorchWithTheLrChangingEveryStep) {
  const torch::Tensor x = tensorFromJson(optimizerFixture().at("inputs"));
  const torch::Tensor y = tensorFromJson(optimizerFixture().at("targets"));
  for (const nlohmann::json& fixture_case : optimizerFixture().at("cases")) {
    // Every step an optimizer can take: LibTorch's own (optimizer.fused false), the default (on the CPU: the
    // fused pass for adam and adamw, LibTorch's for the others), and forced on these CPU tensors, the foreach
    // ops and the fused kernels that run on CUDA.
    for (const StepVariant& variant : stepVariants()) {
      SCOPED_TRACE(fixture_case.at("case").get<std::string>() + " " + variant.name);
      const NamedParameters parameters = initialParameters();
      OptimizerConfig config = optimizerFromJson(fixture_case.at("config"));
      config.fused = variant.fused;
      const std::unique_ptr<torch::optim::Optimizer> optimizer = makeOptimizer(config, parameters);
      const bool adam_family = config.name == OptimizerName::Adam || config.name == OptimizerName::AdamW;
      if (variant.path == StepPath::Auto) {
        EXPECT_EQ(takesFusedStep(*optimizer), variant.fused && adam_family);
      } else {
        auto* ours = dynamic_cast<ReportsStepPath*>(optimizer.get());
        ASSERT_NE(ours, nullptr);
        ours->setStepPath(variant.path);
        EXPECT_TRUE(takesFusedStep(*optimizer));
      }
      const std::vector<double> lrs = fixture_case.at("lrs").get<std::vector<double>>();
      const std::vector<double> losses = fixture_case.at("losses").get<std::vector<double>>();
      ASSERT_EQ(lrs.size(), fixture_case.at("after_step").size());
      for (size_t step = 0; step < lrs.size(); ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        setLearningRate(*optimizer, lrs[step]);
        optimizer->zero_grad();
        const torch::Tensor loss = lossOf(parameters, x, y);
        EXPECT_NEAR(loss.item<double>(), losses[step], 1e-6 * std::abs(losses[step]));
        loss.backward();
        optimizer->step();
        const nlohmann::json& expected = fixture_case.at("after_step").at(step);
        for (const auto& named : parameters) {
          expectCloseFloat32(named.second, expected.at(named.first).get<std::vector<double>>(), named.first,
                             step + 1);
        }
        if (HasFailure()) {
          return;  // later steps only repeat the first difference
        }
      }
    }
  }
}

ParamGroupConfig paramGroupFromJson(const nlohmann::json& j) {
  ParamGroupConfig group;
  group.params = j.at("params").get<std::vector<std::string>>();
  group.lr = j.value("lr", 0.0);
  group.lr_scale = j.value("lr_scale", 1.0);
  group.weight_decay = j.value("weight_decay", -1.0);
  return group;
}

ScheduleConfig groupScheduleFromJson(const nlohmann::json& j) {
  ScheduleConfig schedule;
  schedule.name = fromWord<ScheduleName>(j.at("name").get<std::string>()).value();
  schedule.step_size = j.value("step_size", schedule.step_size);
  schedule.gamma = j.value("gamma", schedule.gamma);
  schedule.t_max = j.value("t_max", schedule.t_max);
  schedule.eta_min = j.value("eta_min", schedule.eta_min);
  return schedule;
}

// optimizer.param_groups as torch's param groups under torch's schedulers (StepLR; CosineAnnealingLR with an
// eta_min, where a group's rate is not the default's scaled): each group's rate at every step from its own
// base rate, and the parameters after each step, on every step path.
TEST(OptimizerFactoryTest, ParamGroupsUnderAScheduleStepLikeTorch) {
  const torch::Tensor x = tensorFromJson(optimizerFixture().at("inputs"));
  const torch::Tensor y = tensorFromJson(optimizerFixture().at("targets"));
  ASSERT_FALSE(optimizerFixture().at("group_cases").empty());
  for (const nlohmann::json& fixture_case : optimizerFixture().at("group_cases")) {
    for (const StepVariant& variant : stepVariants()) {
      SCOPED_TRACE(fixture_case.at("case").get<std::string>() + " " + variant.name);
      const NamedParameters parameters = initialParameters();
      OptimizerConfig config = optimizerFromJson(fixture_case.at("config"));
      for (const nlohmann::json& group : fixture_case.at("config").at("param_groups")) {
        config.param_groups.push_back(paramGroupFromJson(group));
      }
      config.fused = variant.fused;
      const auto optimizer = makeOptimizer(config, parameters);
      if (variant.path != StepPath::Auto)
        dynamic_cast<ReportsStepPath&>(*optimizer).setStepPath(variant.path);
      const nlohmann::json& groups = fixture_case.at("groups");
      ASSERT_EQ(optimizer->param_groups().size(), groups.size());
      for (size_t i = 0; i < groups.size(); ++i) {
        EXPECT_EQ(namesOf(optimizer->param_groups()[i], parameters),
                  groups[i].at("names").get<std::vector<std::string>>());
        EXPECT_EQ(weightDecayOf(optimizer->param_groups()[i].options()),
                  groups[i].at("weight_decay").get<double>());
      }
      const int64_t steps = fixture_case.at("steps").get<int64_t>();
      LrSchedule schedule(groupScheduleFromJson(fixture_case.at("schedule")), config.lr, steps);
      schedule.addGroups(groupLearningRates(*optimizer));
      const std::vector<double> losses = fixture_case.at("losses").get<std::vector<double>>();
      for (int64_t step = 0; step < steps; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        const std::vector<double> lrs = schedule.groupLrsAt(step);
        const auto expected_lrs = fixture_case.at("group_lrs").at(step).get<std::vector<double>>();
        ASSERT_EQ(lrs.size(), expected_lrs.size());
        for (size_t g = 0; g < lrs.size(); ++g)
          EXPECT_NEAR(lrs[g], expected_lrs[g], 1e-12 * expected_lrs[g]) << "group " << g;
        setLearningRates(*optimizer, lrs);
        optimizer->zero_grad();
        const torch::Tensor loss = lossOf(parameters, x, y);
        EXPECT_NEAR(loss.item<double>(), losses[step], 1e-6 * std::abs(losses[step]));
        loss.backward();
        optimizer->step();
        const nlohmann::json& expected = fixture_case.at("after_step").at(step);
        for (const auto& named : parameters) {
          expectCloseFloat32(named.second, expected.at(named.first).get<std::vector<double>>(), named.first,
                             static_cast<size_t>(step) + 1);
        }
        if (HasFailure()) return;
      }
    }
  }
}

TEST(OptimizerFactoryTest, GroupsMatchTheFixtureScript) {
  for (const nlohmann::json& fixture_case : optimizerFixture().at("cases")) {
    SCOPED_TRACE(fixture_case.at("case").get<std::string>());
    const NamedParameters parameters = initialParameters();
    const auto optimizer = makeOptimizer(optimizerFromJson(fixture_case.at("config")), parameters);
    const nlohmann::json& groups = fixture_case.at("groups");
    ASSERT_EQ(optimizer->param_groups().size(), groups.size());
    for (size_t i = 0; i < groups.size(); ++i) {
      const auto& group = optimizer->param_groups()[i];
      EXPECT_EQ(namesOf(group, parameters), groups[i].at("names").get<std::vector<std::string>>());
      EXPECT_EQ(weightDecayOf(group.options()), groups[i].at("weight_decay").get<double>());
    }
  }
}

NamedParameters modelWithFrozenAndScalarParameters() {
  NamedParameters parameters = {
      {"conv.weight", torch::randn({4, 3, 3, 3}).requires_grad_(true)},
      {"conv.bias", torch::randn({4}).requires_grad_(true)},
      {"bn.weight", torch::ones({4}).requires_grad_(true)},
      {"bn.bias", torch::zeros({4}).requires_grad_(true)},
      {"embedding.weight", torch::randn({10, 4})},  // frozen
      {"head.weight", torch::randn({2, 4}).requires_grad_(true)},
      {"head.bias", torch::zeros({2})},  // frozen
      {"temperature", torch::ones({}).requires_grad_(true)},
  };
  return parameters;
}

TEST(OptimizerFactoryTest, OneDimensionalParametersGetNoWeightDecayAndFrozenOnesAreLeftOut) {
  const NamedParameters parameters = modelWithFrozenAndScalarParameters();
  for (const std::string& name : allWords<OptimizerName>()) {
    SCOPED_TRACE(name);
    OptimizerConfig config;
    config.name = *fromWord<OptimizerName>(name);
    config.nesterov = false;
    config.weight_decay = 0.25;
    config.decay_bias_and_norm = false;  // torch's default (true) decays all in one group
    const auto optimizer = makeOptimizer(config, parameters);
    ASSERT_EQ(optimizer->param_groups().size(), 2u);
    EXPECT_EQ(namesOf(optimizer->param_groups()[0], parameters),
              (std::vector<std::string>{"conv.weight", "head.weight"}));
    EXPECT_EQ(weightDecayOf(optimizer->param_groups()[0].options()), 0.25);
    EXPECT_EQ(namesOf(optimizer->param_groups()[1], parameters),
              (std::vector<std::string>{"conv.bias", "bn.weight", "bn.bias", "temperature"}));
    EXPECT_EQ(weightDecayOf(optimizer->param_groups()[1].options()), 0.0);
  }
}

TEST(OptimizerFactoryTest, DecayBiasAndNormKeepsOneGroup) {
  const NamedParameters parameters = modelWithFrozenAndScalarParameters();
  OptimizerConfig config;
  config.decay_bias_and_norm = true;
  config.weight_decay = 0.125;
  const auto optimizer = makeOptimizer(config, parameters);
  ASSERT_EQ(optimizer->param_groups().size(), 1u);
  EXPECT_EQ(namesOf(optimizer->param_groups()[0], parameters),
            (std::vector<std::string>{"conv.weight", "conv.bias", "bn.weight", "bn.bias", "head.weight",
                                      "temperature"}));
  EXPECT_EQ(weightDecayOf(optimizer->param_groups()[0].options()), 0.125);
}

TEST(OptimizerFactoryTest, EmptyGroupsAreLeftOut) {
  const NamedParameters only_vectors = {{"a.bias", torch::zeros({3}).requires_grad_(true)},
                                        {"b.weight", torch::ones({3}).requires_grad_(true)}};
  OptimizerConfig config;
  config.weight_decay = 0.5;
  config.decay_bias_and_norm = false;
  const auto optimizer = makeOptimizer(config, only_vectors);
  ASSERT_EQ(optimizer->param_groups().size(), 1u);
  EXPECT_EQ(namesOf(optimizer->param_groups()[0], only_vectors),
            (std::vector<std::string>{"a.bias", "b.weight"}));
  EXPECT_EQ(weightDecayOf(optimizer->param_groups()[0].options()), 0.0);
}

TEST(OptimizerFactoryTest, MakesTheNamedLibTorchOptimizer) {
  const NamedParameters parameters = modelWithFrozenAndScalarParameters();
  OptimizerConfig config;
  config.name = OptimizerName::Sgd;
  EXPECT_NE(dynamic_cast<torch::optim::SGD*>(makeOptimizer(config, parameters).get()), nullptr);
  config.name = OptimizerName::Adam;
  EXPECT_NE(dynamic_cast<torch::optim::Adam*>(makeOptimizer(config, parameters).get()), nullptr);
  config.name = OptimizerName::AdamW;
  EXPECT_NE(dynamic_cast<torch::optim::AdamW*>(makeOptimizer(config, parameters).get()), nullptr);
  config.name = OptimizerName::RmsProp;
  EXPECT_NE(dynamic_cast<torch::optim::RMSprop*>(makeOptimizer(config, parameters).get()), nullptr);
  config.name = OptimizerName::Adagrad;
  EXPECT_NE(dynamic_cast<torch::optim::Adagrad*>(makeOptimizer(config, parameters).get()), nullptr);
}

TEST(OptimizerFactoryTest, SetLearningRateReachesEveryGroup) {
  const NamedParameters parameters = modelWithFrozenAndScalarParameters();
  OptimizerConfig config;
  config.lr = 0.5;
  config.decay_bias_and_norm = false;  // two groups
  const auto optimizer = makeOptimizer(config, parameters);
  ASSERT_EQ(optimizer->param_groups().size(), 2u);
  for (const auto& group : optimizer->param_groups()) {
    EXPECT_EQ(group.options().get_lr(), 0.5);
  }
  setLearningRate(*optimizer, 0.0123);
  for (const auto& group : optimizer->param_groups()) {
    EXPECT_EQ(group.options().get_lr(), 0.0123);
  }
}

TEST(OptimizerFactoryTest, RejectsWhatCannotBeTrained) {
  OptimizerConfig config;
  const NamedParameters frozen = {{"w", torch::randn({2, 2})}, {"b", torch::zeros({2})}};
  EXPECT_THROW(makeOptimizer(config, frozen), UserError);
}

}  // namespace
}  // namespace wb
