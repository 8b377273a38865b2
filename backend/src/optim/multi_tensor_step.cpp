#include "optim/multi_tensor_step.h"

#include <cmath>

namespace wb {

namespace {

std::vector<c10::Scalar> scalars(const std::vector<double>& values) {
  return std::vector<c10::Scalar>(values.begin(), values.end());
}

// L2 weight decay as LibTorch's steps add it: a new gradient, grad + weight_decay * param.
std::vector<torch::Tensor> withWeightDecay(at::TensorList params, at::TensorList grads, double weight_decay) {
  if (weight_decay == 0) return grads.vec();
  return at::_foreach_add(grads, params, weight_decay);
}

#if WB_HAS_FUSED_ADAM
c10::optional<at::Tensor> optionalTensor(const torch::Tensor& t) {
  return t.defined() ? c10::optional<at::Tensor>(t) : c10::optional<at::Tensor>();
}
#endif

}  // namespace

void foreachAdamStep(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                     at::TensorList exp_avg_sqs, const std::vector<int64_t>& steps, double lr,
                     const AdamHyper& hyper) {
  if (params.empty()) return;
  std::vector<torch::Tensor> g = grads.vec();
  if (hyper.weight_decay != 0) {
    if (hyper.decoupled) {
      at::_foreach_mul_(params, 1 - lr * hyper.weight_decay);
    } else {
      g = withWeightDecay(params, grads, hyper.weight_decay);
    }
  }
  // mul_ then add_ rather than torch's lerp_: LibTorch's own step's operations, so the CPU gives its bits.
  at::_foreach_mul_(exp_avgs, hyper.beta1);
  at::_foreach_add_(exp_avgs, g, 1 - hyper.beta1);
  at::_foreach_mul_(exp_avg_sqs, hyper.beta2);
  at::_foreach_addcmul_(exp_avg_sqs, g, g, 1 - hyper.beta2);
  std::vector<double> bias_correction2_sqrt;
  std::vector<double> neg_step_size;
  for (const int64_t step : steps) {
    const double n = static_cast<double>(step);
    bias_correction2_sqrt.push_back(std::sqrt(1 - std::pow(hyper.beta2, n)));
    neg_step_size.push_back(-(lr / (1 - std::pow(hyper.beta1, n))));
  }
  std::vector<torch::Tensor> denom = at::_foreach_sqrt(exp_avg_sqs);
  at::_foreach_div_(denom, scalars(bias_correction2_sqrt));
  at::_foreach_add_(denom, hyper.eps);
  at::_foreach_addcdiv_(params, exp_avgs, denom, scalars(neg_step_size));
}

void foreachSgdStep(at::TensorList params, at::TensorList grads, std::vector<torch::Tensor>& momentum_buffers,
                    double lr, const SgdHyper& hyper) {
  if (params.empty()) return;
  std::vector<torch::Tensor> d_p = withWeightDecay(params, grads, hyper.weight_decay);
  if (hyper.momentum != 0) {
    std::vector<torch::Tensor> running;
    std::vector<torch::Tensor> running_grads;
    for (size_t i = 0; i < d_p.size(); ++i) {
      if (!momentum_buffers[i].defined()) {
        momentum_buffers[i] = d_p[i].clone().detach();
      } else {
        running.push_back(momentum_buffers[i]);
        running_grads.push_back(d_p[i]);
      }
    }
    if (!running.empty()) {
      at::_foreach_mul_(running, hyper.momentum);
      at::_foreach_add_(running, running_grads, 1 - hyper.dampening);
    }
    d_p = hyper.nesterov ? at::_foreach_add(d_p, momentum_buffers, hyper.momentum) : momentum_buffers;
  }
  at::_foreach_add_(params, d_p, -lr);
}

void foreachRmspropStep(at::TensorList params, at::TensorList grads, at::TensorList square_avgs,
                        at::TensorList momentum_buffers, double lr, const RmspropHyper& hyper) {
  if (params.empty()) return;
  const std::vector<torch::Tensor> g = withWeightDecay(params, grads, hyper.weight_decay);
  at::_foreach_mul_(square_avgs, hyper.alpha);
  at::_foreach_addcmul_(square_avgs, g, g, 1 - hyper.alpha);
  std::vector<torch::Tensor> avg = at::_foreach_sqrt(square_avgs);
  at::_foreach_add_(avg, hyper.eps);
  if (hyper.momentum > 0) {
    at::_foreach_mul_(momentum_buffers, hyper.momentum);
    at::_foreach_addcdiv_(momentum_buffers, g, avg);
    at::_foreach_add_(params, momentum_buffers, -lr);
  } else {
    at::_foreach_addcdiv_(params, g, avg, -lr);
  }
}

void foreachAdagradStep(at::TensorList params, at::TensorList grads, at::TensorList sums,
                        const std::vector<int64_t>& steps, double lr, const AdagradHyper& hyper) {
  if (params.empty()) return;
  const std::vector<torch::Tensor> g = withWeightDecay(params, grads, hyper.weight_decay);
  std::vector<double> neg_clr;
  for (const int64_t step : steps) {
    neg_clr.push_back(-(lr / (1 + static_cast<double>(step - 1) * hyper.lr_decay)));
  }
  at::_foreach_addcmul_(sums, g, g, 1.0);
  std::vector<torch::Tensor> std_dev = at::_foreach_sqrt(sums);
  at::_foreach_add_(std_dev, hyper.eps);
  at::_foreach_addcdiv_(params, g, std_dev, scalars(neg_clr));
}

#if WB_HAS_FUSED_ADAM
void fusedAdamStep(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                   at::TensorList exp_avg_sqs, at::TensorList steps, const torch::Tensor& lr,
                   const AdamHyper& hyper, const torch::Tensor& grad_scale, const torch::Tensor& found_inf) {
  if (params.empty()) return;
  at::_foreach_add_(steps, c10::Scalar(1));
  const auto kernel =
      hyper.decoupled ? &at::_ops::_fused_adamw__tensor_lr::call : &at::_ops::_fused_adam__tensor_lr::call;
  kernel(params, grads, exp_avgs, exp_avg_sqs, /*max_exp_avg_sqs=*/{}, steps, lr, hyper.beta1, hyper.beta2,
         hyper.weight_decay, hyper.eps, /*amsgrad=*/false, /*maximize=*/false, optionalTensor(grad_scale),
         optionalTensor(found_inf));
  if (found_inf.defined()) {
    // The step counts are 0-dim; the scaler's flag may be a one-element vector (a view allocates nothing;
    // view({}) would be the dtype overload, a reinterpretation as bytes).
    const torch::Tensor flag = found_inf.dim() == 0 ? found_inf : found_inf.view(at::IntArrayRef{});
    at::_foreach_sub_(steps, std::vector<torch::Tensor>(steps.size(), flag));
  }
}
#endif

#if WB_HAS_FUSED_SGD
void fusedSgdStep(at::TensorList params, at::TensorList grads, at::TensorList momentum_buffers,
                  const torch::Tensor& lr, const SgdHyper& hyper, bool is_first_step,
                  const torch::Tensor& grad_scale, const torch::Tensor& found_inf) {
  if (params.empty()) return;
  at::_fused_sgd_(params, grads, momentum_buffers, hyper.weight_decay, hyper.momentum, lr, hyper.dampening,
                  hyper.nesterov, /*maximize=*/false, is_first_step, optionalTensor(grad_scale),
                  optionalTensor(found_inf));
}
#endif

}  // namespace wb
