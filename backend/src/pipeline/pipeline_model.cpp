#include "pipeline/pipeline_model.h"

#include <algorithm>

#include "workbench/errors.h"

namespace wb {
namespace {

void checkDeviceExists(const StageRange& stage, size_t s) {
  if (!stage.device.is_cuda()) return;
  const int64_t count = torch::cuda::is_available() ? static_cast<int64_t>(torch::cuda::device_count()) : 0;
  const int64_t index = stage.device.has_index() ? stage.device.index() : 0;
  if (index < count) return;
  throw UserError("train.pipeline: stage " + std::to_string(s) + " (" + stage.label + ") runs on " +
                      stage.device.str() + ", but this machine has " +
                      (count == 0 ? std::string("no CUDA device") : std::to_string(count) + " CUDA devices"),
                  "put the stage on \"cpu\" or on a CUDA device that exists");
}

}  // namespace

PipelineModel::PipelineModel(const LayerNetModel& built, std::vector<StageRange> stages)
    : LayerNetModel(built), m_stages(std::move(stages)) {
  torch::nn::Sequential& layers = net()->layers();
  for (size_t s = 0; s < m_stages.size(); ++s) {
    checkDeviceExists(m_stages[s], s);
    for (size_t i = m_stages[s].begin; i < m_stages[s].end; ++i) layers[i]->to(m_stages[s].device);
  }
}

torch::Tensor PipelineModel::runStage(size_t s, torch::Tensor x) {
  torch::nn::Sequential& layers = net()->layers();
  for (size_t i = m_stages[s].begin; i < m_stages[s].end; ++i) {
    x = (layers->begin() + static_cast<std::ptrdiff_t>(i))->forward(x);
  }
  return x;
}

torch::Tensor PipelineModel::forward(const torch::Tensor& x) {
  torch::Tensor h = x;
  for (size_t s = 0; s < m_stages.size(); ++s) h = runStage(s, h.to(m_stages[s].device));
  return h.to(x.device());
}

void PipelineModel::to(const torch::Device& device) {
  LayerNetModel::to(device);
  for (StageRange& stage : m_stages) stage.device = device;
}

std::vector<StageDevice> PipelineModel::stageDevices() const {
  std::vector<StageDevice> devices;
  for (size_t s = 0; s < m_stages.size(); ++s) {
    torch::Device device = m_stages[s].device;
    if (device.is_cuda() && !device.has_index()) device = torch::Device(torch::kCUDA, 0);
    auto found = std::find_if(devices.begin(), devices.end(),
                              [&](const StageDevice& d) { return d.device == device; });
    if (found == devices.end()) found = devices.insert(devices.end(), StageDevice{device, {}});
    found->stages.push_back(static_cast<int64_t>(s));
  }
  return devices;
}

std::string PipelineModel::describe() {
  const std::vector<LayerPtr>& layers = net()->layerList();
  Shape shape = net()->inputShape();
  std::string text = "pipeline: " + std::to_string(m_stages.size()) + " stages";
  for (size_t s = 0; s < m_stages.size(); ++s) {
    int64_t parameters = 0, flops = 0;
    for (size_t i = m_stages[s].begin; i < m_stages[s].end; ++i) {
      parameters += layers[i]->parameterCount(shape);
      flops += layers[i]->flopsPerSample(shape);
      shape = layers[i]->outputShape(shape);
    }
    text += "\n  stage " + std::to_string(s) + ": " + m_stages[s].label + ", model.layers[" +
            std::to_string(m_stages[s].begin) + ".." + std::to_string(m_stages[s].end - 1) + "], " +
            groupedThousands(parameters) + " parameters, " + groupedThousands(flops) +
            " FLOPs per sample, hands on " + shapeToString(shape);
  }
  return text;
}

std::unique_ptr<Model> cutIntoStages(std::unique_ptr<Model> model, const PipelineConfig& pipeline) {
  auto* layered = dynamic_cast<LayerNetModel*>(model.get());
  if (layered == nullptr) {
    throw UserError(
        "train.pipeline: this model is a TorchScript module, which has no layer list to cut into stages",
        "give model.layers or a model.preset (every preset is a layer list), or set train.pipeline to false");
  }
  std::vector<StageRange> stages =
      resolvePipelineStages(pipeline, layered->net()->layerList(), layered->net()->inputShape());
  return std::make_unique<PipelineModel>(*layered, std::move(stages));
}

}  // namespace wb
