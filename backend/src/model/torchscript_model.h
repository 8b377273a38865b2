#pragma once
// Model for a TorchScript module (torch.jit.script / torch.jit.trace, saved with .save()). It trains like any
// other model, but its layers are opaque: no FLOPs, and the summary lists parameters instead of layers.

#include <torch/script.h>

#include "model/layer.h"
#include "model/model.h"

namespace wb {

class TorchScriptModel : public Model {
 public:
  // Loads FILE and runs one zero sample through it (eval mode, no grad) to learn its output shape; UserError
  // when the file is missing or unreadable, or the module does not take `inputShape` or give [numClasses].
  TorchScriptModel(const std::string& file, const Shape& inputShape, int64_t numClasses);

  torch::Tensor forward(const torch::Tensor& x) override;
  std::vector<torch::Tensor> parameters() override;
  std::vector<std::pair<std::string, torch::Tensor>> namedParameters() override;
  std::vector<std::pair<std::string, torch::Tensor>> namedBuffers() override;
  void train(bool on) override;
  void to(const torch::Device& device) override;
  // The whole module (a TorchScript file), so the file also loads in Python with torch.jit.load.
  void save(const std::string& file) override;
  // Copies parameters and buffers, matched by name, from a TorchScript file of the same architecture.
  void load(const std::string& file) override;
  ModelInfo info() const override;

 private:
  torch::jit::Module m_module;
  std::string m_file;
  Shape m_outputShape;
};

}  // namespace wb
