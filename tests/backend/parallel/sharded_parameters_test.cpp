// ZeRO stage 3 (train.shard parameters) on CPU ranks: stepped by hand, the weights of data parallel (and of
// one rank where batch norm does not see the batch split) with AdamW and SGD, clipping and batch norm, while
// between steps each rank's trainable parameters hold only its shard's bytes; as a run, the weights of data
// parallel with validation between epochs, a stopped run resuming exactly (and on one rank), a rank that
// throws mid-step ending the other within the timeout, and a TorchScript model refused before training.

#include "parallel/sharded_parameters.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include "control/training_control.h"
#include "data/dataset.h"
#include "distributed/process_group_ranks.h"
#include "model/model.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer_factory.h"
#include "parallel/data_parallel.h"
#include "parallel/shard_checks.h"
#include "parallel/shard_partition.h"
#include "parallel/sharded_state.h"
#include "run_folder/event_stream.h"
#include "step/clip_grad_norm_part.h"
#include "support/failing_rank_threads.h"
#include "support/function_part.h"
#include "support/gloo_runs.h"
#include "support/model_weights.h"
#include "support/test_experiments.h"
#include "support/test_helpers.h"
#include "support/thread_rank_group.h"
#include "task/make_task.h"
#include "train/rank_step.h"
#include "train/rank_trainer.h"
#include "train/training_plan.h"
#include "workbench/training_run.h"

