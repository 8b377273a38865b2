// The training state's bytes per device: against hand arithmetic (ZeRO's ÷ N per stage, a pipeline's stages),
// and the parameter, gradient and optimizer figures against the tensors of a real model and optimizer.
#include "workbench/training_memory.h"

#include <gtest/gtest.h>

#include "model/model.h"
#include "optim/optimizer_factory.h"
#include "preflight/training_memory.h"
#include "support/test_experiments.h"

namespace wb {
namespace {

// A hand-made summary: input 100, linear 100→10 (1010 parameters, 2020 FLOPs), relu, linear 10→10 (110).
ModelSummary handSummary() {
  ModelSummary s;
  s.input_shape = {100};
  s.output_shape = {10};
  s.num_classes = 10;
  s.rows.push_back({"0", "linear", "", 0, {10}, 1010, 0, true, 0, 2000});
  s.rows.push_back({"1", "relu", "", 0, {10}, 0, 0, true, 0, 10});
  s.rows.push_back({"2", "linear", "", 0, {10}, 110, 0, true, 0, 200});
  s.total_parameters = 1120;
  s.total_flops = 2210;
  return s;
}

Experiment twoCpuExperiment() {
  Experiment e;
  e.train.devices = {"cpu", "cpu"};
  e.train.batch_size = 8;
  e.optimizer.name = OptimizerName::AdamW;
  return e;
}

const MemoryChoice& choiceNamed(const TrainingMemory& m, const std::string& name) {
  for (const MemoryChoice& choice : m.choices) {
    if (choice.name == name) return choice;
  }
  throw std::runtime_error("no choice " + name);
}

TEST(TrainingMemory, OptimizerStatePerParameter) {
  OptimizerConfig o;
  o.name = OptimizerName::Sgd;
  EXPECT_EQ(optimizerStateBytesPerParameter(o), 0);
  o.momentum = 0.9;
  EXPECT_EQ(optimizerStateBytesPerParameter(o), 4);
  o.name = OptimizerName::Adam;
  EXPECT_EQ(optimizerStateBytesPerParameter(o), 8);
  o.name = OptimizerName::AdamW;
  EXPECT_EQ(optimizerStateBytesPerParameter(o), 8);
  o.name = OptimizerName::RmsProp;
  EXPECT_EQ(optimizerStateBytesPerParameter(o), 8);
  o.momentum = 0;
  EXPECT_EQ(optimizerStateBytesPerParameter(o), 4);
  o.name = OptimizerName::Adagrad;
  EXPECT_EQ(optimizerStateBytesPerParameter(o), 4);
  EXPECT_EQ(shardShare(1120, 2), 560);
  EXPECT_EQ(shardShare(1121, 2), 561);
  EXPECT_EQ(shardShare(1121, 1), 1121);
}

TEST(TrainingMemory, ShardLevelsDivideAsZeroSays) {
  const TrainingMemory m = estimateTrainingMemory(twoCpuExperiment(), handSummary(), {0, 0});
  ASSERT_TRUE(m.problem.empty()) << m.problem;
  ASSERT_EQ(m.choices.size(), 5u);  // none, optimizer, gradients, parameters, pipeline
  EXPECT_EQ(m.activation_elements_per_sample, 30);
  // Activations per device: 8 samples × (30 outputs × 4 B + 100 inputs × 4 B) = 4160.
  const int64_t activations = 8 * (30 * 4 + 100 * 4);
  struct Expected {
    std::string name;
    int64_t parameters, gradients, optimizer;
  };
  const std::vector<Expected> expected = {{"shard none", 1120 * 4, 1120 * 4, 1120 * 8},
                                          {"shard optimizer", 1120 * 4, 1120 * 4, 560 * 8},
                                          {"shard gradients", 1120 * 4, 560 * 4, 560 * 8},
                                          // Its shard and the layer it gathers (1010): no less than the whole
                                          // here, where one layer is most of the model.
                                          {"shard parameters", 1120 * 4, 1120 * 4, 560 * 8}};
  for (const Expected& e : expected) {
    const MemoryChoice& choice = choiceNamed(m, e.name);
    ASSERT_EQ(choice.devices.size(), 2u) << e.name;
    for (const DeviceMemoryEstimate& d : choice.devices) {
      EXPECT_EQ(d.parameters, e.parameters) << e.name;
      EXPECT_EQ(d.gradients, e.gradients) << e.name;
      EXPECT_EQ(d.optimizer_state, e.optimizer) << e.name;
      EXPECT_EQ(d.activations, activations) << e.name;
    }
  }
  EXPECT_TRUE(choiceNamed(m, "shard none").chosen);
  EXPECT_FALSE(choiceNamed(m, "pipeline").chosen);
}

TEST(TrainingMemory, PipelineStagesHoldTheirOwnLayers) {
  Experiment e = twoCpuExperiment();
  e.train.pipeline.enabled = true;
  e.train.pipeline.balanced = true;
  e.train.pipeline.devices = {"cpu", "cpu"};
  e.train.pipeline.micro_batches = 4;
  e.train.pipeline.schedule = PipelineSchedule::OneFOneB;
  const TrainingMemory m = estimateTrainingMemory(e, handSummary(), {0, 0});
  const MemoryChoice& pipeline = choiceNamed(m, "pipeline");
  EXPECT_TRUE(pipeline.chosen);
  EXPECT_FALSE(choiceNamed(m, "shard none").chosen);
  ASSERT_EQ(pipeline.devices.size(), 2u);
  // FLOPs 2000 | 10 + 200: the first linear alone, then relu and the second linear.
  EXPECT_EQ(pipeline.devices[0].stage, "0");
  EXPECT_EQ(pipeline.devices[1].stage, "1..2");
  EXPECT_EQ(pipeline.pipeline_stages_json, R"([["cpu", "0"], ["cpu", "1..2"]])");
  EXPECT_EQ(pipeline.devices[0].parameters, 1010 * 4);
  EXPECT_EQ(pipeline.devices[0].gradients, 1010 * 4);
  EXPECT_EQ(pipeline.devices[0].optimizer_state, 1010 * 8);
  EXPECT_EQ(pipeline.devices[1].parameters, 110 * 4);
  // 1F1B, micro-batches of 2: stage 0 keeps 2 in flight (4 samples: its 10 outputs and the 100 inputs),
  // stage 1 one (2 samples of 20 outputs).
  EXPECT_EQ(pipeline.devices[0].activations, 4 * 10 * 4 + 4 * 100 * 4);
  EXPECT_EQ(pipeline.devices[1].activations, 2 * 20 * 4);
  // GPipe keeps the whole batch on every stage.
  e.train.pipeline.schedule = PipelineSchedule::GPipe;
  const TrainingMemory gpipe = estimateTrainingMemory(e, handSummary(), {0, 0});
  EXPECT_EQ(choiceNamed(gpipe, "pipeline").devices[1].activations, 8 * 20 * 4);
}

// Explicit train.pipeline.stages: the figures are the user's cut, resolved as the run resolves it, not the
// cut the engine would propose ("0" | "1..2" for this model, as above).
TEST(TrainingMemory, ExplicitStagesAreTheUsersCut) {
  Experiment e = twoCpuExperiment();
  e.model.layers = nlohmann::json::array({{{"type", "linear"}, {"out_features", 10}},
                                          {{"type", "relu"}},
                                          {{"type", "linear"}, {"out_features", 10}}});
  e.train.pipeline.enabled = true;
  e.train.pipeline.stages = {{"cpu", "0..1"}, {"cpu", "2"}};
  e.train.pipeline.schedule = PipelineSchedule::GPipe;
  const TrainingMemory m = estimateTrainingMemory(e, handSummary(), {0, 0});
  const MemoryChoice& pipeline = choiceNamed(m, "pipeline");
  ASSERT_TRUE(pipeline.possible()) << pipeline.problem;
  EXPECT_TRUE(pipeline.chosen);
  ASSERT_EQ(pipeline.devices.size(), 2u);
  EXPECT_EQ(pipeline.devices[0].stage, "0..1");
  EXPECT_EQ(pipeline.devices[1].stage, "2");
  EXPECT_EQ(pipeline.pipeline_stages_json, R"([["cpu", "0..1"], ["cpu", "2"]])");
  EXPECT_EQ(pipeline.devices[0].parameters, 1010 * 4);
  EXPECT_EQ(pipeline.devices[1].parameters, 110 * 4);
  // GPipe: the whole batch's outputs of the stage's layers (10 + 10 for stage 0, with the 100 inputs).
  EXPECT_EQ(pipeline.devices[0].activations, 8 * 20 * 4 + 8 * 100 * 4);
  EXPECT_EQ(pipeline.devices[1].activations, 8 * 10 * 4);
  EXPECT_EQ(m.assumptions.find("proposed"), std::string::npos) << m.assumptions;
  // The table names the user's stages.
  std::string table;
  for (const std::string& line : memoryTableLines(m)) table += line + "\n";
  EXPECT_NE(table.find("* pipeline 0..1"), std::string::npos) << table;
  EXPECT_NE(table.find("  pipeline 2 "), std::string::npos) << table;

  // A cut the run would refuse has no figures, and says why as the run would.
  e.train.pipeline.stages = {{"cpu", "0"}, {"cpu", "2"}};
  const TrainingMemory refused = estimateTrainingMemory(e, handSummary(), {0, 0});
  const MemoryChoice& bad = choiceNamed(refused, "pipeline");
  EXPECT_FALSE(bad.possible());
  EXPECT_TRUE(bad.devices.empty());
  EXPECT_NE(bad.problem.find("train.pipeline.stages[1][1]: relu (model.layers[1]) is in no stage"),
            std::string::npos)
      << bad.problem;
}

TEST(TrainingMemory, FrozenParametersHaveNoGradientsNorStateAndAmpHalvesActivations) {
  ModelSummary s = handSummary();
  s.rows[0].frozen = 1010;
  s.rows[0].trainable = false;
  s.frozen_parameters = 1010;
  Experiment e = twoCpuExperiment();
  e.train.devices = {"cpu"};
  e.train.amp = Precision::Bf16;
  const TrainingMemory m = estimateTrainingMemory(e, s, {0});
  ASSERT_EQ(m.choices.size(), 1u);  // one device: nothing to shard, no pipeline
  const DeviceMemoryEstimate& d = m.choices[0].devices[0];
  EXPECT_EQ(d.parameters, 1120 * 4);
  EXPECT_EQ(d.gradients, 110 * 4);
  EXPECT_EQ(d.optimizer_state, 110 * 8);
  EXPECT_EQ(d.activations, 8 * (30 * 2 + 100 * 4));
}

TEST(TrainingMemory, RefusesWhatDoesNotFitAndProposesWhatWould) {
  // none needs 4480 + 4480 + 8960 + 4160 = 22080 B per device; optimizer 17600; gradients 15360; parameters
  // (its shard and the 1010-parameter layer it gathers: the whole model) 17600.
  const Experiment e = twoCpuExperiment();
  const TrainingMemory fits = estimateTrainingMemory(e, handSummary(), {22080, 22080});
  EXPECT_EQ(memoryRefusal(fits), "");
  const TrainingMemory tight = estimateTrainingMemory(e, handSummary(), {16000, 16000});
  const std::string refusal = memoryRefusal(tight);
  EXPECT_NE(refusal.find("shard none needs 21.6 KiB on cpu, which holds 15.6 KiB"), std::string::npos)
      << refusal;
  EXPECT_NE(refusal.find("train.shard \"gradients\" would fit"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find(R"("train": {"shard": "gradients"})"), std::string::npos) << refusal;

  // With 64 samples per device data parallel's activations (64 × 520 B) are not sharded: shard parameters
  // needs 13440 + 33280 = 46720 B. The pipeline's first stage keeps 2 micro-batches of 16 (1F1B) of its own
  // layer's outputs and the inputs: 16160 + 32 × 440 = 30240 B; it fits in 35000.
  Experiment big_batch = e;
  big_batch.train.batch_size = 64;
  const TrainingMemory pipeline_only = estimateTrainingMemory(big_batch, handSummary(), {35000, 35000});
  EXPECT_FALSE(choiceNamed(pipeline_only, "shard parameters").fits());
  EXPECT_EQ(choiceNamed(pipeline_only, "shard parameters").largestDevice(), 46720);
  ASSERT_TRUE(choiceNamed(pipeline_only, "pipeline").fits());
  EXPECT_EQ(choiceNamed(pipeline_only, "pipeline").largestDevice(), 30240);
  const std::string cut = memoryRefusal(pipeline_only);
  EXPECT_NE(cut.find(R"("pipeline": {"stages": [["cpu", "0"], ["cpu", "1..2"]]})"), std::string::npos) << cut;

  const TrainingMemory nothing = estimateTrainingMemory(e, handSummary(), {1000, 1000});
  EXPECT_NE(memoryRefusal(nothing).find("No shard level or pipeline cut fits these 2 devices"),
            std::string::npos)
      << memoryRefusal(nothing);
  Experiment one = e;
  one.train.devices = {"cpu"};
  EXPECT_NE(memoryRefusal(estimateTrainingMemory(one, handSummary(), {1000})).find("One device cannot shard"),
            std::string::npos);
  EXPECT_EQ(memoryRefusal(estimateTrainingMemory(one, handSummary(), {0})), "") << "unknown capacity";
}

TEST(TrainingMemory, TableHasARowPerChoiceAndDevice) {
  const TrainingMemory m = estimateTrainingMemory(twoCpuExperiment(), handSummary(), {16000, 16000});
  const std::vector<std::string> lines = memoryTableLines(m);
  // The header, the column names, 4 shard levels × 2 devices, 2 pipeline stages, the legend.
  ASSERT_EQ(lines.size(), 2u + 8u + 2u + 1u);
  EXPECT_NE(lines[0].find("AdamW: 2 moments (8 B per trainable parameter)"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[2].rfind("* shard none", 0), 0u) << lines[2];
  EXPECT_NE(lines[2].find("does not fit"), std::string::npos) << lines[2];
  EXPECT_NE(lines[7].find(" fits"), std::string::npos) << lines[7];  // shard gradients, second device
  // ZeRO stage 3 (17600 B here: its shard and the layer it gathers) does not fit 16000 either.
  EXPECT_EQ(lines[8].rfind("  shard parameters", 0), 0u) << lines[8];
  EXPECT_NE(lines[8].find("does not fit"), std::string::npos) << lines[8];
  EXPECT_EQ(lines[10].rfind("  pipeline 0 ", 0), 0u) << lines[10];
  EXPECT_EQ(lines[11].rfind("  pipeline 1..2 ", 0), 0u) << lines[11];
}

// Eight linear layers 10→10 (110 parameters each, 880 in all) on 10 inputs: no layer dominates.
ModelSummary evenSummary() {
  ModelSummary s;
  s.input_shape = {10};
  s.output_shape = {10};
  s.num_classes = 10;
  for (int i = 0; i < 8; ++i)
    s.rows.push_back({std::to_string(i), "linear", "", 0, {10}, 110, 0, true, 0, 200});
  s.total_parameters = 880;
  s.total_flops = 1600;
  return s;
}

// Stage 3 holds its shard (440) and one gathered layer (110) of parameters and of gradients; where only
// that fits, `check` proposes it. Optimizer 10560 + 2880 activations = 13440 B; gradients 8800 + 2880 =
// 11680; parameters 550 × 4 × 2 + 440 × 8 = 7920, + 2880 = 10800.
TEST(TrainingMemory, Stage3HoldsItsShardAndOneLayerAndIsProposedWhereOnlyItFits) {
  const Experiment e = twoCpuExperiment();
  const TrainingMemory m = estimateTrainingMemory(e, evenSummary(), {11000, 11000});
  const MemoryChoice& stage3 = choiceNamed(m, "shard parameters");
  ASSERT_TRUE(stage3.possible()) << stage3.problem;
  EXPECT_EQ(stage3.devices[0].parameters, 550 * 4);
  EXPECT_EQ(stage3.devices[0].gradients, 550 * 4);
  EXPECT_EQ(stage3.largestDevice(), 10800);
  EXPECT_FALSE(choiceNamed(m, "shard gradients").fits());
  EXPECT_EQ(choiceNamed(m, "shard gradients").largestDevice(), 11680);
  const std::string refusal = memoryRefusal(m);
  EXPECT_NE(refusal.find(R"("train": {"shard": "parameters"})"), std::string::npos) << refusal;
  // A TorchScript model has no layers to gather one by one: listed, never proposed.
  ModelSummary script = evenSummary();
  script.torchscript = true;
  const TrainingMemory scripted = estimateTrainingMemory(e, script, {11000, 11000});
  const MemoryChoice& refused = choiceNamed(scripted, "shard parameters");
  EXPECT_FALSE(refused.possible());
  EXPECT_NE(refused.problem.find("TorchScript"), std::string::npos) << refused.problem;
}

TEST(TrainingMemory, SaysWhenTheModelCannotBeSummarized) {
  ModelSummary broken;
  broken.issues.push_back({"model.layers[2]", "expects 20 inputs, gets 10"});
  const TrainingMemory m = estimateTrainingMemory(twoCpuExperiment(), broken, {0, 0});
  EXPECT_NE(m.problem.find("model.layers[2]: expects 20 inputs"), std::string::npos) << m.problem;
  EXPECT_TRUE(m.choices.empty());
  EXPECT_EQ(memoryRefusal(m), "");
}

// The figures against a real model and optimizer after a step: every parameter, gradient and state tensor.
struct RealBytes {
  int64_t parameters = 0, gradients = 0, state = 0;
};

RealBytes stepAndCount(const Experiment& e) {
  auto model = buildModel(e.model, {1, 28, 28}, 10);
  auto optimizer = makeOptimizer(e.optimizer, model->namedParameters());
  const torch::Tensor images = torch::randn({4, 1, 28, 28});
  const torch::Tensor labels = torch::randint(0, 10, {4}, torch::kLong);
  torch::nn::functional::cross_entropy(model->forward(images), labels).backward();
  optimizer->step();
  RealBytes bytes;
  for (const torch::Tensor& p : model->parameters()) {
    bytes.parameters += p.numel() * static_cast<int64_t>(p.element_size());
    if (p.grad().defined())
      bytes.gradients += p.grad().numel() * static_cast<int64_t>(p.grad().element_size());
  }
  const auto count = [&](const torch::Tensor& t) {
    if (t.defined()) bytes.state += t.numel() * static_cast<int64_t>(t.element_size());
  };
  for (const auto& [key, state] : optimizer->state()) {
    if (e.optimizer.name == OptimizerName::AdamW) {
      const auto& adam = static_cast<const torch::optim::AdamWParamState&>(*state);
      count(adam.exp_avg());
      count(adam.exp_avg_sq());
      count(adam.max_exp_avg_sq());
    } else {
      count(static_cast<const torch::optim::SGDParamState&>(*state).momentum_buffer());
    }
  }
  return bytes;
}

TEST(TrainingMemory, MatchesTheTensorsOfARealModelAndOptimizer) {
  for (const OptimizerName name : {OptimizerName::AdamW, OptimizerName::Sgd}) {
    Experiment e = test::smallMlpExperiment(std::filesystem::temp_directory_path().string());
    e.model.preset = "cnn";
    e.optimizer.name = name;
    e.optimizer.momentum = name == OptimizerName::Sgd ? 0.9 : 0.0;
    const ModelSummary summary = summarizeModel(e);
    ASSERT_TRUE(summary.ok());
    const TrainingMemory m = estimateTrainingMemory(e, summary, {0});
    const DeviceMemoryEstimate& d = m.choices.at(0).devices.at(0);
    const RealBytes real = stepAndCount(e);
    EXPECT_GT(real.state, 0);
    EXPECT_EQ(d.parameters, real.parameters) << wordOf(name);
    EXPECT_EQ(d.gradients, real.gradients) << wordOf(name);
    EXPECT_EQ(d.optimizer_state, real.state) << wordOf(name);
  }
}

}  // namespace
}  // namespace wb
