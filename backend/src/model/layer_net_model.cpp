#include "model/layer_net_model.h"

#include <cstdio>

#include "model/layer_list.h"
#include "model/layer_names.h"
#include "model/weights_file.h"
#include "workbench/errors.h"

namespace wb {
namespace {

std::vector<std::pair<std::string, torch::Tensor>> definedOnly(
    const torch::OrderedDict<std::string, torch::Tensor>& tensors) {
  std::vector<std::pair<std::string, torch::Tensor>> result;
  for (const auto& item : tensors) {
    if (item.value().defined()) result.emplace_back(item.key(), item.value());
  }
  return result;
}

std::string padded(const std::string& text, size_t width, bool right = false) {
  if (text.size() >= width) return text + " ";
  const std::string fill(width - text.size(), ' ');
  return right ? fill + text : text + fill;
}

bool hasNames(const std::vector<LayerPtr>& layers) {
  for (const LayerPtr& layer : layers) {
    if (!layer->naming().empty()) return true;
    for (const auto& branch : layer->branches()) {
      if (hasNames(*branch.second)) return true;
    }
  }
  return false;
}

// Rows of the layers of `list` and, below each, of its branches. `place` gives the outside names
// (model/layer_names.h); `withNames` adds them as a last column, where a layer has one.
void appendRows(std::string& table, const std::vector<LayerPtr>& layers, const Shape& input,
                const std::string& prefix, int depth, const NamePlace& list, bool withNames) {
  Shape current = input;
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = *layers[i];
    const Shape output = layer.outputShape(current);
    const NamePlace place = layerPlace(list, i, layer.naming());
    std::string row =
        padded(prefix + std::to_string(i), 18) + padded(std::string(2 * depth, ' ') + layer.type(), 22) +
        padded(shapeToString(output), 18) + padded(groupedThousands(layer.parameterCount(current)), 12, true);
    if (withNames && layer.naming().name) row += "  " + place.outside;
    table += row + "\n";
    for (const auto& [branch, branchLayers] : layer.branches()) {
      appendRows(table, *branchLayers, current, prefix + std::to_string(i) + "." + branch + ".", depth + 1,
                 branchPlace(place, layer.naming(), branch), withNames);
    }
    current = output;
  }
}

}  // namespace

std::string groupedThousands(int64_t value) {
  // Appended digit by digit: gcc 12's -Wstringop-overflow misreads std::string::insert in a loop.
  const std::string digits = std::to_string(value < 0 ? -value : value);
  std::string grouped = value < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

std::string layerSummary(const std::vector<LayerPtr>& layers, const Shape& inputShape) {
  // The outside names (torchvision's, for its architectures) as a last column, only for lists that have them.
  const bool withNames = hasNames(layers);
  std::string table = padded("#", 18) + padded("layer", 22) + padded("output shape", 18) +
                      padded("parameters", 12, true) + (withNames ? "  name" : "") + "\n";
  table += padded("", 18) + padded("input", 22) + shapeToString(inputShape) + "\n";
  appendRows(table, layers, inputShape, "", 0, modelListPlace(), withNames);
  char flops[64];
  std::snprintf(flops, sizeof(flops), "%.2f", static_cast<double>(flopsPerSample(layers, inputShape)) / 1e6);
  table += "total: " + groupedThousands(parameterCount(layers, inputShape)) + " parameters, " + flops +
           " MFLOPs per sample\n";
  return table;
}

LayerNetModel::LayerNetModel(std::vector<LayerPtr> layers, Shape inputShape)
    : m_net(std::move(layers), std::move(inputShape)) {
  std::vector<std::string> keys;
  for (const auto& named : namedParameters()) keys.push_back(named.first);
  for (const auto& named : namedBuffers()) keys.push_back(named.first);
  try {
    m_externalNames = outsideNames(m_net->layerList(), keys);
  } catch (const std::invalid_argument& error) {
    throw UserError(std::string("model.layers: ") + error.what(),
                    "give each layer a \"name\" of its own (the module path the outside model uses)");
  }
}

torch::Tensor LayerNetModel::forward(const torch::Tensor& x) {
  return m_net->forward(x);
}

std::vector<torch::Tensor> LayerNetModel::parameters() {
  return m_net->parameters();
}

std::vector<std::pair<std::string, torch::Tensor>> LayerNetModel::namedParameters() {
  return definedOnly(m_net->named_parameters());
}

std::vector<std::pair<std::string, torch::Tensor>> LayerNetModel::namedBuffers() {
  return definedOnly(m_net->named_buffers());
}

void LayerNetModel::train(bool on) {
  m_net->train(on);
}

void LayerNetModel::to(const torch::Device& device) {
  m_net->to(device);
}

void LayerNetModel::save(const std::string& file) {
  saveNamedWeights(file, namedParameters(), namedBuffers());
}

void LayerNetModel::load(const std::string& file) {
  NamedTensors targets = namedParameters();
  const NamedTensors buffers = namedBuffers();
  targets.insert(targets.end(), buffers.begin(), buffers.end());
  loadNamedWeights(file, targets);
}

ModelInfo LayerNetModel::info() const {
  const std::vector<LayerPtr>& layers = m_net->layerList();
  const Shape& input = m_net->inputShape();
  ModelInfo info;
  info.parameters = parameterCount(layers, input);
  info.flops_per_sample = flopsPerSample(layers, input);
  info.output_shape = inferShapes(layers, input, "layers").back();
  info.summary = layerSummary(layers, input);
  return info;
}

}  // namespace wb
