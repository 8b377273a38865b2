// An experiment that names an optimizer and nothing else gets what torch.optim's constructor gives when only
// the parameters are passed: tests/fixtures/optimizers.json records torch 1.13's defaults
// (scripts/make_optimizer_fixtures.py reads them from each constructor's signature).

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "optim/optimizer_factory.h"
#include "workbench/experiment.h"

namespace wb {
namespace {

using nlohmann::json;

json torchDefaults() {
  std::ifstream in(std::string(WB_SOURCE_DIR) + "/tests/fixtures/optimizers.json");
  if (!in) {
    ADD_FAILURE() << "cannot open tests/fixtures/optimizers.json";
    return json::object();
  }
  return json::parse(in).at("torch_defaults");
}

// A weight and a bias: torch decays both when nothing says otherwise.
std::vector<std::pair<std::string, torch::Tensor>> linearParameters() {
  return {{"fc.weight", torch::ones({3, 4}, torch::requires_grad())},
          {"fc.bias", torch::zeros({3}, torch::requires_grad())}};
}

// The options the built optimizer holds, by torch's keyword names.
json builtOptions(const torch::optim::Optimizer& optimizer, const std::string& name) {
  const torch::optim::OptimizerOptions& options = optimizer.param_groups().front().options();
  if (name == "sgd") {
    const auto& o = static_cast<const torch::optim::SGDOptions&>(options);
    return {{"lr", o.lr()},
            {"momentum", o.momentum()},
            {"dampening", o.dampening()},
            {"weight_decay", o.weight_decay()},
            {"nesterov", o.nesterov()}};
  }
  if (name == "adam") {
    const auto& o = static_cast<const torch::optim::AdamOptions&>(options);
    return {{"lr", o.lr()},
            {"betas", {std::get<0>(o.betas()), std::get<1>(o.betas())}},
            {"eps", o.eps()},
            {"weight_decay", o.weight_decay()},
            {"amsgrad", o.amsgrad()}};
  }
  if (name == "adamw") {
    const auto& o = static_cast<const torch::optim::AdamWOptions&>(options);
    return {{"lr", o.lr()},
            {"betas", {std::get<0>(o.betas()), std::get<1>(o.betas())}},
            {"eps", o.eps()},
            {"weight_decay", o.weight_decay()},
            {"amsgrad", o.amsgrad()}};
  }
  if (name == "rmsprop") {
    const auto& o = static_cast<const torch::optim::RMSpropOptions&>(options);
    return {{"lr", o.lr()},
            {"alpha", o.alpha()},
            {"eps", o.eps()},
            {"weight_decay", o.weight_decay()},
            {"momentum", o.momentum()},
            {"centered", o.centered()}};
  }
  if (name == "adagrad") {
    const auto& o = static_cast<const torch::optim::AdagradOptions&>(options);
    return {{"lr", o.lr()},
            {"lr_decay", o.lr_decay()},
            {"weight_decay", o.weight_decay()},
            {"initial_accumulator_value", o.initial_accumulator_value()},
            {"eps", o.eps()}};
  }
  ADD_FAILURE() << "no options reader for " << name;
  return json::object();
}

TEST(OptimizerDefaults, AnOptimizerNamedAloneIsBuiltWithTorchsDefaults) {
  const json torch = torchDefaults();
  ASSERT_EQ(torch.size(), 5u) << torch.dump();
  for (const auto& [name, expected] : torch.items()) {
    SCOPED_TRACE(name);
    const ParseResult parsed = parseExperiment(json{{"optimizer", {{"name", name}}}});
    ASSERT_TRUE(parsed.ok()) << formatIssues(parsed.issues);
    const auto optimizer = makeOptimizer(parsed.experiment.optimizer, linearParameters());
    // torch.optim puts every parameter in one group with one weight decay.
    EXPECT_EQ(optimizer->param_groups().size(), 1u);
    const json built = builtOptions(*optimizer, name);
    for (const auto& [key, value] : expected.items()) {
      SCOPED_TRACE(key);
      ASSERT_TRUE(built.contains(key)) << "torch." << name << " has the option " << key
                                       << ", which this test does not read: add it to builtOptions";
      if (value.is_null()) {
        // A required argument in torch 1.13 (SGD's lr): the workbench takes torch 2.x's default.
        EXPECT_EQ(built[key], json(1e-3));
      } else if (value.is_array()) {
        ASSERT_EQ(built[key].size(), value.size());
        for (size_t i = 0; i < value.size(); ++i)
          EXPECT_DOUBLE_EQ(built[key][i].get<double>(), value[i].get<double>());
      } else if (value.is_boolean()) {
        EXPECT_EQ(built[key], value);
      } else {
        EXPECT_DOUBLE_EQ(built[key].get<double>(), value.get<double>());
      }
    }
  }
}

// A key written in the file wins over the optimizer's default, whichever comes first in the file.
TEST(OptimizerDefaults, WrittenKeysKeepTheirValuesWhateverTheOptimizer) {
  const ParseResult parsed = parseExperiment(
      json::parse(R"({"optimizer": {"eps": 1e-6, "name": "adagrad", "weight_decay": 0.5, "lr": 0.2}})"));
  ASSERT_TRUE(parsed.ok()) << formatIssues(parsed.issues);
  EXPECT_EQ(parsed.experiment.optimizer.eps, 1e-6);
  EXPECT_EQ(parsed.experiment.optimizer.weight_decay, 0.5);
  EXPECT_EQ(parsed.experiment.optimizer.lr, 0.2);
}

}  // namespace
}  // namespace wb
