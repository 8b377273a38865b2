// The Model tab's table: rows and totals from the layer list's rules, equal to what LibTorch and PyTorch
// count.
#include "workbench/model_summary.h"

#include <gtest/gtest.h>
#include <torch/script.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include "model/model.h"
#include "support/test_experiments.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

Experiment fashionExperiment(const std::string& preset) {
  Experiment e = test::smallMlpExperiment(fs::temp_directory_path().string());
  e.model.preset = preset;
  return e;
}

int64_t libtorchCount(const Experiment& e) {
  auto model = buildModel(e.model, {1, 28, 28}, 10);
  int64_t n = 0;
  for (const torch::Tensor& p : model->parameters()) n += p.numel();
  return n;
}

TEST(ModelSummary, MlpRowsAndTotalsMatchLibTorchAndPyTorch) {
  const Experiment e = fashionExperiment("mlp");
  const ModelSummary s = summarizeModel(e);
  ASSERT_TRUE(s.ok()) << formatIssues(s.issues);
  EXPECT_FALSE(s.torchscript);
  EXPECT_EQ(s.input_shape, (std::vector<int64_t>{1, 28, 28}));
  EXPECT_EQ(s.output_shape, (std::vector<int64_t>{10}));
  // flatten, linear, relu, dropout, linear, relu, linear
  ASSERT_EQ(s.rows.size(), 7u);
  EXPECT_EQ(s.rows[0].type, "flatten");
  EXPECT_EQ(s.rows[0].shape, (std::vector<int64_t>{784}));
  EXPECT_EQ(s.rows[1].type, "linear");
  EXPECT_EQ(s.rows[1].name, "1");
  EXPECT_EQ(s.rows[1].parameters, 784 * 256 + 256);
  EXPECT_EQ(s.rows[1].flops, 2 * 784 * 256);
  EXPECT_EQ(s.rows[2].parameters, 0);
  int64_t sum = 0, flops = 0;
  for (const ModelSummaryRow& row : s.rows) {
    sum += row.parameters;
    flops += row.flops;
  }
  EXPECT_EQ(sum, s.total_parameters);
  EXPECT_EQ(flops, s.total_flops);
  EXPECT_EQ(s.total_parameters, libtorchCount(e));
  EXPECT_EQ(s.total_parameters,
            buildModel(e.model, {1, 28, 28}, 10)->info().parameters);  // the run log's figure

  // PyTorch's own count of the same network.
  const std::string cmd =
      std::string(WB_PYTHON) +
      " -c 'import torch.nn as n; m = n.Sequential(n.Flatten(), n.Linear(784, 256), n.ReLU(), "
      "n.Dropout(0.2), n.Linear(256, 128), n.ReLU(), n.Linear(128, 10)); "
      "print(sum(p.numel() for p in m.parameters()))'";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  long long python_count = -1;
  ASSERT_EQ(std::fscanf(pipe, "%lld", &python_count), 1);
  ::pclose(pipe);
  EXPECT_EQ(s.total_parameters, python_count);
}

TEST(ModelSummary, ResidualBranchesAreNestedAndCountedOnce) {
  const Experiment e = fashionExperiment("resnet");
  const ModelSummary s = summarizeModel(e);
  ASSERT_TRUE(s.ok()) << formatIssues(s.issues);
  int64_t top = 0, nested = 0;
  for (const ModelSummaryRow& row : s.rows) {
    if (row.depth == 0) top += row.parameters;
    if (row.depth > 0) ++nested;
  }
  EXPECT_GT(nested, 0);
  EXPECT_EQ(top, s.total_parameters);
  EXPECT_EQ(s.total_parameters, libtorchCount(e));
  for (const ModelSummaryRow& row : s.rows) {
    if (row.depth > 0) {
      EXPECT_TRUE(row.name.find(".layers.") != std::string::npos ||
                  row.name.find(".shortcut.") != std::string::npos)
          << row.name;
    }
  }
}

// torchvision's architectures show its module names beside the state-dict prefixes; the small presets none.
TEST(ModelSummary, NamedLayersShowTheirOutsideNames) {
  const ModelSummary s = summarizeModel(fashionExperiment("resnet18"));
  ASSERT_TRUE(s.ok()) << formatIssues(s.issues);
  std::map<std::string, std::string> outside;
  for (const ModelSummaryRow& row : s.rows) outside[row.name] = row.outside_name;
  EXPECT_EQ(outside.at("0"), "conv1");
  EXPECT_EQ(outside.at("2"), "");  // the relu has no name
  EXPECT_EQ(outside.at("4"), "layer1.0");
  EXPECT_EQ(outside.at("4.layers.0"), "layer1.0.conv1");
  EXPECT_EQ(outside.at("8.shortcut.1"), "layer2.0.downsample.1");
  EXPECT_EQ(s.rows.back().outside_name, "fc");
  EXPECT_EQ(s.total_parameters, libtorchCount(fashionExperiment("resnet18")));
  for (const ModelSummaryRow& row : summarizeModel(fashionExperiment("resnet")).rows)
    EXPECT_EQ(row.outside_name, "") << row.name;
}

