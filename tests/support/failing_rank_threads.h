#pragma once
// Two CPU ranks of one experiment trained on threads of this process over Gloo (as a run starts them), each
// with the data-parallel step and the parts a test adds after it — typically one that throws on one rank —,
// for the tests that a rank failing mid-step ends the others within the collective timeout, naming it.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <vector>

#include "control/training_control.h"
#include "data/dataset.h"
#include "distributed/process_group_ranks.h"
#include "model/model.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer_factory.h"
#include "parallel/data_parallel.h"
#include "run_folder/event_stream.h"
#include "step/step_parts.h"
#include "task/make_task.h"
#include "train/rank_step.h"
#include "train/rank_trainer.h"
#include "train/training_plan.h"

namespace wb::test {

struct RankThreadsOutcome {
  std::optional<RankFailure> failure;  // what the run would report
  std::vector<std::string> errors;     // per rank: the message it ended with ("" when it did not throw)
  double seconds = 0;                  // from the start to the last rank's end
};

// `add_parts(rank, model, optimizer, group, parts)` adds rank `rank`'s parts after its data-parallel step.
template <typename AddParts>
RankThreadsOutcome trainTwoRankThreads(const Experiment& e, std::chrono::seconds timeout,
                                       AddParts&& add_parts) {
  Dataset data = loadDataset(e.data, e.seed);
  const TrainingPlan plan = planTraining(e.train, data.train.x.size(0) / 2);
  auto store = c10::make_intrusive<c10d::HashStore>();
  const RankLayout layout = layoutRanks(e, std::nullopt);
  RankThreadsOutcome outcome;
  outcome.errors.resize(2);
  const auto started = std::chrono::steady_clock::now();
  outcome.failure = runRankThreads(layout.local, store, 2, [&](size_t i) {
    at::set_num_threads(1);
    torch::manual_seed(e.seed);
    auto model = buildModel(e.model, data.sample_shape, data.num_classes);
    auto optimizer = makeOptimizer(e.optimizer, model->namedParameters());
    LrSchedule schedule(e.schedule, e.optimizer.lr, plan.total_steps);
    EventStream events([](EventBatch&&) {});
    TrainingControl control;
    RankGroupOptions options;
    options.timeout = timeout;
    auto group = joinRankGroup(store, static_cast<int>(i), 2, torch::kCPU, options);
    auto parallel = std::make_shared<DataParallelStep>(*model, *group, e.train, e.seed);
    parallel->broadcastInitialState();
    StepParts parts;
    parts.add(parallel);
    add_parts(i, *model, *optimizer, *group, parts);
    Model& trained = *model;
    RankStep step(e.train, RankModel{trained, std::move(model), std::move(optimizer)}, makeTask(e),
                  torch::kCPU, parts);
    try {
      trainRank(RankSetup{.experiment = e,
                          .data = data,
                          .step = step,
                          .schedule = schedule,
                          .plan = plan,
                          .events = events,
                          .control = control,
                          .checkpoint = [](const RankProgress&) {},
                          .group = group.get(),
                          .rank_devices = layout.devices});
    } catch (const std::exception& err) {
      outcome.errors[i] = err.what();
      throw;
    }
  });
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return outcome;
}

}  // namespace wb::test
