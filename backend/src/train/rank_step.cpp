#include "train/rank_step.h"

#include "optim/autocast_guard.h"
#include "pipeline/pipeline_step.h"
#include "step/configured_parts.h"

namespace wb {
namespace {

GradScalerOptions scalerOptions(const TrainConfig& train) {
  GradScalerOptions options;
  options.enabled = train.amp == Precision::Fp16;
  return options;
}

}  // namespace

RankModel ownedModel(TrainingModel built) {
  Model& model = *built.model;
  return {model, std::move(built.model), std::move(built.optimizer), std::move(built.frozen)};
}

RankStep::RankStep(const TrainConfig& train, RankModel model, std::shared_ptr<const Task> task,
                   torch::Device device, const StepParts& first_parts)
    : m_owned_model(std::move(model.owned)),
      m_model(model.model),
      m_optimizer(std::move(model.optimizer)),
      m_frozen(std::move(model.frozen)),
      m_task(std::move(task)),
      m_device(device),
      m_amp_dtype(autocastDtype(train.amp)),
      m_scaler(scalerOptions(train)),
      m_parts(first_parts),
      m_body(
          makeTrainingStep(m_model, *m_optimizer, m_parts, *m_task, m_device, m_amp_dtype, train.pipeline)) {
  addConfiguredParts(m_parts, train, m_model, *m_optimizer, m_scaler);
  m_graph_choice = chooseCudaGraphs(train, m_device, m_parts, *m_optimizer);
  // A pipeline's step runs on its stages' threads and streams, which one graph cannot capture.
  if (train.pipeline.enabled) m_graph_choice = {};
}

GraphedStep* RankStep::graphed() {
  if (m_graph_choice.capture && !m_graphed) {
    m_graphed = std::make_unique<GraphedStep>(*m_body, m_parts, *m_optimizer, m_device);
  }
  return m_graphed.get();
}

}  // namespace wb
