#include "model/huggingface/text_classifier_config.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "model/huggingface/bert_classifier.h"
#include "model/huggingface/distilbert_classifier.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

nlohmann::json readConfigFile(const fs::path& folder) {
  const fs::path file = folder / "config.json";
  std::error_code error;
  if (!fs::is_directory(folder, error)) {
    throw UserError(folder.string() + ": no such folder",
                    "choose a Hugging Face model folder (config.json and weights)");
  }
  std::ifstream in(file);
  if (!in) throw UserError(folder.string() + ": no config.json", "choose a Hugging Face model folder");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw UserError(file.string() + ": not JSON (" + e.what() + ")");
  }
}

}  // namespace

std::string huggingFaceWeightsFile(const std::string& folder) {
  for (const char* name : {"model.safetensors", "pytorch_model.bin"}) {
    if (fs::exists(fs::path(folder) / name)) return (fs::path(folder) / name).string();
  }
  throw UserError(folder + ": no model.safetensors or pytorch_model.bin",
                  "a sharded checkpoint (model-00001-of-….safetensors) is not read yet: save it unsharded");
}

std::vector<std::string> huggingFaceTextModelTypes() {
  return {"bert", "distilbert"};
}

std::shared_ptr<TextClassifierImpl> buildTextClassifier(
    const std::string& folder, const std::optional<std::vector<std::string>>& labels) {
  const nlohmann::json config = readConfigFile(folder);
  const std::string file = (fs::path(folder) / "config.json").string();
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

}  // namespace wb
