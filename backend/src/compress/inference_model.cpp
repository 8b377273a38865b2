// makeInferenceModel: one forward for every artifact, float or int8, in eval mode without gradients.

#include "compress/model_artifact.h"
#include "compress/quantization.h"

namespace wb {

namespace {

class FloatInference : public InferenceModel {
 public:
  explicit FloatInference(std::unique_ptr<Model> model) : m_model(std::move(model)) { m_model->train(false); }
  torch::Tensor forward(const torch::Tensor& x) override {
    torch::NoGradGuard no_grad;
    return m_model->forward(x);
  }

 private:
  std::unique_ptr<Model> m_model;
};

}  // namespace

std::unique_ptr<InferenceModel> makeInferenceModel(const ModelArtifact& artifact) {
  if (artifact.isQuantized()) return makeQuantizedModel(artifact);
  return std::make_unique<FloatInference>(buildFloatModel(artifact));
}

}  // namespace wb
