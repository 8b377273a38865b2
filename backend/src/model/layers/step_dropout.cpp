#include "model/layers/step_dropout.h"

#include "model/step_generator.h"
#include "util/default_cpu_generator.h"

namespace wb {

torch::Tensor dropoutWithGenerator(const torch::Tensor& input, double p, torch::Generator& generator) {
  // The steps of ATen's _dropout_impl (the CPU path of torch::dropout), in the same order, so a generator
  // in the same state gives the same mask as torch's dropout would.
  if (p == 0 || input.numel() == 0) return input;
  if (p == 1) return input * torch::zeros({}, input.options());
  torch::Tensor noise = torch::empty_like(input, torch::MemoryFormat::Contiguous);
  noise.bernoulli_(1 - p, generator);
  noise.div_(1 - p);
  return input * noise;
}

torch::Tensor StepDropoutImpl::forward(torch::Tensor input) {
  torch::Generator* generator = stepGenerator();
  if (generator == nullptr || !is_training() || !input.device().is_cpu() || options.inplace()) {
    const auto turn = holdDefaultGenerator(input.device());
    return torch::nn::DropoutImpl::forward(std::move(input));
  }
  return dropoutWithGenerator(input, options.p(), *generator);
}

void StepDropoutImpl::pretty_print(std::ostream& stream) const {
  stream << "wb::StepDropout(p=" << options.p() << ")";
}

}  // namespace wb