int64_t trainableOf(const ModelSummary& s) {
  return s.total_parameters - s.frozen_parameters;
}

// model.freeze as the run applies it: "body" leaves torchvision's fc alone training, row by row and in the
// totals, and the totals are those FrozenParameters leaves on the model the run builds.
TEST(ModelSummary, FreezingBodyLeavesOnlyTheHeadTraining) {
  Experiment e = fashionExperiment("resnet18");
  e.model.freeze_body = true;
  const ModelSummary s = summarizeModel(e);
  ASSERT_TRUE(s.ok()) << formatIssues(s.issues);
  EXPECT_TRUE(s.freeze_issues.empty()) << formatIssues(s.freeze_issues);
  EXPECT_EQ(s.total_parameters, libtorchCount(e));
  EXPECT_EQ(trainableOf(s), 512 * 10 + 10);
  for (const ModelSummaryRow& row : s.rows) {
    if (row.outside_name == "fc") {
      EXPECT_EQ(row.frozen, 0);
      EXPECT_TRUE(row.trainable);
    } else {
      EXPECT_EQ(row.frozen, row.parameters) << row.name;
      EXPECT_EQ(row.trainable, row.parameters == 0) << row.name;
    }
  }
}

TEST(ModelSummary, FreezePatternsCountPerRowAndPartlyFrozenResiduals) {
  Experiment e = fashionExperiment("resnet18");
  e.model.freeze = {"layer1.*"};
  const ModelSummary s = summarizeModel(e);
  ASSERT_TRUE(s.ok()) << formatIssues(s.issues);
  int64_t layer1 = 0;
  for (const ModelSummaryRow& row : s.rows) {
    const bool in_layer1 = row.outside_name.rfind("layer1.", 0) == 0;
    EXPECT_EQ(row.frozen, in_layer1 ? row.parameters : 0) << row.name << " " << row.outside_name;
    if (in_layer1 && row.depth == 0) layer1 += row.parameters;
  }
  EXPECT_EQ(layer1, 2 * 2 * (64 * 64 * 9 + 2 * 64));  // two blocks of two convs and two batch norms
  EXPECT_EQ(s.frozen_parameters, layer1);

  // One conv of a block: the block's row is partly frozen, the conv's row wholly.
  e.model.freeze = {"layer1.0.conv1"};
  const ModelSummary partly = summarizeModel(e);
  ASSERT_TRUE(partly.ok()) << formatIssues(partly.issues);
  std::map<std::string, ModelSummaryRow> by_outside;
  for (const ModelSummaryRow& row : partly.rows) by_outside[row.outside_name] = row;
  EXPECT_EQ(by_outside.at("layer1.0.conv1").frozen, 64 * 64 * 9);
  EXPECT_EQ(by_outside.at("layer1.0").frozen, 64 * 64 * 9);
  EXPECT_LT(by_outside.at("layer1.0").frozen, by_outside.at("layer1.0").parameters);
  EXPECT_FALSE(by_outside.at("layer1.0").trainable);
  EXPECT_EQ(by_outside.at("layer1.0.bn1").frozen, 0);
  EXPECT_EQ(partly.frozen_parameters, 64 * 64 * 9);
  EXPECT_EQ(by_outside.at("layer1.0.conv1").thaw_epoch, 0);  // no model.unfreeze: frozen for good
}

// model.unfreeze: each row thaws with the last of its frozen units, nearest the head first (layer4 at epoch
// 3, layer3 at 5); a block with a unit that never thaws has no thaw epoch.
TEST(ModelSummary, RowsSayWhenModelUnfreezeThawsThem) {
  Experiment e = fashionExperiment("resnet18");
  e.model.freeze = {"layer3.*", "layer4.*"};
  e.model.unfreeze.after_epochs = 2;
  e.model.unfreeze.every_epochs = 2;
  const ModelSummary s = summarizeModel(e);
  ASSERT_TRUE(s.ok()) << formatIssues(s.issues);
  std::map<std::string, ModelSummaryRow> by_outside;
  for (const ModelSummaryRow& row : s.rows) by_outside[row.outside_name] = row;
  EXPECT_EQ(by_outside.at("layer4.1").thaw_epoch, 3);
  EXPECT_EQ(by_outside.at("layer4.0.conv1").thaw_epoch, 3);
  EXPECT_EQ(by_outside.at("layer3.0").thaw_epoch, 5);
  EXPECT_EQ(by_outside.at("layer2.1").thaw_epoch, 0);
  EXPECT_EQ(by_outside.at("fc").thaw_epoch, 0);

  // A block holding two units thaws with the later: layer4.* (but conv1) at 3, layer4.0.conv1 at 5.
  e.model.freeze = {"layer4.0.conv1", "layer4.*"};
  by_outside.clear();
  for (const ModelSummaryRow& row : summarizeModel(e).rows) by_outside[row.outside_name] = row;
  EXPECT_EQ(by_outside.at("layer4.0.conv1").thaw_epoch, 5);
  EXPECT_EQ(by_outside.at("layer4.0.conv2").thaw_epoch, 3);
  EXPECT_EQ(by_outside.at("layer4.0").thaw_epoch, 5);
}

