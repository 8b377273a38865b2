#pragma once
// One rank's optimizer step, built one way for a run's ranks, a compression pass's fine-tuning, the finders
// and the benchmark, so that what one of them trains is what the others measure: the model (the rank's own,
// or the caller's), what it learns (the task: its loss and figures), its optimizer, the loss scaler (enabled
// for train.amp fp16 only), the step's parts in their order (the caller's first — data parallel's allreduce,
// a pass's masks — then what train.* asks: loss scaling, clipping) and the step's body over them under
// train.amp's autocast. It stays where it was built: the body holds references to the rest.

#include <torch/torch.h>

#include <memory>
#include <optional>

#include "model/model.h"
#include "optim/grad_scaler.h"
#include "step/graphed_step.h"
#include "step/step_parts.h"
#include "step/training_step.h"
#include "task/task.h"
#include "train/training_model.h"
#include "workbench/experiment.h"

namespace wb {

// The model a rank trains, on the rank's device, and its optimizer: the rank's own, or the caller's model (a
// compression pass's, which outlives the rank).
struct RankModel {
  Model& model;
  std::unique_ptr<Model> owned;  // null for the caller's model
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::shared_ptr<FrozenParameters> frozen = nullptr;  // model.freeze; null when nothing is frozen
};
RankModel ownedModel(TrainingModel built);

class RankStep {
 public:
  // `task`: what the model learns (task/make_task.h). `first_parts`: the caller's parts, which come before
  // train.*'s.
  RankStep(const TrainConfig& train, RankModel model, std::shared_ptr<const Task> task, torch::Device device,
           const StepParts& first_parts = {});
  RankStep(const RankStep&) = delete;
  RankStep& operator=(const RankStep&) = delete;

  Model& model() { return m_model; }
  torch::optim::Optimizer& optimizer() { return *m_optimizer; }
  GradScaler& scaler() { return m_scaler; }
  StepParts& parts() { return m_parts; }
  const Task& task() const { return *m_task; }
  // model.freeze's parameters and their thawing; null when nothing is frozen.
  FrozenParameters* frozen() { return m_frozen.get(); }
  // The plain step, or a pipeline's (pipeline/pipeline_step.h) when train.pipeline cut the model.
  TrainingStep& body() { return *m_body; }
  // train.cuda_graphs: whether the step is replayed from a CUDA graph, and the log's line saying so or why
  // not (empty when off). graphed() is the step that does it (made at the first call), null when not.
  const GraphChoice& graphChoice() const { return m_graph_choice; }
  GraphedStep* graphed();
  torch::Device device() const { return m_device; }
  std::optional<c10::ScalarType> ampDtype() const { return m_amp_dtype; }

 private:
  std::unique_ptr<Model> m_owned_model;
  Model& m_model;
  std::unique_ptr<torch::optim::Optimizer> m_optimizer;
  std::shared_ptr<FrozenParameters> m_frozen;
  std::shared_ptr<const Task> m_task;
  torch::Device m_device;
  std::optional<c10::ScalarType> m_amp_dtype;
  GradScaler m_scaler;
  StepParts m_parts;
  std::unique_ptr<TrainingStep> m_body;
  GraphChoice m_graph_choice;
  std::unique_ptr<GraphedStep> m_graphed;
};

}  // namespace wb
