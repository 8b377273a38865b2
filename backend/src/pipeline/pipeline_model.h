#pragma once
// A layer-list model cut into pipeline stages (train.pipeline), each stage's layers on its device. It is the
// model a run built (the same modules, so the same parameter names: checkpoints, resume, the saved model and
// export see the whole model as one), with the stages placed; forward() runs the stages one after another
// (evaluation, export), the pipeline's step (pipeline_step.h) runs them on threads, one per stage.

#include <memory>
#include <vector>

#include "model/layer_net_model.h"
#include "pipeline/pipeline_stages.h"
#include "workbench/experiment.h"

namespace wb {

class PipelineModel final : public LayerNetModel {
 public:
  // Shares `built`'s modules and moves each stage's layers to its device.
  PipelineModel(const LayerNetModel& built, std::vector<StageRange> stages);

  // Stage after stage, the activations moved between their devices; the output on `x`'s device.
  torch::Tensor forward(const torch::Tensor& x) override;
  // Every stage onto `device` (the stages stay cut: the step still pipelines them, on that one device).
  void to(const torch::Device& device) override;

  size_t stageCount() const { return m_stages.size(); }
  const StageRange& stage(size_t s) const { return m_stages[s]; }
  // Stage `s`'s layers on `x`, which must be on the stage's device.
  torch::Tensor runStage(size_t s, torch::Tensor x);
  // Each device the stages run on, once, in the stages' order, with its stages (the memory metrics' entries).
  std::vector<StageDevice> stageDevices() const;
  // "pipeline: 2 stages, ..." with each stage's layers, parameters and device, for the run's log.
  std::string describe();

 private:
  std::vector<StageRange> m_stages;
};

// `model` cut by `pipeline` (its stages' devices checked against this machine), or wb::UserError naming a
// model that cannot be cut (a TorchScript module) or a cut that does not fit it.
std::unique_ptr<Model> cutIntoStages(std::unique_ptr<Model> model, const PipelineConfig& pipeline);

}  // namespace wb