// A pattern that picks nothing is the experiment check's error; the table stays, every row training, to
// write the pattern from.
TEST(ModelSummary, AFreezePatternThatPicksNothingIsAnIssueBesideTheTable) {
  Experiment e = fashionExperiment("resnet18");
  e.model.freeze = {"fc", "layer9.*"};
  const ModelSummary s = summarizeModel(e);
  ASSERT_TRUE(s.ok()) << formatIssues(s.issues);
  EXPECT_FALSE(s.rows.empty());
  ASSERT_EQ(s.freeze_issues.size(), 1u);
  EXPECT_EQ(s.freeze_issues.front().path, "model.freeze[1]");
  EXPECT_NE(s.freeze_issues.front().message.find("layer9.*"), std::string::npos)
      << s.freeze_issues.front().message;
  EXPECT_EQ(s.frozen_parameters, 0);
  for (const ModelSummaryRow& row : s.rows) EXPECT_EQ(row.frozen, 0) << row.name;

  Experiment all = fashionExperiment("mlp");
  all.model.freeze = {"*"};
  const ModelSummary everything = summarizeModel(all);
  ASSERT_TRUE(everything.ok()) << formatIssues(everything.issues);
  ASSERT_EQ(everything.freeze_issues.size(), 1u);
  EXPECT_EQ(everything.freeze_issues.front().path, "model.freeze");
  EXPECT_EQ(everything.frozen_parameters, 0);
}

TEST(ModelSummary, ProblemsComeBackWithTheirPaths) {
  Experiment e = fashionExperiment("mlp");
  e.model.preset = "";
  e.model.layers = nlohmann::json::array({{{"type", "conv2d"}, {"out_channels", 8}, {"kernel_size", 3}},
                                          {{"type", "linear"}, {"out_features", 10}}});
  const ModelSummary bad = summarizeModel(e);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.rows.empty());
  EXPECT_EQ(bad.issues.front().path.rfind("model.layers", 0), 0u) << bad.issues.front().path;

  Experiment missing = fashionExperiment("mlp");
  missing.data.path = "/no/such/folder";
  const ModelSummary nodata = summarizeModel(missing);
  ASSERT_FALSE(nodata.ok());
  EXPECT_EQ(nodata.issues.front().path, "data.path");
}

TEST(ModelSummary, TorchScriptListsItsParameters) {
  const std::string dir = test::freshDir("summary-ts");
  torch::jit::Module m("Tiny");
  m.register_parameter("weight", torch::randn({10, 784}).requires_grad_(), false);
  m.register_parameter("bias", torch::zeros({10}).requires_grad_(), false);
  m.define("def forward(self, x):\n  return x.flatten(1).matmul(self.weight.t()) + self.bias\n");
  m.save(dir + "/tiny.pt");
  Experiment e = fashionExperiment("");
  e.model.torchscript = dir + "/tiny.pt";
  const ModelSummary s = summarizeModel(e);
  ASSERT_TRUE(s.ok()) << formatIssues(s.issues);
  EXPECT_TRUE(s.torchscript);
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.total_parameters, 7850);
  EXPECT_EQ(s.total_flops, -1);
  EXPECT_EQ(s.output_shape, (std::vector<int64_t>{10}));

  // model.freeze by the parameter's name, as on a layer list.
  e.model.freeze = {"weight"};
  const ModelSummary frozen = summarizeModel(e);
  ASSERT_TRUE(frozen.ok()) << formatIssues(frozen.issues);
  EXPECT_TRUE(frozen.freeze_issues.empty()) << formatIssues(frozen.freeze_issues);
  EXPECT_EQ(frozen.total_parameters, 7850);
  EXPECT_EQ(frozen.frozen_parameters, 7840);
  EXPECT_FALSE(frozen.rows[0].trainable);
  EXPECT_EQ(frozen.rows[1].frozen, 0);
  e.model.unfreeze.after_epochs = 4;
  EXPECT_EQ(summarizeModel(e).rows[0].thaw_epoch, 5);
  e.model.unfreeze.after_epochs = 0;
  // Refused for leaving nothing to train: the module's parameters as written, not as the refusal left them.
  e.model.freeze = {"*"};
  const ModelSummary refused = summarizeModel(e);
  ASSERT_EQ(refused.freeze_issues.size(), 1u);
  EXPECT_EQ(refused.frozen_parameters, 0);
  EXPECT_TRUE(refused.rows[0].trainable);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace wb
