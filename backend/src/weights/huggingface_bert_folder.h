#pragma once
// A Hugging Face BERT folder (config.json with model.safetensors, or pytorch_model.bin read without running
// its pickle) as our BertClassifier, tensor for tensor by transformers' names. A base model's folder
// (BertModel: "embeddings.…" without "bert.") reads the same; what the folder lacks (a base model's
// classifier) stays as initialized and is listed, as transformers' "newly initialized" warning lists it.

#include <string>
#include <vector>

#include "model/huggingface/bert_classifier.h"

namespace wb {

struct HuggingFaceBertFolder {
  BertClassifier model{nullptr};
  std::string weights_file;
  std::vector<std::string> missing;     // the model's tensors the file lacks: left as initialized
  std::vector<std::string> unexpected;  // the file's tensors the model has no place for (a pretraining head)
};

// UserError naming the folder or file: no config.json, a config of another model, no weights file, a tensor
// whose shape differs from the config's (then nothing is copied).
HuggingFaceBertFolder loadHuggingFaceBertFolder(const std::string& folder);

}  // namespace wb
