// bench/sharding.sh's measurement (DISABLED_: it runs only when the script asks, one level per process):
// two CPU ranks (threads, Gloo) train a wide MLP with AdamW under train.shard = WB_SHARD_LEVEL, and each
// rank's training state is counted from the tensors it holds — parameters, gradients, AdamW's moments — at
// its peak in the step (when the optimizer steps) and between steps; then steps/s and the process's peak RSS.

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include "distributed/process_group_ranks.h"
#include "model/model.h"
#include "optim/optimizer_factory.h"
#include "support/function_part.h"
#include "support/thread_rank_group.h"
#include "train/data_parallel.h"
#include "train/rank_step.h"
#include "train/sharded_state.h"

namespace wb {
namespace {

int64_t bytesOf(const torch::Tensor& t) {
  return t.defined() ? t.numel() * static_cast<int64_t>(t.element_size()) : 0;
}

struct StateBytes {
  int64_t parameters = 0, gradients = 0, optimizer = 0;
  int64_t total() const { return parameters + gradients + optimizer; }
};

StateBytes countState(Model& model, torch::optim::Optimizer& optimizer) {
  StateBytes b;
  for (const auto& p : model.parameters()) {
    b.parameters += bytesOf(p);
    b.gradients += bytesOf(p.grad());
  }
  for (const auto& [key, state] : optimizer.state()) {
    if (const auto* s = dynamic_cast<const torch::optim::AdamWParamState*>(state.get())) {
      b.optimizer += bytesOf(s->exp_avg()) + bytesOf(s->exp_avg_sq()) + bytesOf(s->max_exp_avg_sq());
    }
  }
  return b;
}

TEST(ShardingBench, DISABLED_TwoRanksStateAndThroughput) {
  const char* level_word = std::getenv("WB_SHARD_LEVEL");
  const ShardLevel level = fromWord<ShardLevel>(level_word ? level_word : "none").value_or(ShardLevel::None);
  const int64_t steps = std::getenv("WB_SHARD_STEPS") ? std::atoll(std::getenv("WB_SHARD_STEPS")) : 30;
  const int64_t width = std::getenv("WB_SHARD_WIDTH") ? std::atoll(std::getenv("WB_SHARD_WIDTH")) : 1024;
  ModelConfig config;
  config.layers = nlohmann::json::array({{{"type", "flatten"}},
                                         {{"type", "linear"}, {"out_features", width}},
                                         {{"type", "relu"}},
                                         {{"type", "linear"}, {"out_features", width}},
                                         {{"type", "relu"}},
                                         {{"type", "linear"}, {"out_features", 10}}});
  OptimizerConfig adamw;
  adamw.name = OptimizerName::AdamW;
  TrainConfig train;
  train.shard = level;
  train.devices = {"cpu", "cpu"};
  auto store = c10::make_intrusive<c10d::HashStore>();
  std::vector<StateBytes> peak(2), between(2);
  std::vector<double> seconds(2);
  test::runRanks(2, [&](int r) {
    at::set_num_threads(1);
    torch::manual_seed(1);
    auto model = buildModel(config, {1, 28, 28}, 10);
    auto optimizer = makeOptimizer(adamw, model->namedParameters());
    RankGroupOptions options;
    auto group = joinRankGroup(store, r, 2, torch::kCPU, options);
    StepParts parts;
    auto parallel = std::make_shared<DataParallelStep>(*model, *group, train, 1);
    parallel->broadcastInitialState();  // the threads drew their initial weights from one shared generator
    parts.add(parallel);
    if (level != ShardLevel::None)
      parts.add(std::make_shared<ShardedTrainingState>(*model, *optimizer, *group, train));
    Model& m = *model;
    torch::optim::Optimizer& opt = *optimizer;
    // Last in the list: what the rank holds when its gradients are ready (the peak: with `optimizer` the
    // other shards' gradients are dropped only as the optimizer steps), and after the step.
    auto counter = std::make_shared<test::FunctionPart>();
    counter->gradients_ready = [&, r] {
      const StateBytes now = countState(m, opt);
      if (now.total() > peak[r].total()) peak[r] = now;
    };
    counter->after_step = [&, r](int64_t) {
      const StateBytes now = countState(m, opt);
      if (now.total() > between[r].total()) between[r] = now;
    };
    parts.add(counter);
    RankStep step(train, RankModel{m, std::move(model), std::move(optimizer)}, torch::kCPU, parts);
    const Batch batch{torch::randn({64, 1, 28, 28}), torch::randint(0, 10, {64}), 0};
    auto one = [&](int64_t k) {
      step.body().begin(k, 1e-3);
      step.body().forwardBackward(batch, 1, true);
      step.body().finish(k + 1);
    };
    one(0);  // warm-up (the state is made at the first step)
    const auto start = std::chrono::steady_clock::now();
    for (int64_t k = 1; k <= steps; ++k) one(k);
    seconds[r] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto mib = [](int64_t b) { return static_cast<double>(b) / (1024.0 * 1024.0); };
  for (int r = 0; r < 2; ++r) {
    std::printf(
        "shard=%s rank=%d peak: params %.1f grads %.1f optim %.1f total %.1f MiB | between steps: total %.1f "
        "MiB "
        "(grads %.1f, optim %.1f) | %.1f steps/s\n",
        wordString(level).c_str(), r, mib(peak[r].parameters), mib(peak[r].gradients), mib(peak[r].optimizer),
        mib(peak[r].total()), mib(between[r].total()), mib(between[r].gradients), mib(between[r].optimizer),
        static_cast<double>(steps) / seconds[r]);
  }
  std::printf("shard=%s process peak RSS (both ranks) %.1f MiB\n", wordString(level).c_str(),
              static_cast<double>(usage.ru_maxrss) / 1024.0);
  // Sharded: the two ranks' optimizer states add up to one whole one (none: each holds all of it).
  if (level != ShardLevel::None) {
    EXPECT_EQ(between[0].optimizer + between[1].optimizer, 2 * between[0].parameters);
  }
}

}  // namespace
}  // namespace wb
