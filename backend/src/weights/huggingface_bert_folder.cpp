#include "weights/huggingface_bert_folder.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "weights/weights_reader.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

BertConfig readConfigFile(const fs::path& folder) {
  const fs::path file = folder / "config.json";
  std::ifstream in(file);
  if (!in) throw UserError(folder.string() + ": no config.json", "choose a Hugging Face model folder");
  try {
    return readBertConfig(nlohmann::json::parse(in), file.string());
  } catch (const nlohmann::json::exception& e) {
    throw UserError(file.string() + ": not JSON (" + e.what() + ")");
  }
}

std::string weightsFileOf(const fs::path& folder) {
  for (const char* name : {"model.safetensors", "pytorch_model.bin"}) {
    if (fs::exists(folder / name)) return (folder / name).string();
  }
  throw UserError(folder.string() + ": no model.safetensors or pytorch_model.bin",
                  "a sharded checkpoint (model-00001-of-….safetensors) is not read yet: save it unsharded");
}

}  // namespace

HuggingFaceBertFolder loadHuggingFaceBertFolder(const std::string& folder) {
  HuggingFaceBertFolder result;
  result.model = BertClassifier(readConfigFile(folder));
  result.weights_file = weightsFileOf(folder);
  WeightsFileContents contents = readWeightsFile(result.weights_file);
  // A base model's names lack the classifier's "bert." prefix (transformers' base_model_prefix).
  bool prefixed = false;
  for (const auto& [name, tensor] : contents.tensors) prefixed = prefixed || name.rfind("bert.", 0) == 0;
  std::map<std::string, torch::Tensor> file;
  for (auto& [name, tensor] : contents.tensors) file.emplace(prefixed ? name : "bert." + name, tensor);
  auto own = result.model->named_parameters();
  for (const auto& item : own) {
    const auto found = file.find(item.key());
    if (found == file.end()) {
      result.missing.push_back(item.key());
    } else if (found->second.sizes() != item.value().sizes()) {
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
    const auto found = file.find(item.key());
    if (found != file.end()) item.value().copy_(found->second);
  }
  return result;
}

}  // namespace wb
