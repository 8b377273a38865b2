#include "model/layers/sync_batch_norm.h"

#include <cstdint>
#include <vector>

#include "distributed/rank_group.h"
#include "torch_compat.h"

// LibTorch 1.13 declares BatchNormImplBase::pretty_print in its header but exports no instance of it (its own
// BatchNorm1d/2d use it internally), and a class derived from BatchNorm1dImpl/BatchNorm2dImpl needs one for
// its construction vtables: the same text as LibTorch's (torch/csrc/api/src/nn/modules/batchnorm.cpp). 2.x
// defines it in the header (checked: 2.11).
#if !WB_TORCH_AT_LEAST(2, 0)
namespace torch::nn {

template <size_t D, typename Derived>
void BatchNormImplBase<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::BatchNorm" << D << "d(" << this->options.num_features() << ", "
         << "eps=" << this->options.eps() << ", momentum=";
  if (this->options.momentum().has_value()) {
    stream << this->options.momentum().value();
  } else {
    stream << "None";
  }
  stream << ", affine=" << this->options.affine()
         << ", track_running_stats=" << this->options.track_running_stats() << ")";
}

}  // namespace torch::nn
#endif

namespace wb {
namespace {

class AllreduceSum : public torch::autograd::Function<AllreduceSum> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& input,
                               RankGroup* group) {
    ctx->saved_data["group"] = static_cast<int64_t>(reinterpret_cast<intptr_t>(group));
    torch::Tensor sum = input.clone(torch::MemoryFormat::Contiguous);
    group->allreduceSum(sum);
    return sum;
  }

  // Every rank's loss depends on the sum, and so on every rank's input: the gradient of an input is the sum
  // of the gradients the ranks bring to their copy of the sum. (Undefined gradients arrive as zeros, so the
  // ranks always meet here.)
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    auto* group = reinterpret_cast<RankGroup*>(static_cast<intptr_t>(ctx->saved_data["group"].toInt()));
    torch::Tensor sum = grads[0].clone(torch::MemoryFormat::Contiguous);
    group->allreduceSum(sum);
    return {sum, torch::Tensor()};
  }
};

// The training-mode forward of both modules, on the module's options, parameters and buffers.
template <size_t D, typename Derived>
torch::Tensor syncBatchNormTraining(torch::nn::BatchNormImplBase<D, Derived>& bn, const torch::Tensor& input,
                                    RankGroup& group) {
  const int64_t channels = bn.options.num_features();
  // Statistics of bf16/fp16 activations (autocast) in float32; the output goes back to the input's type.
  const bool reduced = input.scalar_type() == torch::kBFloat16 || input.scalar_type() == torch::kHalf;
  const torch::Tensor x = reduced ? input.to(torch::kFloat) : input;
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  std::vector<int64_t> perChannel(static_cast<size_t>(x.dim()), 1);
  perChannel[1] = channels;

  // Sums of squares around the running mean rather than around 0: E[x²] - E[x]² then subtracts numbers of
  // the size of the variance, not of the squared mean, and float32 keeps its digits. The running mean is the
  // same on every rank (broadcast at the start, then updated from the same global statistics), as the
  // shifted sums of the ranks must share their shift to be added up.
  const torch::Tensor shift = bn.running_mean.defined()
                                  ? bn.running_mean.detach().to(x.device(), x.scalar_type()).clone()
                                  : torch::zeros({channels}, x.options());
  const torch::Tensor centred = x - shift.view(perChannel);
  const int64_t count = channels > 0 ? x.numel() / channels : 0;
  // One collective for all three: [sum (C), sum of squares (C), count (1)].
  const torch::Tensor local = torch::cat({centred.sum(dims), centred.square().sum(dims),
                                          torch::full({1}, static_cast<double>(count), x.options())});
  const torch::Tensor global = allreduceSumWithGrad(local, group);

  const torch::Tensor n = global.narrow(0, 2 * channels, 1);
  const torch::Tensor meanShifted = global.narrow(0, 0, channels) / n;
  const torch::Tensor var = (global.narrow(0, channels, channels) / n - meanShifted.square()).clamp_min(0);
  const torch::Tensor invstd = torch::rsqrt(var + bn.options.eps());
  const torch::Tensor scale = bn.weight.defined() ? bn.weight.to(x.scalar_type()) * invstd : invstd;
  torch::Tensor offset = -meanShifted * scale;
  if (bn.bias.defined()) offset = offset + bn.bias.to(x.scalar_type());
  // (x - mean) * invstd * weight + bias, as one pass over the activations.
  const torch::Tensor output = torch::addcmul(offset.view(perChannel), centred, scale.view(perChannel));

  if (bn.options.track_running_stats() && bn.running_mean.defined()) {
    torch::NoGradGuard noGrad;
    double factor = bn.options.momentum().value_or(0.0);
    if (bn.num_batches_tracked.defined()) {
      bn.num_batches_tracked += 1;
      if (!bn.options.momentum()) factor = 1.0 / bn.num_batches_tracked.template item<double>();
    }
    const torch::Tensor mean = shift + meanShifted.detach();
    const torch::Tensor unbiased = var.detach() * n / (n - 1);  // n: global count, on the device (no sync)
    bn.running_mean.mul_(1 - factor).add_(mean.to(bn.running_mean.scalar_type()), factor);
    bn.running_var.mul_(1 - factor).add_(unbiased.to(bn.running_var.scalar_type()), factor);
  }
  return reduced ? output.to(input.scalar_type()) : output;
}

void printSync(std::ostream& stream, const char* name, const torch::nn::BatchNormOptions& options,
               const RankGroup& group) {
  stream << std::boolalpha << "wb::" << name << "(" << options.num_features() << ", eps=" << options.eps()
         << ", momentum=" << options.momentum().value_or(0.0) << ", affine=" << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ", ranks=" << group.size() << ")";
}

}  // namespace

torch::Tensor allreduceSumWithGrad(const torch::Tensor& input, RankGroup& group) {
  return AllreduceSum::apply(input, &group);
}

SyncBatchNorm1dImpl::SyncBatchNorm1dImpl(int64_t features, RankGroup& group)
    : torch::nn::BatchNorm1dImpl(torch::nn::BatchNormOptions(features)), m_group(&group) {}

torch::Tensor SyncBatchNorm1dImpl::forward(const torch::Tensor& input) {
  if (!is_training()) return torch::nn::BatchNorm1dImpl::forward(input);
  _check_input_dim(input);
  return syncBatchNormTraining(*this, input, *m_group);
}

void SyncBatchNorm1dImpl::pretty_print(std::ostream& stream) const {
  printSync(stream, "SyncBatchNorm1d", options, *m_group);
}

SyncBatchNorm2dImpl::SyncBatchNorm2dImpl(int64_t channels, RankGroup& group)
    : torch::nn::BatchNorm2dImpl(torch::nn::BatchNormOptions(channels)), m_group(&group) {}

torch::Tensor SyncBatchNorm2dImpl::forward(const torch::Tensor& input) {
  if (!is_training()) return torch::nn::BatchNorm2dImpl::forward(input);
  _check_input_dim(input);
  return syncBatchNormTraining(*this, input, *m_group);
}

void SyncBatchNorm2dImpl::pretty_print(std::ostream& stream) const {
  printSync(stream, "SyncBatchNorm2d", options, *m_group);
}

}  // namespace wb
