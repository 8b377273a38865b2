#include "model/torchscript_model.h"

#include <filesystem>
#include <map>

#include "model/layer_net_model.h"
#include "model/weights_file.h"
#include "workbench/errors.h"

namespace wb {
namespace {

torch::jit::Module loadModule(const std::string& file, const std::string& role) {
  try {
    return torch::jit::load(
        file, torch::Device(torch::kCPU));  // the trainer moves it; a CUDA-saved file still loads
  } catch (const c10::Error& error) {
    throw UserError(role + file + ": not a TorchScript file (" + shortErrorText(error) + ")",
                    "save the model in Python with torch.jit.script(model).save(path)");
  }
}

}  // namespace

TorchScriptModel::TorchScriptModel(const std::string& file, const Shape& inputShape, int64_t numClasses)
    : m_file(file) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) {
    throw UserError("model.torchscript: " + file + " does not exist",
                    "check the path; it is read relative to the current folder");
  }
  m_module = loadModule(file, "model.torchscript: ");

  Shape batchShape = {1};
  batchShape.insert(batchShape.end(), inputShape.begin(), inputShape.end());
  const bool wasTraining = m_module.is_training();
  m_module.eval();
  torch::Tensor output;
  try {
    torch::NoGradGuard noGrad;
    output = forward(torch::zeros(batchShape));
  } catch (const UserError&) {
    throw;
  } catch (const std::exception& failure) {
    throw UserError("model.torchscript: " + file + " does not accept inputs of shape " +
                        shapeToString(batchShape) + ": " + shortErrorText(failure),
                    "export the model for this data's sample shape " + shapeToString(inputShape));
  }
  m_module.train(wasTraining);
  m_outputShape = Shape(output.sizes().begin() + 1, output.sizes().end());
  if (m_outputShape != Shape{numClasses}) {
    throw UserError("model.torchscript: " + file + " outputs " + shapeToString(m_outputShape) +
                        " per sample, but the data has " + std::to_string(numClasses) + " classes",
                    "export a model whose last layer has " + std::to_string(numClasses) + " outputs");
  }
}

torch::Tensor TorchScriptModel::forward(const torch::Tensor& x) {
  const c10::IValue output = m_module.forward({x});
  if (!output.isTensor()) {
    throw UserError(
        "model.torchscript: " + m_file + " returns " + output.tagKind() + ", not a tensor of logits",
        "export a model whose forward returns one tensor");
  }
  return output.toTensor();
}

std::vector<torch::Tensor> TorchScriptModel::parameters() {
  std::vector<torch::Tensor> result;
  for (const torch::Tensor& parameter : m_module.parameters(/*recurse=*/true)) result.push_back(parameter);
  return result;
}

std::vector<std::pair<std::string, torch::Tensor>> TorchScriptModel::namedParameters() {
  std::vector<std::pair<std::string, torch::Tensor>> result;
  for (const auto& item : m_module.named_parameters(/*recurse=*/true))
    result.emplace_back(item.name, item.value);
  return result;
}

std::vector<std::pair<std::string, torch::Tensor>> TorchScriptModel::namedBuffers() {
  std::vector<std::pair<std::string, torch::Tensor>> result;
  for (const auto& item : m_module.named_buffers(/*recurse=*/true))
    result.emplace_back(item.name, item.value);
  return result;
}

void TorchScriptModel::train(bool on) {
  m_module.train(on);
}

void TorchScriptModel::to(const torch::Device& device) {
  m_module.to(device);
}

void TorchScriptModel::save(const std::string& file) {
  writeWeightsFile(file, [this](const std::string& tempFile) { m_module.save(tempFile); });
}

void TorchScriptModel::load(const std::string& file) {
  requireWeightsFile(file);
  const torch::jit::Module saved = loadModule(file, "");
  std::map<std::string, torch::Tensor> stored;
  for (const auto& item : saved.named_parameters(/*recurse=*/true)) stored[item.name] = item.value;
  for (const auto& item : saved.named_buffers(/*recurse=*/true)) stored[item.name] = item.value;
  NamedTensors targets = namedParameters();
  const NamedTensors buffers = namedBuffers();
  targets.insert(targets.end(), buffers.begin(), buffers.end());
  copyCheckedWeights(file, targets, [&stored](const std::string& name, torch::Tensor& tensor) {
    const auto it = stored.find(name);
    if (it == stored.end()) return false;
    tensor = it->second;
    return true;
  });
}

ModelInfo TorchScriptModel::info() const {
  ModelInfo info;
  info.output_shape = m_outputShape;
  std::string rows;
  for (const auto& item : m_module.named_parameters(/*recurse=*/true)) {
    if (item.value.requires_grad()) info.parameters += item.value.numel();
    std::string name = item.name;
    name.resize(std::max<size_t>(name.size() + 1, 40), ' ');
    std::string shape = shapeToString(item.value.sizes().vec());
    shape.resize(std::max<size_t>(shape.size() + 1, 20), ' ');
    rows += name + shape + groupedThousands(item.value.numel()) + "\n";
  }
  info.summary = "TorchScript " + m_file +
                 "\nparameter                               shape               count\n" + rows +
                 "total: " + groupedThousands(info.parameters) + " trainable parameters (FLOPs unknown)\n";
  return info;
}

}  // namespace wb
