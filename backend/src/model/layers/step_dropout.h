#pragma once
// The dropout layer's module: torch::nn::Dropout, except that in training on a CPU input it draws its mask
// from this thread's step generator when one is set (see step_generator.h). Without one, on CUDA, or in
// eval mode it is torch's dropout itself, so runs on one device draw exactly what they drew before. No
// parameters, no buffers: weights files, exports and compression passes see what they saw before.

#include <torch/torch.h>

namespace wb {

// Derives from torch::nn::DropoutImpl so code that looks for a Dropout finds one; forward() hides
// DropoutImpl's (not virtual): call it through this type or an AnyModule/Sequential, as the layer list does.
class StepDropoutImpl : public torch::nn::DropoutImpl {
 public:
  explicit StepDropoutImpl(double p) : torch::nn::DropoutImpl(torch::nn::DropoutOptions(p)) {}
  torch::Tensor forward(torch::Tensor input);
  void pretty_print(std::ostream& stream) const override;
};
TORCH_MODULE(StepDropout);

// Dropout of `input` with probability p, the mask drawn from `generator`: torch's CPU dropout (a
// Bernoulli(1 - p) mask scaled by 1 / (1 - p)) with the generator made explicit. Differentiable in input.
torch::Tensor dropoutWithGenerator(const torch::Tensor& input, double p, torch::Generator& generator);

}  // namespace wb