namespace wb {
// Named, not anonymous: the unity build puts this file beside others with their own run() and helpers.
namespace sharded_parameters_test {

namespace fs = std::filesystem;

nlohmann::json mlpLayers() {
  return nlohmann::json::array({{{"type", "flatten"}},
                                {{"type", "linear"}, {"out_features", 32}},
                                {{"type", "relu"}},
                                {{"type", "linear"}, {"out_features", 16}},
                                {{"type", "relu"}},
                                {{"type", "linear"}, {"out_features", 10}}});
}

// The convolution has no bias, as before any batch norm: the norm's mean removes it, so its gradient is
// rounding noise, which AdamW's division by sqrt(v) turns into whole steps that depend on the summing order.
nlohmann::json batchNormLayers() {
  return nlohmann::json::array(
      {{{"type", "conv2d"}, {"out_channels", 4}, {"kernel_size", 3}, {"stride", 2}, {"bias", false}},
       {{"type", "batchnorm2d"}},
       {{"type", "relu"}},
       {{"type", "flatten"}},
       {{"type", "linear"}, {"out_features", 10}}});
}

Experiment stage3Experiment(const std::string& runs, int ranks, ShardLevel level) {
  Experiment e = test::smallMlpExperiment(runs);
  e.name = "stage3";
  e.data.limit = 1024;
  e.data.val_fraction = 0;
  e.model.preset = "";
  e.model.layers = mlpLayers();
  e.optimizer.name = OptimizerName::AdamW;
  e.optimizer.lr = 0.003;
  e.optimizer.weight_decay = 0.05;
  e.schedule.name = ScheduleName::Constant;
  e.train.epochs = 1;
  e.train.max_steps = 8;
  e.train.clip_grad_norm = 0.5;  // small enough to clip: the norm must be the whole gradient's
  e.train.batch_size = 128 / ranks;
  e.train.devices = std::vector<std::string>(static_cast<size_t>(ranks), "cpu");
  e.train.shard = level;
  e.train.bucket_mb = 0.01;  // several reduce-scatter chunks
  e.train.checkpoint_every_minutes = 0;
  e.train.log_every_steps = 2;
  e.train.collective_timeout = 30;
  return e;
}

struct HandTrained {
  std::unique_ptr<Model> model;
  std::vector<int64_t> held_between_steps;        // the trainable parameters' storage bytes after each step
  std::vector<int64_t> gradients_after_backward;  // gradient bytes when backward is done, before any part
  int64_t own_bytes = 0;
  int64_t whole_bytes = 0;
};

// One rank's steps over `batches` as TrainingRank wires them: data parallel's part, then (at `level`) the
// sharded state and, at "parameters", the gathering; clipping sums its norm across the ranks from
// "gradients" on.
// With `micro_batches` 2 each batch is two micro-batches of one step (train.grad_accum).
HandTrained trainByHand(const Experiment& e, const std::vector<Batch>& batches, RankGroup* group,
                        int64_t micro_batches = 1) {
  HandTrained out;
  {
    // The seed is the process's: the rank threads build one at a time, each from the same seed.
    static std::mutex building;
    std::lock_guard<std::mutex> lock(building);
    torch::manual_seed(11);
    out.model = buildModel(e.model, {1, 28, 28}, 10);
  }
  auto optimizer = makeOptimizer(e.optimizer, out.model->namedParameters());
  StepParts parts;
  std::shared_ptr<ShardedTrainingState> sharded;
  std::shared_ptr<ShardedParameters> gathered;
  auto watch = std::make_shared<test::FunctionPart>();
  watch->gradients_ready = [&out, model = out.model.get()] {
    int64_t bytes = 0;
    for (const auto& p : model->parameters()) bytes += p.grad().defined() ? p.grad().nbytes() : 0;
    out.gradients_after_backward.push_back(bytes);
  };
  parts.add(watch);  // first: it sees the gradients as backward left them
  if (group) {
    parts.add(std::make_shared<DataParallelStep>(*out.model, *group, e.train, e.seed));
    if (e.train.shard != ShardLevel::None) {
      sharded = std::make_shared<ShardedTrainingState>(*out.model, *optimizer, *group, e.train);
      parts.add(sharded);
    }
    if (e.train.shard == ShardLevel::Parameters) {
      gathered = std::make_shared<ShardedParameters>(*out.model, *group, sharded->partition());
      parts.add(gathered);
    }
  }
  Model& m = *out.model;
  RankStep step(e.train, RankModel{m, nullptr, std::move(optimizer)}, makeTask(e), torch::kCPU, parts);
  if (auto* clip = dynamic_cast<ClipGradNormPart*>(step.parts().find("clip_grad_norm")); clip && sharded) {
    clip->sumAcrossRanks([group](torch::Tensor& t) { group->allreduceSum(t); });
  }
  for (const auto& p : m.parameters()) out.whole_bytes += static_cast<int64_t>(p.storage().nbytes());
  for (size_t k = 0; k < batches.size(); ++k) {
    step.body().begin(static_cast<int64_t>(k), e.optimizer.lr);
    const int64_t n = batches[k].x.size(0) / micro_batches;
    for (int64_t j = 0; j < micro_batches; ++j) {
      const Batch micro{batches[k].x.narrow(0, j * n, n), batches[k].y.narrow(0, j * n, n), batches[k].index};
      step.body().forwardBackward(micro, micro_batches, j + 1 == micro_batches);
    }
    step.body().finish(static_cast<int64_t>(k) + 1);
    int64_t held = 0;
    for (const auto& p : m.parameters()) held += static_cast<int64_t>(p.storage().nbytes());
    out.held_between_steps.push_back(held);
  }
  if (gathered) {
    out.own_bytes = gathered->ownParameterBytes();
    gathered->gatherAll();
  }
  return out;
}

// Two ranks (threads exchanging through a hub), each its half of the same batches.
std::vector<HandTrained> trainTwoRanks(const Experiment& e, const std::vector<Batch>& wholes,
                                       int64_t micro_batches) {
  std::vector<Batch> halves[2];
  for (const Batch& whole : wholes) {
    for (int r = 0; r < 2; ++r)
      halves[r].push_back({whole.x.narrow(0, 8 * r, 8), whole.y.narrow(0, 8 * r, 8), whole.index});
  }
  test::ThreadRankHub hub(2);
  std::vector<HandTrained> out(2);
  test::runRanks(2, [&](int r) {
    test::ThreadRankGroup group(hub, r);
    out[static_cast<size_t>(r)] = trainByHand(e, halves[r], &group, micro_batches);
  });
  return out;
}

double maxDifference(Model& a, Model& b) {
  const auto x = a.parameters();
  const auto y = b.parameters();
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, (x[i] - y[i]).abs().max().item<double>());
  return worst;
}

void expectStage3AsDataParallel(const nlohmann::json& layers, OptimizerName optimizer,
                                int64_t micro_batches = 1) {
  SCOPED_TRACE(wordString(optimizer) + " on " + layers.dump() + " in micro-batches of " +
               std::to_string(16 / micro_batches));
  Experiment e = stage3Experiment("", 2, ShardLevel::None);
  e.model.layers = layers;
  e.optimizer.name = optimizer;
  if (optimizer == OptimizerName::Sgd) e.optimizer.momentum = 0.9;
  torch::manual_seed(3);
  std::vector<Batch> wholes;
  for (int k = 0; k < 4; ++k)
    wholes.push_back({torch::randn({16, 1, 28, 28}), torch::randint(0, 10, {16}), k});
  const std::vector<HandTrained> plain = trainTwoRanks(e, wholes, micro_batches);
  e.train.shard = ShardLevel::Parameters;
  const std::vector<HandTrained> stage3 = trainTwoRanks(e, wholes, micro_batches);
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_LT(maxDifference(*stage3[r].model, *plain[r].model), 1e-6) << "rank " << r;
    // Between steps: this rank's shard only, a part of the whole.
    EXPECT_GT(stage3[r].own_bytes, 0) << r;
    EXPECT_LT(stage3[r].own_bytes, stage3[r].whole_bytes) << r;
    for (const int64_t held : stage3[r].held_between_steps) EXPECT_EQ(held, stage3[r].own_bytes) << r;
    // Each layer's gradients were reduced to their owners in backward: the shard's gradients alone remain.
    for (const int64_t grads : stage3[r].gradients_after_backward) EXPECT_EQ(grads, stage3[r].own_bytes) << r;
    for (const int64_t grads : plain[r].gradients_after_backward) EXPECT_EQ(grads, plain[r].whole_bytes) << r;
  }
  EXPECT_EQ(stage3[0].own_bytes + stage3[1].own_bytes, stage3[0].whole_bytes);
  // Batch norm normalizes each half by its own statistics: only without it is one rank the reference.
  if (layers == mlpLayers()) {
    e.train.shard = ShardLevel::None;
    const HandTrained one = trainByHand(e, wholes, nullptr, micro_batches);
    EXPECT_LT(maxDifference(*stage3[0].model, *one.model), 2e-4);
  }
}

