#include "model/huggingface/huggingface_text_model.h"

#include <sstream>
#include <stdexcept>

#include "model/layer_net_model.h"
#include "model/weights_file.h"
#include "util/packed_text_input.h"
#include "workbench/errors.h"

namespace wb {
namespace {

NamedTensors textModelTensors(const torch::OrderedDict<std::string, torch::Tensor>& items) {
  NamedTensors out;
  for (const auto& item : items) {
    if (item.value().defined()) out.emplace_back(item.key(), item.value());
  }
  return out;
}

}  // namespace

HuggingFaceTextModel::HuggingFaceTextModel(std::shared_ptr<TextClassifierImpl> module)
    : m_module(std::move(module)) {}

torch::Tensor HuggingFaceTextModel::forward(const torch::Tensor& x) {
  TextInput input;
  try {
    input = unpackTextInput(x);
  } catch (const std::invalid_argument& e) {
    throw UserError(std::string("the ") + m_module->shape().model_type + " model reads texts: " + e.what(),
                    "give it a text dataset (data.text)");
  }
  return m_module->forward(input.input_ids, input.attention_mask, input.token_type_ids);
}

std::vector<torch::Tensor> HuggingFaceTextModel::parameters() {
  return m_module->parameters();
}

NamedTensors HuggingFaceTextModel::namedParameters() {
  return textModelTensors(m_module->named_parameters());
}

NamedTensors HuggingFaceTextModel::namedBuffers() {
  return textModelTensors(m_module->named_buffers());
}

void HuggingFaceTextModel::train(bool on) {
  m_module->train(on);
}

void HuggingFaceTextModel::to(const torch::Device& device) {
  m_module->to(device);
}

void HuggingFaceTextModel::save(const std::string& file) {
  saveNamedWeights(file, namedParameters(), namedBuffers());
}

void HuggingFaceTextModel::load(const std::string& file) {
  NamedTensors targets = namedParameters();
  const NamedTensors buffers = namedBuffers();
  targets.insert(targets.end(), buffers.begin(), buffers.end());
  loadNamedWeights(file, targets);
}

ModelInfo HuggingFaceTextModel::info() const {
  const TextModelShape s = m_module->shape();
  ModelInfo info;
  for (const auto& p : m_module->parameters()) {
    if (p.requires_grad()) info.parameters += p.numel();
  }
  info.output_shape = {static_cast<int64_t>(s.labels.size())};
  std::ostringstream summary;
  summary << s.model_type << ": " << s.layers << " layers, hidden " << s.hidden_size << ", feed-forward "
          << s.intermediate_size << ", vocabulary " << s.vocab_size << ", " << s.max_positions
          << " positions, " << s.labels.size() << " labels\n";
  for (const auto& [name, tensor] : textModelTensors(m_module->named_parameters())) {
    summary << "  " << name << "  " << c10::str(tensor.sizes()) << "\n";
  }
  summary << "Total parameters: " << groupedThousands(info.parameters) << "\n";
  return info;
}

}  // namespace wb
