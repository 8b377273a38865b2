// bench/sharding.sh's measurement (DISABLED_: it runs only when the script asks, one level per process):
// WB_SHARD_RANKS CPU ranks (threads, Gloo; 2 by default) train a wide MLP with AdamW under train.shard =
// WB_SHARD_LEVEL, and each rank's training state is counted from the tensors it holds — parameters (the bytes
// their storages hold: stage 3 releases the others'), gradients, AdamW's moments — at its peak in the step
// (as each gradient arrives in backward, and when the optimizer steps) and between steps; then steps/s and
// the process's peak RSS.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include "distributed/process_group_ranks.h"
#include "model/model.h"
#include "optim/optimizer_factory.h"
#include "parallel/data_parallel.h"
#include "parallel/sharded_parameters.h"
#include "parallel/sharded_state.h"
#include "support/function_part.h"
#include "support/thread_rank_group.h"
#include "task/classification_task.h"
#include "torch_compat.h"
#include "train/rank_step.h"

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
    b.parameters += static_cast<int64_t>(p.storage().nbytes());
    b.gradients += bytesOf(p.grad());
  }
  for (const auto& [key, state] : optimizer.state()) {
    if (const auto* s = dynamic_cast<const torch::optim::AdamWParamState*>(state.get())) {
      b.optimizer += bytesOf(s->exp_avg()) + bytesOf(s->exp_avg_sq()) + bytesOf(s->max_exp_avg_sq());
    }
  }
  return b;
}

// Calls `arrived` after a parameter's accumulator has added its gradient; registered before the sharded
// parts' own hooks, it sees a layer's gradients before stage 3 reduces them and releases the layer.
struct BenchGradientHook final : torch::autograd::FunctionPostHook {
  explicit BenchGradientHook(std::function<void()> arrived) : arrived(std::move(arrived)) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list& /*inputs*/) override {
    arrived();
    return outputs;
  }
  std::function<void()> arrived;
};

TEST(ShardingBench, DISABLED_TwoRanksStateAndThroughput) {
  const char* level_word = std::getenv("WB_SHARD_LEVEL");
  const ShardLevel level = fromWord<ShardLevel>(level_word ? level_word : "none").value_or(ShardLevel::None);
  const int64_t steps = std::getenv("WB_SHARD_STEPS") ? std::atoll(std::getenv("WB_SHARD_STEPS")) : 30;
  const int64_t width = std::getenv("WB_SHARD_WIDTH") ? std::atoll(std::getenv("WB_SHARD_WIDTH")) : 1024;
  ModelConfig config;
  const int64_t depth =
      std::getenv("WB_SHARD_DEPTH") ? std::max(1LL, std::atoll(std::getenv("WB_SHARD_DEPTH"))) : 2;
  config.layers = nlohmann::json::array({{{"type", "flatten"}}});
  for (int64_t i = 0; i < depth; ++i) {  // hidden layers of `width`
    config.layers.push_back({{"type", "linear"}, {"out_features", width}});
    config.layers.push_back({{"type", "relu"}});
  }
  config.layers.push_back({{"type", "linear"}, {"out_features", 10}});
  OptimizerConfig adamw;
  adamw.name = OptimizerName::AdamW;
  const int ranks = std::getenv("WB_SHARD_RANKS") ? std::max(2, std::atoi(std::getenv("WB_SHARD_RANKS"))) : 2;
  TrainConfig train;
  train.shard = level;
  train.devices = std::vector<std::string>(static_cast<size_t>(ranks), "cpu");
  auto store = c10::make_intrusive<c10d::HashStore>();
  std::vector<StateBytes> peak(ranks), between(ranks);
  std::vector<double> seconds(ranks);
  test::runRanks(ranks, [&](int r) {
    at::set_num_threads(1);
    torch::manual_seed(1);
    auto model = buildModel(config, {1, 28, 28}, 10);
    auto optimizer = makeOptimizer(adamw, model->namedParameters());
    RankGroupOptions options;
    auto group = joinRankGroup(store, r, ranks, torch::kCPU, options);
    Model& m = *model;
    torch::optim::Optimizer& opt = *optimizer;
    auto sample = [&, r] {
      const StateBytes now = countState(m, opt);
      if (now.total() > peak[r].total()) peak[r] = now;
    };
    std::vector<std::pair<compat::GradAccumulatorPtr, uintptr_t>> hooks;
    for (const auto& p : m.parameters()) {
      compat::GradAccumulatorPtr accumulator = torch::autograd::impl::grad_accumulator(p);
      const uintptr_t key = accumulator->add_post_hook(std::make_unique<BenchGradientHook>(sample));
      hooks.emplace_back(std::move(accumulator), key);
    }
    StepParts parts;
    auto parallel = std::make_shared<DataParallelStep>(*model, *group, train, 1);
    parallel->broadcastInitialState();  // the threads drew their initial weights from one shared generator
    parts.add(parallel);
    if (level != ShardLevel::None) {
      auto sharded = std::make_shared<ShardedTrainingState>(*model, *optimizer, *group, train);
      parts.add(sharded);
      if (level == ShardLevel::Parameters)
        parts.add(std::make_shared<ShardedParameters>(*model, *group, sharded->partition()));
    }
    // Last in the list: what the rank holds when its gradients are ready (the peak: with `optimizer` the
    // other shards' gradients are dropped only as the optimizer steps), and after the step.
    auto counter = std::make_shared<test::FunctionPart>();
    counter->gradients_ready = sample;
    counter->after_step = [&, r](int64_t) {
      const StateBytes now = countState(m, opt);
      if (now.total() > between[r].total()) between[r] = now;
    };
    parts.add(counter);
    RankStep step(train, RankModel{m, std::move(model), std::move(optimizer)},
                  std::make_shared<ClassificationTask>(), torch::kCPU, parts);
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
    for (auto& [node, key] : hooks) node->del_post_hook(key);
  });
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto mib = [](int64_t b) { return static_cast<double>(b) / (1024.0 * 1024.0); };
  for (int r = 0; r < ranks; ++r) {
    std::printf(
        "shard=%s rank=%d peak: params %.1f grads %.1f optim %.1f total %.1f MiB | between steps: total %.1f "
        "MiB "
        "(grads %.1f, optim %.1f) | %.1f steps/s\n",
        wordString(level).c_str(), r, mib(peak[r].parameters), mib(peak[r].gradients), mib(peak[r].optimizer),
        mib(peak[r].total()), mib(between[r].total()), mib(between[r].gradients), mib(between[r].optimizer),
        static_cast<double>(steps) / seconds[r]);
  }
  std::printf("shard=%s process peak RSS (every rank) %.1f MiB\n", wordString(level).c_str(),
              static_cast<double>(usage.ru_maxrss) / 1024.0);
  // Sharded: the ranks' optimizer states add up to one whole one (none: each holds all of it), and at stage 3
  // their parameters too.
  if (level != ShardLevel::None) {
    int64_t optimizer = 0, parameters = 0;
    for (int r = 0; r < ranks; ++r) {
      optimizer += between[r].optimizer;
      parameters += between[r].parameters;
    }
    const int64_t whole = level == ShardLevel::Parameters ? parameters : between[0].parameters;
    EXPECT_EQ(optimizer, 2 * whole);
  }
}

}  // namespace
}  // namespace wb
