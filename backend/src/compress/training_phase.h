#pragma once
// The fine-tuning inside a compression pass: a normal training phase of the trainer (same data, optimizer,
// AMP, checkpoints and devices as the run: one rank per entry of train.devices, data parallel as the run
// trained), with the pass's step parts (masks, gradual pruning, a distillation loss). Its logs and
// checkpoints live in the pass's folder, so a killed pass continues from its last checkpoint.

#include <functional>
#include <memory>
#include <string>

#include "control/training_control.h"
#include "data/dataset.h"
#include "model/model.h"
#include "run_folder/event_stream.h"
#include "run_folder/run_folder.h"
#include "run_folder/training_state.h"
#include "train/rank_trainer.h"
#include "workbench/experiment.h"

namespace wb {

struct TrainingPhase {
  const Experiment& run_experiment;  // the run's: data, optimizer, schedule, train settings
  const CompressPassConfig& pass;    // epochs, max_steps, lr
  const Dataset& data;
  torch::Device device;
  std::string folder;  // the pass's folder: experiment.json, logs, checkpoints/
  EventStream& events;
  RunFolder* outer_recorder;  // where the stream records before and after the phase (the pipeline's folder)
  TrainingControl& control;
  // The pass's parts of one rank's step, in order; what they carry (masks) goes into the phase's checkpoints.
  // Rank 0 trains the pass's own model (its parts are the pass's: they make the artifact); each other rank
  // trains a replica with parts of its own.
  std::function<StepParts(int rank, Model& model, torch::Device device)> parts_for;
  // A model of the pass's architecture for a rank other than 0 (its weights become rank 0's before the first
  // step). Only asked for when train.devices lists several.
  std::function<std::unique_ptr<Model>()> make_replica;
};

// The experiment a pass trains with: the run's, with the pass's epochs/max_steps and learning rate (a tenth
// of optimizer.lr unless set), no warmup and no early stopping.
Experiment phaseExperiment(const Experiment& run, const CompressPassConfig& pass);

// How many steps the phase takes on `samples` training samples (each rank trains its shard).
int64_t phaseTotalSteps(const Experiment& run, const CompressPassConfig& pass, int64_t samples);

// Trains `model` (already on phase.device) to the end of the phase or a stop request; continues from the
// folder's latest checkpoint when there is one. Events are recorded in the pass's folder meanwhile.
RankOutcome runTrainingPhase(TrainingPhase& phase, Model& model);

}  // namespace wb
