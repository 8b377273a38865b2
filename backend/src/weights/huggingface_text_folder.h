#pragma once
// A Hugging Face text classifier's folder (config.json with model.safetensors, or pytorch_model.bin read
// without running its pickle) as our model of its model_type (BERT, DistilBERT), tensor for tensor by
// transformers' names. A base model's folder (BertModel: "embeddings.…" without "bert.") reads the same; what
// the folder lacks (a base model's classifier) stays as initialized and is listed, as transformers' "newly
// initialized" warning lists it. Given the user's labels, a classifier of another size is made anew for them
// (transformers' ignore_mismatched_sizes) and listed as replaced.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/huggingface/text_classifier.h"

namespace wb {

struct HuggingFaceTextFolder {
  std::shared_ptr<TextClassifierImpl> model;
  std::string weights_file;
  std::vector<std::string> missing;     // the model's tensors the file lacks: left as initialized
  std::vector<std::string> replaced;    // the file's classifier tensors of another label count: made anew
  std::vector<std::string> unexpected;  // the file's tensors the model has no place for (a pretraining head)
};

// UserError naming the folder or file: no config.json, a config of a model_type not read, no weights file, a
// tensor whose shape differs from the config's (then nothing is copied). `labels`: the classes the classifier
// is for (default: config.json's id2label).
HuggingFaceTextFolder loadHuggingFaceTextFolder(const std::string& folder,
                                                const std::optional<std::vector<std::string>>& labels = {});

}  // namespace wb
