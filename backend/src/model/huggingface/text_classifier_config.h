#pragma once
// A Hugging Face model folder's config.json as an untrained text classifier of its model_type (BERT,
// DistilBERT), initialized as LibTorch initializes its modules; its weights come after (weights/).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/huggingface/text_classifier.h"

namespace wb {

// The folder's weights: model.safetensors, else pytorch_model.bin; UserError naming the folder for neither.
std::string huggingFaceWeightsFile(const std::string& folder);

// The model_types read: "bert", "distilbert".
std::vector<std::string> huggingFaceTextModelTypes();

// UserError naming the folder or its config.json: none there, not JSON, a model_type not read, sizes that do
// not fit. `labels`: the classes the classifier is for (default: config.json's id2label).
std::shared_ptr<TextClassifierImpl> buildTextClassifier(
    const std::string& folder, const std::optional<std::vector<std::string>>& labels = {});

}  // namespace wb