TEST(ShardedParameterSteps, AdamWWithClippingTrainsTheWeightsOfDataParallelHoldingOneShard) {
  expectStage3AsDataParallel(mlpLayers(), OptimizerName::AdamW);
}
TEST(ShardedParameterSteps, SgdWithBatchNormTrainsTheWeightsOfDataParallelHoldingOneShard) {
  expectStage3AsDataParallel(batchNormLayers(), OptimizerName::Sgd);
}
TEST(ShardedParameterSteps, AdamWWithBatchNormTrainsTheWeightsOfDataParallel) {
  expectStage3AsDataParallel(batchNormLayers(), OptimizerName::AdamW);
}
TEST(ShardedParameterSteps, AccumulatedMicroBatchesTrainTheWeightsOfDataParallel) {
  expectStage3AsDataParallel(mlpLayers(), OptimizerName::AdamW, 2);
}

// A rank's step owns the model and the part is shared beyond it: either may die first. The part's runner
// holds it weakly, so a model whose part is gone runs its layers plainly, and the part's end touches no
// model.
TEST(ShardedParameterSteps, TheModelAndThePartMayDieInEitherOrder) {
  Experiment e = stage3Experiment("", 1, ShardLevel::Parameters);
  torch::manual_seed(5);
  std::unique_ptr<Model> model = buildModel(e.model, {1, 28, 28}, 10);
  const torch::Tensor x = torch::randn({4, 1, 28, 28});
  const torch::Tensor expected = model->forward(x).detach();
  SingleRank group(torch::kCPU);
  std::vector<int64_t> numels;
  for (const auto& p : model->parameters()) numels.push_back(p.numel());
  const ShardPartition partition = partitionByNumel(numels, 1);
  { ShardedParameters part(*model, group, partition); }
  EXPECT_TRUE(torch::equal(model->forward(x).detach(), expected));
  auto part = std::make_shared<ShardedParameters>(*model, group, partition);
  EXPECT_TRUE(torch::equal(model->forward(x).detach(), expected));
  model.reset();
  part.reset();
}

TEST(ShardedParameterChecks, ATorchScriptModelIsRefusedBeforeTraining) {
  Experiment e = stage3Experiment("", 2, ShardLevel::Parameters);
  EXPECT_TRUE(checkShard(e).empty());
  e.model.layers = nullptr;
  e.model.torchscript = "model.pt";
  const auto issues = checkShard(e);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "train.shard");
  EXPECT_NE(issues[0].message.find("TorchScript"), std::string::npos) << issues[0].message;
  EXPECT_NE(issues[0].message.find("use \"gradients\""), std::string::npos) << issues[0].message;
}

std::string runMessage(const std::vector<RunError>& errors) {
  return errors.empty() ? "" : errors[0].message;
}

class ShardedParametersDataParallel : public test::GlooRunsTest {
 protected:
  ShardedParametersDataParallel() : GlooRunsTest("shard3") {}
};

