#pragma once
// A Hugging Face text classifier (BERT, DistilBERT: text_classifier.h) as a workbench Model: it reads a
// packed text batch (util/packed_text_input.h) and trains, checkpoints, freezes and groups its parameters by
// transformers' names, which are its own ("bert.encoder.layer.0.attention.self.query.weight"), so a folder's
// weights, a freeze pattern and a no-decay group read as they do in Python.

#include <memory>

#include "model/huggingface/text_classifier.h"
#include "model/model.h"

namespace wb {

class HuggingFaceTextModel : public Model {
 public:
  explicit HuggingFaceTextModel(std::shared_ptr<TextClassifierImpl> module);

  // x: [B, 3, L] int64 (ids, attention mask, token types) -> logits [B, labels].
  torch::Tensor forward(const torch::Tensor& x) override;
  std::vector<torch::Tensor> parameters() override;
  std::vector<std::pair<std::string, torch::Tensor>> namedParameters() override;
  std::vector<std::pair<std::string, torch::Tensor>> namedBuffers() override;
  std::string baseModelPrefix() const override { return m_module->shape().base_prefix; }
  void train(bool on) override;
  void to(const torch::Device& device) override;
  // A torch::serialize archive with one entry per parameter, keyed by its name (as a layer list's).
  void save(const std::string& file) override;
  void load(const std::string& file) override;
  // FLOPs per sample are left 0: they grow with each batch's length.
  ModelInfo info() const override;

  TextClassifierImpl& module() { return *m_module; }

 private:
  std::shared_ptr<TextClassifierImpl> m_module;
};

}  // namespace wb
