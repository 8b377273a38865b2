#pragma once
// Writes one training checkpoint, for a run and for a compression pass's fine-tuning alike: the events
// flushed first (the header's log lengths must include every event up to this step), a header with what every
// checkpoint holds (format, the experiment, the progress, the schedule's and the loss scaler's state, the
// logs' lengths, the torch version) and the caller's own fields, the model's and optimizer's state (and the
// step parts' state, e.g. pruning masks) as the payload, saved atomically through the store, and a log line
// saying so. A sharded run's progress carries the shard files every rank wrote: the header names them.

#include <nlohmann/json.hpp>
#include <string>

#include "model/model.h"
#include "optim/grad_scaler.h"
#include "optim/lr_schedule.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/event_stream.h"
#include "run_folder/run_folder.h"
#include "step/step_part.h"
#include "train/rank_trainer.h"

namespace wb {

class CheckpointWriter {
 public:
  // The references must outlive the writer.
  CheckpointWriter(CheckpointStore& store, EventStream& events, RunFolder& folder,
                   nlohmann::json experiment_json);

  // `extra_meta`: fields of the caller's added to the header (an object). Returns the file's path.
  std::string write(const RankProgress& progress, Model& model, torch::optim::Optimizer& optimizer,
                    const LrSchedule& schedule, const GradScaler& scaler,
                    const nlohmann::json& extra_meta = {}, const PartState& parts_state = {});

 private:
  CheckpointStore& m_store;
  EventStream& m_events;
  RunFolder& m_folder;
  nlohmann::json m_experiment;
  std::string m_payload;  // reused by every checkpoint: growing a fresh buffer each time costs page faults
};

}  // namespace wb