// Validation between the epochs gathers the whole model on every rank; the saved model is the whole one.
TEST_F(ShardedParametersDataParallel, ARunTrainsTheWeightsOfDataParallel) {
  Experiment e = stage3Experiment(runs, 2, ShardLevel::None);
  e.data.val_fraction = 0.1;
  e.train.epochs = 2;
  e.train.max_steps = 0;
  const RunSummary plain = test::trainCollecting(e);
  ASSERT_EQ(plain.status, RunStatus::Completed);
  e.train.shard = ShardLevel::Parameters;
  std::vector<RunError> errors;
  std::string log;
  const RunSummary stage3 = test::trainCollecting(e, &errors, &log);
  ASSERT_EQ(stage3.status, RunStatus::Completed) << runMessage(errors);
  EXPECT_NE(log.find("each rank keeps its shard's parameters"), std::string::npos) << log;
  EXPECT_NE(log.find("gradients averaged layer by layer to their owners"), std::string::npos) << log;
  EXPECT_EQ(stage3.steps, plain.steps);
  EXPECT_LT(test::maxWeightDifference(plain.run_dir + "/model.pt", stage3.run_dir + "/model.pt"), 1e-6);
}

TEST_F(ShardedParametersDataParallel, StoppedRunResumesExactlyAndOnOneRank) {
  Experiment e = stage3Experiment(runs, 2, ShardLevel::Parameters);
  e.train.epochs = 2;
  e.train.max_steps = 12;
  const RunSummary reference = test::trainCollecting(e);
  ASSERT_EQ(reference.status, RunStatus::Completed);

  std::unique_ptr<TrainingRun> training;
  std::atomic<bool> stop_sent{false};
  training = std::make_unique<TrainingRun>(e, [&](EventBatch&& batch) {
    for (auto& ev : batch) {
      if (auto* m = std::get_if<StepMetrics>(&ev); m && m->step >= 4 && !stop_sent.exchange(true))
        training->requestStop();
    }
  });
  training->start();
  training->wait();
  const RunSummary stopped = training->summary();
  ASSERT_EQ(stopped.status, RunStatus::Interrupted);
  ASSERT_LT(stopped.steps, 12);

  const std::string copy = runs + "/one-rank-copy";
  fs::copy(stopped.run_dir, copy, fs::copy_options::recursive);
  {
    std::ifstream in(copy + "/experiment.json");
    nlohmann::json j = nlohmann::json::parse(in);
    j["train"]["devices"] = {"cpu"};
    std::ofstream(copy + "/experiment.json") << j.dump(2);
  }
  EXPECT_EQ(resumeBlocking({copy, true}, [](EventBatch&&) {}).status, RunStatus::Completed);

  const RunSummary resumed = resumeBlocking({stopped.run_dir, false}, [](EventBatch&&) {});
  ASSERT_EQ(resumed.status, RunStatus::Completed);
  EXPECT_EQ(resumed.steps, 12);
  EXPECT_EQ(test::maxWeightDifference(reference.run_dir + "/model.pt", resumed.run_dir + "/model.pt"), 0.0);
}

// Rank 1 throws in its second backward, before its hooks gather the layers: rank 0 is left waiting in a
// layer's gathering inside backward, and must end within the collective timeout.
TEST_F(ShardedParametersDataParallel, ARankThatThrowsMidStepEndsTheOtherWithinTheTimeout) {
  const Experiment e = stage3Experiment(runs, 2, ShardLevel::Parameters);
  const auto run = test::trainTwoRankThreads(
      e, std::chrono::seconds(5),
      [&e](size_t i, Model& model, torch::optim::Optimizer& optimizer, RankGroup& group, StepParts& parts) {
        auto sharded = std::make_shared<ShardedTrainingState>(model, optimizer, group, e.train);
        parts.add(sharded);
        parts.add(std::make_shared<ShardedParameters>(model, group, sharded->partition()));
        if (i == 1) {
          auto failing = std::make_shared<test::FunctionPart>();
          failing->before_backward = [n = 0](bool) mutable {
            if (++n == 2) throw std::runtime_error("injected failure in step 2");
          };
          parts.add(failing);
        }
      });
  ASSERT_TRUE(run.failure.has_value());
  EXPECT_EQ(run.failure->rank, 1);
  EXPECT_EQ(run.errors[1], "injected failure in step 2");
  EXPECT_NE(run.errors[0].find("rank 1 failed: injected failure in step 2"), std::string::npos)
      << run.errors[0];
  EXPECT_LT(run.seconds, 20.0);  // the 5 s timeout, not forever
}

}  // namespace sharded_parameters_test
}  // namespace wb
