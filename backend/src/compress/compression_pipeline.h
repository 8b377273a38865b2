#pragma once
// The pipeline of a run's `compress` section: each pass maps the current artifact to the next one, written
// to run/compressed/NN-<pass>/, measured against the original and added to run/compress.json. The pipeline's
// own state (compressed/pipeline.json) lets a stopped or killed pipeline continue: finished passes are
// reused, the pass in flight resumes from its checkpoint.

#include <string>

#include "compress/model_artifact.h"
#include "control/training_control.h"
#include "data/dataset.h"
#include "run_folder/event_stream.h"
#include "run_folder/run_folder.h"
#include "workbench/compression.h"

namespace wb {

struct PassContext {
  const Experiment& experiment;  // the run's
  const std::string& run_dir;
  const Dataset& data;
  const ModelArtifact& original;
  torch::Device device;  // where training passes train
  std::string folder;    // the pass's artifact folder (its logs and checkpoints too)
  EventStream& events;
  RunFolder* pipeline_recorder;
  TrainingControl& control;
};

// Runs one pass on `input`; returns the new artifact (name, source and history are the caller's) and fills
// `record` with what was done. Interrupted (a stop request during its training) → `stopped` set, the
// returned artifact meaningless.
ModelArtifact runPass(const CompressPassConfig& pass, const ModelArtifact& input, PassContext& context,
                      nlohmann::json& record, bool& stopped);

// One pass in words for logs and the report ("structured L1 pruning, 50% of channels").
std::string describePass(const CompressPassConfig& pass);

}  // namespace wb
