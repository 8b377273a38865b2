#include "weights/huggingface_text_folder.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "model/huggingface/bert_classifier.h"
#include "model/huggingface/distilbert_classifier.h"
#include "weights/weights_reader.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

nlohmann::json readConfigFile(const fs::path& folder) {
  const fs::path file = folder / "config.json";
  std::ifstream in(file);
  if (!in) throw UserError(folder.string() + ": no config.json", "choose a Hugging Face model folder");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw UserError(file.string() + ": not JSON (" + e.what() + ")");
  }
}

std::shared_ptr<TextClassifierImpl> buildTextClassifier(
    const nlohmann::json& config, const std::string& file,
    const std::optional<std::vector<std::string>>& labels) {
  const std::string type = config.value("model_type", std::string("?"));
  if (type == "bert") {
    BertConfig c = readBertConfig(config, file);
    if (labels) c.labels = *labels;
    return std::make_shared<BertClassifierImpl>(c);
  }
  if (type == "distilbert") {
    DistilBertConfig c = readDistilBertConfig(config, file);
    if (labels) c.labels = *labels;
    return std::make_shared<DistilBertClassifierImpl>(c);
  }
  throw UserError(
      file + ": model_type is '" + type + "'; text classification reads 'bert' and 'distilbert'",
      "choose the folder of a BERT or DistilBERT model (bert-base-uncased, distilbert-base-uncased "
      "and their fine-tuned kin)");
}

std::string weightsFileOf(const fs::path& folder) {
  for (const char* name : {"model.safetensors", "pytorch_model.bin"}) {
    if (fs::exists(folder / name)) return (folder / name).string();
  }
  throw UserError(folder.string() + ": no model.safetensors or pytorch_model.bin",
                  "a sharded checkpoint (model-00001-of-….safetensors) is not read yet: save it unsharded");
}

bool isClassifier(const std::string& name) {
  return name.rfind("classifier.", 0) == 0;
}

}  // namespace

std::vector<std::string> huggingFaceTextModelTypes() {
  return {"bert", "distilbert"};
}

HuggingFaceTextFolder loadHuggingFaceTextFolder(const std::string& folder,
                                                const std::optional<std::vector<std::string>>& labels) {
  HuggingFaceTextFolder result;
  result.model =
      buildTextClassifier(readConfigFile(folder), (fs::path(folder) / "config.json").string(), labels);
  result.weights_file = weightsFileOf(folder);
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
