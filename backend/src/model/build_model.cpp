// buildModel and checkLayers: from the experiment's model section to a checked layer list and a model.

#include <memory>

#include "model/huggingface/huggingface_text_model.h"
#include "model/huggingface/text_classifier_config.h"
#include "model/layer_list.h"
#include "model/layer_net_model.h"
#include "model/model.h"
#include "model/name_suggestions.h"
#include "model/torchscript_model.h"
#include "model/torchvision/torchvision_init.h"
#include "workbench/errors.h"

namespace wb {
namespace {

const char* const kLayersPath = "model.layers";

std::string formatted(const std::vector<ValidationIssue>& issues) {
  std::string text;
  for (const ValidationIssue& issue : issues)
    text += (text.empty() ? "" : "\n") + issue.path + ": " + issue.message;
  return text;
}

// What to put at the end of a list whose output is not [numClasses].
std::string classesHint(const Shape& output, int64_t numClasses) {
  const std::string head = "{\"type\": \"linear\", \"out_features\": " + std::to_string(numClasses) + "}";
  if (output.size() == 3) return ": end the list with {\"type\": \"flatten\"} and " + head;
  if (output.size() == 2) return ": end the list with {\"type\": \"token_pool\"} and " + head;
  return ": end the list with " + head;
}

// Parses and shape-checks `layers`; the parsed list is only meaningful when no issue was added.
std::vector<LayerPtr> checkedLayers(const nlohmann::json& layers, const Shape& inputShape, int64_t numClasses,
                                    std::vector<ValidationIssue>& issues) {
  const size_t issuesBefore = issues.size();
  const bool imageOrFeatures = inputShape.size() == 3 || inputShape.size() == 1;
  if (!imageOrFeatures ||
      std::any_of(inputShape.begin(), inputShape.end(), [](int64_t d) { return d < 1; })) {
    issues.push_back(
        {kLayersPath, "the data's samples have shape " + shapeToString(inputShape) +
                          "; models take images [channels, height, width] or features [features]"});
    return {};
  }
  if (layers.is_array() && layers.empty()) {
    issues.push_back({kLayersPath,
                      "the layer list is empty: give at least a final {\"type\": \"linear\", "
                      "\"out_features\": " +
                          std::to_string(numClasses) + "}"});
    return {};
  }
  std::vector<LayerPtr> parsed = parseLayerList(layers, kLayersPath, issues);
  if (issues.size() != issuesBefore) return {};
  Shape output;
  try {
    output = inferShapes(parsed, inputShape, kLayersPath).back();
  } catch (const ShapeError& error) {
    issues.push_back({error.path(), error.what()});
    return {};
  }
  if (output != Shape{numClasses}) {
    issues.push_back({kLayersPath, "the model outputs " + shapeToString(output) + " but the data has " +
                                       std::to_string(numClasses) + " classes" +
                                       classesHint(output, numClasses)});
    return {};
  }
  return parsed;
}

// A Hugging Face folder's architecture with a classifier for the data's classes (its weights come after, as
// model.weights's do: weights/). It reads texts: [3, tokens] samples no longer than its positions.
std::unique_ptr<Model> buildHuggingFaceTextModel(const std::string& folder, const Shape& inputShape,
                                                 int64_t numClasses) {
  std::vector<std::string> labels;
  for (int64_t i = 0; i < numClasses; ++i) labels.push_back("LABEL_" + std::to_string(i));
  auto module = buildTextClassifier(folder, labels);
  const TextModelShape shape = module->shape();
  if (inputShape.size() != 2 || inputShape[0] != 3) {
    throw UserError("model.huggingface: the " + shape.model_type +
                        " model reads texts, but the data's samples "
                        "have shape " +
                        shapeToString(inputShape),
                    "set data.dataset to text");
  }
  if (inputShape[1] > shape.max_positions) {
    throw UserError("data.text.max_length: " + std::to_string(inputShape[1]) + " tokens, but " + folder +
                        "/config.json gives the model " + std::to_string(shape.max_positions) + " positions",
                    "set data.text.max_length to " + std::to_string(shape.max_positions) + " or less");
  }
  return std::make_unique<HuggingFaceTextModel>(std::move(module));
}

}  // namespace

std::vector<ValidationIssue> checkLayers(const nlohmann::json& layers,
                                         const std::vector<int64_t>& input_shape, int64_t num_classes) {
  std::vector<ValidationIssue> issues;
  checkedLayers(layers, input_shape, num_classes, issues);
  return issues;
}

std::unique_ptr<Model> buildModel(const ModelConfig& config, const std::vector<int64_t>& input_shape,
                                  int64_t num_classes) {
  const bool hasLayers = !config.layers.is_null();
  if (!config.huggingface.empty())
    return buildHuggingFaceTextModel(config.huggingface, input_shape, num_classes);
  if (!config.torchscript.empty()) {
    if (hasLayers) {
      throw UserError("model: both model.layers and model.torchscript are given",
                      "keep one of them: a layer list or a TorchScript file");
    }
    return std::make_unique<TorchScriptModel>(config.torchscript, input_shape, num_classes);
  }
  std::vector<ValidationIssue> issues;
  if (hasLayers) {
    std::vector<LayerPtr> layers = checkedLayers(config.layers, input_shape, num_classes, issues);
    if (!issues.empty())
      throw UserError(formatted(issues), "fix the layer list in the experiment's model.layers");
    return std::make_unique<LayerNetModel>(std::move(layers), input_shape);
  }
  if (config.preset.empty()) {
    throw UserError("model: no model given", "set model.preset (" + joinedNames(allWords<ModelPreset>()) +
                                                 "), model.layers or model.torchscript");
  }
  const nlohmann::json preset = presetLayers(config.preset, input_shape, num_classes);
  std::vector<LayerPtr> layers = checkedLayers(preset, input_shape, num_classes, issues);
  if (!issues.empty()) {
    // Only odd inputs get here (say a 2x2 image that the cnn preset pools away); its layers are not the
    // user's.
    throw UserError("model.preset: the " + config.preset + " preset does not fit samples of shape " +
                        shapeToString(input_shape) + ":\n" + formatted(issues),
                    "choose another preset, or write model.layers for this data");
  }
  auto model = std::make_unique<LayerNetModel>(std::move(layers), input_shape);
  // presetLayers accepted the word, so it is one of ModelPreset's. torchvision's architectures start from
  // torchvision's initialization; a user's own layer list (above) keeps LibTorch's defaults.
  initializeAsTorchvision(*fromWord<ModelPreset>(config.preset), *model);
  return model;
}

}  // namespace wb
