// With nothing given, the experiment is the CNN on Fashion-MNIST; keys that are missing take the struct's
// defaults; and the written form of the defaults is the complete file, every key named as the docs name it.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backend/experiment/experiment_test_support.h"
#include "workbench/experiment.h"

namespace wb {
namespace {

using nlohmann::json;

TEST(ExperimentDefaults, EmptyObjectIsTheDefaultExperiment) {
  const ParseResult result = parseExperiment(json::object());
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  const Experiment& e = result.experiment;
  EXPECT_EQ(e.name, "");  // runs named after the model and the data
  EXPECT_EQ(e.seed, 42u);
  EXPECT_EQ(e.data.dataset, DatasetName::FashionMnist);
  EXPECT_EQ(e.data.val_fraction, 0.1);
  EXPECT_FALSE(e.data.augment_enabled);  // as in PyTorch: no transform unless one is written
  EXPECT_TRUE(e.data.augment.random_crop);
  EXPECT_EQ(e.data.augment.crop_padding, 2);
  EXPECT_TRUE(e.data.augment.horizontal_flip);
  EXPECT_EQ(e.model.preset, "cnn");
  EXPECT_TRUE(e.model.layers.is_null());
  EXPECT_EQ(e.model.torchscript, "");
  EXPECT_EQ(e.optimizer.name, OptimizerName::AdamW);
  EXPECT_EQ(e.optimizer.lr, 1e-3);
  EXPECT_EQ(e.optimizer.weight_decay, 0.01);  // torch.optim.AdamW's
  EXPECT_EQ(e.optimizer.momentum, 0.0);
  EXPECT_TRUE(e.optimizer.decay_bias_and_norm);
  EXPECT_EQ(e.schedule.name, ScheduleName::Constant);  // no torch scheduler
  EXPECT_EQ(e.train.epochs, 15);
  EXPECT_EQ(e.train.batch_size, 128);
  EXPECT_EQ(e.train.devices, std::vector<std::string>{"cpu"});
  EXPECT_FALSE(e.train.early_stopping.enabled);
  EXPECT_EQ(e.output.runs_dir, "runs");
}

TEST(ExperimentDefaults, NoDocumentAtAllIsTheDefaultExperiment) {
  const ParseResult result = parseExperiment(json());
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_EQ(experimentToJson(result.experiment), experimentToJson(Experiment{}));
}

TEST(ExperimentDefaults, MissingKeysKeepTheirDefaultsBesideGivenOnes) {
  const ParseResult result = test::parseText(R"({"train": {"epochs": 3}, "optimizer": {"lr": 0.01}})");
  ASSERT_TRUE(result.ok()) << formatIssues(result.issues);
  EXPECT_EQ(result.experiment.train.epochs, 3);
  EXPECT_EQ(result.experiment.train.batch_size, 128);
  EXPECT_EQ(result.experiment.optimizer.lr, 0.01);
  EXPECT_EQ(result.experiment.optimizer.name, OptimizerName::AdamW);
  EXPECT_EQ(result.experiment.model.preset, "cnn");
}

// The complete written form of the defaults: pins every key name and the shape parseExperiment reads.
TEST(ExperimentDefaults, WrittenDefaultsAreTheCompleteFile) {
  const json expected = json::parse(R"({
    "name": "",
    "seed": 42,
    "task": "classification",
    "data": {
      "dataset": "fashion-mnist", "path": "", "limit": 0, "val_fraction": 0.1,
      "augment": {"enabled": false, "random_crop": true, "crop_padding": 2, "random_resized_crop": true,
                  "horizontal_flip": true},
      "prefetch": 2, "workers": 2, "augment_on": "workers",
      "images": {"resize": 0, "crop": 0, "channels": 3, "bad_files": "error", "normalize": "folder", "jpeg_draft": false},
      "label_column": "label",
      "text": {"text_column": "text", "text_pair_column": "", "label_column": "label", "tokenizer": "",
               "max_length": 128, "bucket_by_length": true, "bad_rows": "error"},
      "test_path": "", "test_fraction": 0.2,
      "synthetic": {"samples": 2048, "classes": 10, "shape": [1, 28, 28]}
    },
    "model": {"preset": "cnn", "layers": null, "torchscript": "", "huggingface": "", "weights": "",
              "weights_prefix": "", "weights_mismatch": "refuse", "freeze": [], "unfreeze": {"after_epochs": 0, "every_epochs": 0}},
    "optimizer": {
      "name": "adamw", "lr": 0.001, "weight_decay": 0.01, "momentum": 0.0, "nesterov": false,
      "betas": [0.9, 0.999], "eps": 1e-8, "alpha": 0.99, "decay_bias_and_norm": true,
      "fused": true, "param_groups": []
    },
    "schedule": {
      "name": "constant", "warmup_steps": 0, "warmup_start_factor": 0.01, "step_size": 1000, "milestones": [],
      "gamma": 0.1, "t_max": 0, "eta_min": 0.0, "pct_start": 0.3, "anneal_strategy": "cos", "div_factor": 25.0,
      "final_div_factor": 10000.0, "three_phase": false, "mode": "min", "factor": 0.1, "patience": 10,
      "threshold": 0.0001, "threshold_mode": "rel", "cooldown": 0, "min_lr": 0.0
    },
    "train": {
      "epochs": 15, "max_steps": 0, "batch_size": 128, "grad_accum": 1, "clip_grad_norm": 0.0, "amp": "off",
      "devices": ["cpu"], "bucket_mb": 25.0, "sync_batchnorm": false, "shard": "none", "collective_timeout": 300.0,
      "threads": 0, "blas_threads": 0, "cudnn_benchmark": true, "tf32": true,
      "channels_last": false, "pinned_memory": true, "data_on_device": "auto", "cuda_graphs": "auto", "eval_every_epochs": 1, "log_every_steps": 20,
      "checkpoint_every_steps": 0, "checkpoint_every_minutes": 10.0, "keep_checkpoints": 3,
      "early_stopping": {"enabled": false, "metric": "val_loss", "patience": 3, "min_delta": 0.0},
      "pipeline": {"enabled": false, "stages": [], "devices": [], "micro_batches": 4, "schedule": "1f1b"}
    },
    "compress": {"passes": [], "latency_runs": 20, "latency_threads": 0},
    "output": {"runs_dir": "runs"}
  })");
  EXPECT_EQ(experimentToJson(Experiment{}), expected) << experimentToJson(Experiment{}).dump(2);
}

void collectKeyPaths(const json& node, const std::string& path, std::set<std::string>& paths) {
  if (!node.is_object()) return;
  for (const auto& item : node.items()) {
    const std::string keyPath = path.empty() ? item.key() : path + "." + item.key();
    paths.insert(keyPath);
    collectKeyPaths(item.value(), keyPath, paths);
  }
}

std::string readDocs() {
  std::ifstream in(std::string(WB_SOURCE_DIR) + "/docs/experiment.md");
  EXPECT_TRUE(in) << "docs/experiment.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The ```json blocks of the docs, in order.
std::vector<std::string> jsonBlocks(const std::string& docs) {
  std::vector<std::string> blocks;
  const std::string open = "```json\n";
  for (size_t start = docs.find(open); start != std::string::npos; start = docs.find(open, start)) {
    start += open.size();
    const size_t end = docs.find("```", start);
    if (end == std::string::npos) break;
    blocks.push_back(docs.substr(start, end - start));
    start = end + 3;
  }
  return blocks;
}

// docs/experiment.md is the user's reference: a key the parser reads and the docs do not explain is a bug.
TEST(ExperimentDocs, EveryKeyIsDocumented) {
  const std::string docs = readDocs();
  std::set<std::string> paths;
  collectKeyPaths(experimentToJson(Experiment{}), "", paths);
  ASSERT_GT(paths.size(), 70u);
  for (const std::string& path : paths) {
    EXPECT_NE(docs.find("`" + path + "`"), std::string::npos) << path << " is not documented";
  }
}

// The examples must be files the workbench accepts, and "A complete file" must be the defaults exactly.
TEST(ExperimentDocs, ExamplesAreValidAndTheCompleteFileIsTheDefaults) {
  const std::vector<std::string> blocks = jsonBlocks(readDocs());
  ASSERT_GE(blocks.size(), 5u);
  for (const std::string& block : blocks) {
    SCOPED_TRACE(block);
    const json doc = json::parse(block, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(doc.is_discarded()) << "not valid JSON";
    const ParseResult result = parseExperiment(doc);
    EXPECT_TRUE(result.ok()) << formatIssues(result.issues);
  }
  EXPECT_EQ(json::parse(blocks[0]), experimentToJson(Experiment{}));
}

}  // namespace
}  // namespace wb
