// Sharded training state (train.shard, ZeRO stages 1 and 2) on CPU ranks: the partition; Gloo's
// reduce-scatter and all-gather against NCCL's definition of them; each level trains the weights data
// parallel and one rank train, while each rank holds only its shard's optimizer state (and gradients); a
// sharded run's checkpoint is written shard by shard and resumes exactly, and on other rank counts; a rank
// that throws ends the others within the timeout.

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
#include "parallel/shard_partition.h"
#include "parallel/sharded_state.h"
#include "run_folder/checkpoint_file.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/event_stream.h"
#include "support/failing_rank_threads.h"
#include "support/function_part.h"
#include "support/gloo_runs.h"
#include "support/model_weights.h"
#include "support/test_experiments.h"
#include "support/test_helpers.h"
#include "support/thread_rank_group.h"
#include "task/classification_task.h"
#include "train/rank_step.h"
#include "train/rank_trainer.h"
#include "train/training_plan.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

TEST(ShardPartition, ContiguousBalancedAndTheSameEveryTime) {
  const ShardPartition p = partitionByNumel({100, 10, 100, 10, 100, 10}, 3);
  EXPECT_EQ(p.owner, (std::vector<int>{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(p.offset, (std::vector<int64_t>{0, 100, 0, 100, 0, 100}));
  EXPECT_EQ(p.shard_numel, (std::vector<int64_t>{110, 110, 110}));
  EXPECT_EQ(p.padded_numel, 110);
  // More ranks than tensors: some shards are empty, the owners still only grow.
  const ShardPartition q = partitionByNumel({5, 0, 5}, 4);
  for (size_t i = 1; i < q.owner.size(); ++i) EXPECT_LE(q.owner[i - 1], q.owner[i]);
  EXPECT_EQ(q.shard_numel[0] + q.shard_numel[1] + q.shard_numel[2] + q.shard_numel[3], 10);
  EXPECT_EQ(partitionByNumel({7, 3}, 1).owner, (std::vector<int>{0, 0}));
}

// The MLP of data_parallel_test, with AdamW, weight decay and clipping: what sharding must leave unchanged.
Experiment shardedExperiment(const std::string& runs, int ranks, ShardLevel level) {
  Experiment e = test::smallMlpExperiment(runs);
  e.name = "shard";
  e.data.limit = 1024;
  e.data.val_fraction = 0;
  e.model.preset = "";
  e.model.layers = nlohmann::json::array({{{"type", "flatten"}},
                                          {{"type", "linear"}, {"out_features", 32}},
                                          {{"type", "relu"}},
                                          {{"type", "linear"}, {"out_features", 10}}});
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
  e.train.bucket_mb = 0.01;  // several reduce-scatter and all-gather chunks
  e.train.checkpoint_every_minutes = 0;
  e.train.log_every_steps = 2;
  e.train.collective_timeout = 30;
  return e;
}

class ShardedDataParallel : public test::GlooRunsTest {
 protected:
  ShardedDataParallel() : GlooRunsTest("shard") {}
};

// Gloo has no reduce-scatter: ours is an allreduce of which each rank keeps its slice. NCCL's is defined as
// the element-wise sum over ranks, rank r receiving elements [r·n, (r+1)·n): the same numbers, exactly.
TEST_F(ShardedDataParallel, GlooReduceScatterAndAllgatherGiveNcclsDefinition) {
  auto store = c10::make_intrusive<c10d::HashStore>();
  std::vector<torch::Tensor> inputs;
  for (int r = 0; r < 2; ++r) inputs.push_back(torch::randn({6}) * (r + 1) + 0.1 * r);
  const torch::Tensor sum = inputs[0] + inputs[1];
  std::vector<torch::Tensor> scattered(2), gathered(2);
  test::runRanks(2, [&](int r) {
    RankGroupOptions options;
    options.timeout = std::chrono::seconds(20);
    auto group = joinRankGroup(store, r, 2, torch::kCPU, options);
    scattered[r] = torch::empty({3});
    group->reduceScatterSum(inputs[r], scattered[r]);
    gathered[r] = torch::empty({4});
    group->allgatherInto(torch::full({2}, static_cast<float>(r + 1)), gathered[r]);
  });
  for (int r = 0; r < 2; ++r) {
    EXPECT_TRUE(torch::equal(scattered[r], sum.narrow(0, 3 * r, 3))) << r;
    EXPECT_TRUE(torch::equal(gathered[r], torch::tensor({1.f, 1.f, 2.f, 2.f}))) << r;
  }
}

// Two ranks, each its half of a batch, stepped by hand: the weights one rank with the whole batch gets, while
// each rank keeps optimizer state (and, at `gradients`, gradients) for its own shard only.
void expectShardedStepsMatchOneRank(ShardLevel level) {
  SCOPED_TRACE(wordString(level));
  Experiment e = shardedExperiment("", 2, level);
  const std::vector<int64_t> shape{1, 28, 28};
  torch::manual_seed(3);
  std::vector<Batch> halves[2];
  std::vector<Batch> wholes;
  for (int k = 0; k < 4; ++k) {
    Batch whole{torch::randn({16, 1, 28, 28}), torch::randint(0, 10, {16}), k};
    wholes.push_back(whole);
    for (int r = 0; r < 2; ++r)
      halves[r].push_back({whole.x.narrow(0, 8 * r, 8), whole.y.narrow(0, 8 * r, 8), k});
  }
  auto train = [&](const std::vector<Batch>& batches, RankGroup* group, std::unique_ptr<Model>& out,
                   size_t* states, int* grads_held) {
    std::unique_ptr<Model> model;
    {
      // The seed is the process's: the rank threads build one at a time, each from the same seed.
      static std::mutex building;
      std::lock_guard<std::mutex> lock(building);
      torch::manual_seed(11);
      model = buildModel(e.model, shape, 10);
    }
    auto optimizer = makeOptimizer(e.optimizer, model->namedParameters());
    StepParts parts;
    std::shared_ptr<ShardedTrainingState> sharded;
    if (group) {
      parts.add(std::make_shared<DataParallelStep>(*model, *group, e.train, e.seed));
      sharded = std::make_shared<ShardedTrainingState>(*model, *optimizer, *group, e.train);
      parts.add(sharded);
    }
    Model& m = *model;
    TrainConfig plain = e.train;
    plain.clip_grad_norm = 0;  // clipping with sharded gradients needs TrainingRank's wiring: tested in runs
    RankStep step(plain, RankModel{m, nullptr, std::move(optimizer)}, std::make_shared<ClassificationTask>(),
                  torch::kCPU, parts);
    for (size_t k = 0; k < batches.size(); ++k) {
      step.body().begin(static_cast<int64_t>(k), e.optimizer.lr);
      step.body().forwardBackward(batches[k], 1, true);
      step.body().finish(static_cast<int64_t>(k) + 1);
    }
    if (states) *states = step.optimizer().state().size();
    if (grads_held) {
      *grads_held = 0;
      for (const auto& p : m.parameters()) *grads_held += p.grad().defined() ? 1 : 0;
    }
    out = std::move(model);
  };
  std::unique_ptr<Model> reference;
  train(wholes, nullptr, reference, nullptr, nullptr);
  test::ThreadRankHub hub(2);
  std::unique_ptr<Model> models[2];
  size_t states[2] = {0, 0};
  int grads[2] = {0, 0};
  test::runRanks(2, [&](int r) {
    test::ThreadRankGroup group(hub, r);
    train(halves[r], &group, models[r], &states[r], &grads[r]);
  });
  // The 784x32 weight is rank 0's shard; its bias and the output layer rank 1's.
  EXPECT_EQ(states[0], 1u);
  EXPECT_EQ(states[1], 3u);
  EXPECT_EQ(grads[0], 1);
  EXPECT_EQ(grads[1], 3);
  const auto ref = reference->parameters();
  for (int r = 0; r < 2; ++r) {
    const auto got = models[r]->parameters();
    for (size_t i = 0; i < ref.size(); ++i) {
      EXPECT_LT((got[i] - ref[i]).abs().max().item<double>(), 1e-6) << "rank " << r << " parameter " << i;
    }
  }
}

TEST(ShardedSteps, OptimizerStateShardedWeightsAsOneRank) {
  expectShardedStepsMatchOneRank(ShardLevel::Optimizer);
}
TEST(ShardedSteps, GradientsShardedWeightsAsOneRank) {
  expectShardedStepsMatchOneRank(ShardLevel::Gradients);
}

TEST_F(ShardedDataParallel, EachLevelTrainsTheWeightsOfDataParallelAndOfOneRank) {
  const RunSummary one = test::trainCollecting(shardedExperiment(runs, 1, ShardLevel::None));
  const RunSummary plain = test::trainCollecting(shardedExperiment(runs, 2, ShardLevel::None));
  ASSERT_EQ(one.status, RunStatus::Completed);
  ASSERT_EQ(plain.status, RunStatus::Completed);
  // Two ranks' half-batch means averaged against one mean: AdamW's division by sqrt(v) carries the last bits
  // of the difference into the weights; sharding must add nothing to it.
  const double data_parallel_gap =
      test::maxWeightDifference(one.run_dir + "/model.pt", plain.run_dir + "/model.pt");
  EXPECT_LT(data_parallel_gap, 2e-4);
  for (ShardLevel level : {ShardLevel::Optimizer, ShardLevel::Gradients}) {
    SCOPED_TRACE(wordString(level));
    std::vector<RunError> errors;
    std::string log;
    const RunSummary sharded = test::trainCollecting(shardedExperiment(runs, 2, level), &errors, &log);
    ASSERT_EQ(sharded.status, RunStatus::Completed) << (errors.empty() ? "" : errors[0].message);
    EXPECT_NE(log.find("each rank keeps its shard's"), std::string::npos) << log;
    EXPECT_EQ(sharded.steps, 8);
    // The same averaged gradients and optimizer arithmetic as data parallel: only the clipping norm's sum
    // may be taken in another order.
    EXPECT_LT(test::maxWeightDifference(plain.run_dir + "/model.pt", sharded.run_dir + "/model.pt"), 1e-6);
    EXPECT_LT(test::maxWeightDifference(one.run_dir + "/model.pt", sharded.run_dir + "/model.pt"),
              data_parallel_gap + 1e-6);
  }
  // One device: one shard, the whole state; the log says so and the training is none's.
  std::string log;
  const RunSummary alone =
      test::trainCollecting(shardedExperiment(runs, 1, ShardLevel::Gradients), nullptr, &log);
  ASSERT_EQ(alone.status, RunStatus::Completed);
  EXPECT_NE(log.find("train.shard gradients: one rank, one shard"), std::string::npos) << log;
  EXPECT_EQ(test::maxWeightDifference(one.run_dir + "/model.pt", alone.run_dir + "/model.pt"), 0.0);
}

// The number of parameters whose optimizer state a checkpoint file's payload holds (the main file's whole
// training state, or a shard file's optimizer alone).
size_t optimizerStates(const std::string& file, bool main_file) {
  std::istringstream in(readCheckpointFile(file).payload);
  torch::serialize::InputArchive archive, optimizer, state;
  archive.load_from(in);
  if (main_file) {
    EXPECT_TRUE(archive.try_read("optimizer", optimizer)) << file;
  } else {
    optimizer = std::move(archive);
  }
  EXPECT_TRUE(optimizer.try_read("state", state)) << file;
  return state.keys().size();
}

// A copy of the stopped run, to resume forced on `ranks` CPU ranks.
RunSummary resumeCopyOn(const std::string& run_dir, const std::string& copy, int ranks) {
  fs::copy(run_dir, copy, fs::copy_options::recursive);
  {
    std::ifstream in(copy + "/experiment.json");
    nlohmann::json j = nlohmann::json::parse(in);
    j["train"]["devices"] = std::vector<std::string>(static_cast<size_t>(ranks), "cpu");
    std::ofstream(copy + "/experiment.json") << j.dump(2);
  }
  std::string log;
  const RunSummary resumed = resumeBlocking({copy, true}, [&](EventBatch&& batch) {
    for (auto& ev : batch) {
      if (auto* line = std::get_if<LogLine>(&ev)) log += line->text + "\n";
    }
  });
  EXPECT_NE(log.find("Continuing at step"), std::string::npos) << log;
  return resumed;
}

// A sharded run's checkpoint is rank 0's main file (no optimizer state) and a shard file per rank with that
// rank's: resumed on the same ranks it ends with the uninterrupted run's weights, and on one or three ranks
// it continues with every parameter's moments (tensor for tensor: sharded_checkpoint_test.cpp).
TEST_F(ShardedDataParallel, StoppedRunResumesExactlyAndOnOneAndThreeRanks) {
  Experiment e = shardedExperiment(runs, 2, ShardLevel::Optimizer);
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

  // The main file names two shard files; the 784x32 weight's AdamW state is rank 0's, the other three rank
  // 1's.
  const CheckpointStore store(stopped.run_dir, 5, true);
  ASSERT_FALSE(store.list().empty());
  const std::vector<std::string> files = store.filesOf(store.list().front());
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(optimizerStates(files[0], true), 0u);
  EXPECT_EQ(optimizerStates(files[1], false), 1u);
  EXPECT_EQ(optimizerStates(files[2], false), 3u);

  for (int ranks : {1, 3}) {
    SCOPED_TRACE(std::to_string(ranks) + " rank(s)");
    const RunSummary other =
        resumeCopyOn(stopped.run_dir, runs + "/copy-" + std::to_string(ranks) + "-ranks", ranks);
    EXPECT_EQ(other.status, RunStatus::Completed);
    // Another rank count plans its own epochs (one rank: one epoch of 16 steps within max_steps 12), so a
    // stop at an epoch's end may leave it nothing to train; it never goes back.
    EXPECT_GE(other.steps, stopped.steps);
  }

  const RunSummary resumed = resumeBlocking({stopped.run_dir, false}, [](EventBatch&&) {});
  ASSERT_EQ(resumed.status, RunStatus::Completed);
  EXPECT_EQ(resumed.steps, 12);
  EXPECT_EQ(test::maxWeightDifference(reference.run_dir + "/model.pt", resumed.run_dir + "/model.pt"), 0.0);
}

// With model.freeze the frozen parameters are in no shard (they have no optimizer state): a stopped 2-rank
// run resumes on one rank with every trainable parameter's state from the shard files.
TEST_F(ShardedDataParallel, FrozenParametersAreInNoShardAndTheRunResumesOnOneRank) {
  Experiment e = shardedExperiment(runs, 2, ShardLevel::Gradients);
  e.model.freeze = {"layers.1.*"};
  // 16 steps on two ranks; one rank's epochs have 16 steps each, so the resume always trains on.
  e.train.epochs = 2;
  e.train.max_steps = 0;
  std::unique_ptr<TrainingRun> training;
  std::atomic<bool> stop_sent{false};
  std::string error;
  training = std::make_unique<TrainingRun>(e, [&](EventBatch&& batch) {
    for (auto& ev : batch) {
      if (auto* m = std::get_if<StepMetrics>(&ev); m && m->step >= 2 && !stop_sent.exchange(true))
        training->requestStop();
      if (auto* err = std::get_if<RunError>(&ev)) error = err->message;
    }
  });
  training->start();
  training->wait();
  const RunSummary stopped = training->summary();
  ASSERT_EQ(stopped.status, RunStatus::Interrupted) << error;
  const CheckpointStore store(stopped.run_dir, 5, true);
  ASSERT_FALSE(store.list().empty());
  const nlohmann::json meta = readCheckpointMeta(store.list().front());
  size_t named = 0;
  for (const auto& shard : meta.at("shards")) {
    for (const auto& name : shard.at("parameters")) {
      EXPECT_EQ(name.get<std::string>().rfind("layers.1.", 0), std::string::npos) << name;
      ++named;
    }
  }
  EXPECT_EQ(named, 2u);  // the output layer's weight and bias
  const RunSummary resumed = resumeCopyOn(stopped.run_dir, runs + "/frozen-one-rank", 1);
  EXPECT_EQ(resumed.status, RunStatus::Completed);
  EXPECT_GT(resumed.steps, stopped.steps);  // it trained on, stepping the restored state
}

TEST_F(ShardedDataParallel, ARankThatThrowsMidStepEndsTheOtherWithinTheTimeout) {
  const Experiment e = shardedExperiment(runs, 2, ShardLevel::Gradients);
  const auto run = test::trainTwoRankThreads(
      e, std::chrono::seconds(5),
      [&e](size_t i, Model& model, torch::optim::Optimizer& optimizer, RankGroup& group, StepParts& parts) {
        if (i == 1) {
          // Between backward and the reduce-scatter: rank 0 is left waiting in it.
          auto failing = std::make_shared<test::FunctionPart>();
          failing->gradients_ready = [n = 0]() mutable {
            if (++n == 3) throw std::runtime_error("injected failure in step 3");
          };
          parts.add(failing);
        }
        parts.add(std::make_shared<ShardedTrainingState>(model, optimizer, group, e.train));
      });
  ASSERT_TRUE(run.failure.has_value());
  EXPECT_EQ(run.failure->rank, 1);
  EXPECT_EQ(run.errors[1], "injected failure in step 3");
  EXPECT_NE(run.errors[0].find("rank 1 failed: injected failure in step 3"), std::string::npos)
      << run.errors[0];
  EXPECT_LT(run.seconds, 20.0);  // the 5 s timeout, not forever
}

}  // namespace
}  // namespace wb
