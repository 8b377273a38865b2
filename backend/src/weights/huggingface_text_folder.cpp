#include "weights/huggingface_text_folder.h"

#include <map>

#include "model/huggingface/text_classifier_config.h"
#include "weights/weights_reader.h"
#include "workbench/errors.h"

namespace wb {
namespace {

bool isClassifier(const std::string& name) {
  return name.rfind("classifier.", 0) == 0;
}

}  // namespace

HuggingFaceTextFolder loadHuggingFaceTextFolder(const std::string& folder,
                                                const std::optional<std::vector<std::string>>& labels) {
  HuggingFaceTextFolder result;
  result.model = buildTextClassifier(folder, labels);
  result.weights_file = huggingFaceWeightsFile(folder);
  WeightsFileContents contents = readWeightsFile(result.weights_file);
  // A base model's names lack the classifier's prefix ("bert.", transformers' base_model_prefix).
  const std::string prefix = result.model->shape().base_prefix;
  bool prefixed = false;
  for (const auto& [name, tensor] : contents.tensors) prefixed = prefixed || name.rfind(prefix, 0) == 0;
  std::map<std::string, torch::Tensor> file;
  for (auto& [name, tensor] : contents.tensors) file.emplace(prefixed ? name : prefix + name, tensor);
  auto own = result.model->named_parameters();
  std::map<std::string, torch::Tensor> copies;
  for (const auto& item : own) {
    const auto found = file.find(item.key());
    if (found == file.end()) {
      result.missing.push_back(item.key());
    } else if (found->second.sizes() == item.value().sizes()) {
      copies.emplace(item.key(), found->second);
    } else if (labels && isClassifier(item.key())) {
      result.replaced.push_back(item.key());
    } else {
      throw UserError(result.weights_file + ": " + item.key() + " is " + c10::str(found->second.sizes()) +
                          " but config.json makes it " + c10::str(item.value().sizes()),
                      "the weights and config.json are of different models");
    }
  }
  for (const auto& [name, tensor] : file) {
    if (own.find(name) == nullptr) result.unexpected.push_back(name);
  }
  torch::NoGradGuard noGrad;
  for (auto& item : own) {
    const auto found = copies.find(item.key());
    if (found != copies.end()) item.value().copy_(found->second);
  }
  return result;
}

}  // namespace wb
