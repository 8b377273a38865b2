#pragma once
// The ranks one process trains, launched one way for a run and a compression pass's fine-tuning: built one
// after another on the caller's thread (ranks that are threads would otherwise race for torch's one CPU
// generator while initializing their weights), each restored from the checkpoint the training continues from,
// then trained each on its own thread with its share of the cores (trainLocalRanks): rank 0 reports through
// the caller's stream and writes the checkpoints, the others report through their own logs and only take
// part in them.

#include <c10/util/intrusive_ptr.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "control/training_control.h"
#include "data/dataset.h"
#include "distributed/process_group_ranks.h"
#include "parallel/data_parallel.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/event_stream.h"
#include "train/rank_trainer.h"
#include "train/training_plan.h"
#include "train/training_rank.h"
#include "workbench/experiment.h"

namespace wb {

// What every rank trains with.
struct RankTraining {
  const Experiment& experiment;
  const Dataset& data;
  const TrainingPlan& plan;
  EventStream& events;  // rank 0's; the others' are their logs
  TrainingControl& control;
  const RankProgress* resume_from = nullptr;
  std::function<void(const RankProgress&)> write_checkpoint;  // rank 0's
};

class RankLaunch {
 public:
  explicit RankLaunch(RankLayout layout) : m_layout(std::move(layout)) {}

  // Each local rank in rank order: `set_up` gives it its model and parts (TrainingRank::setUp), then it is
  // restored from `checkpoint` when there is one.
  void build(const std::function<void(TrainingRank&)>& set_up, const LoadedCheckpoint* checkpoint);

  // Trains every rank on its thread and joins them. `store`: where the ranks meet (a launcher's, or made here
  // for several ranks when null); `group_options`: their collectives' timeout and Gloo's address. Returns the
  // failure to report, as trainLocalRanks does.
  std::optional<RankFailure> train(const RankTraining& training, c10::intrusive_ptr<c10d::Store>& store,
                                   const RankGroupOptions& group_options);

  TrainingRank& lead() { return *m_ranks.front(); }
  const RankLayout& layout() const { return m_layout; }
  bool parallel() const { return m_layout.world_size > 1; }

 private:
  RankLayout m_layout;
  std::vector<std::unique_ptr<TrainingRank>> m_ranks;
};

}  // namespace wb
