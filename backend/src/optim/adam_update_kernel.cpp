#include "optim/adam_update_kernel.h"

#include <cmath>

namespace wb {

namespace {

// Each line is one of torch.optim's single-tensor ops on this element, rounded to float32 where the op's
// result is, in the op's order:
//   p.mul_(1 - lr*wd)                      (AdamW)      grad = grad.add(p, wd)               (Adam)
//   exp_avg.mul_(beta1).add_(grad, 1 - beta1)           exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 -
//   beta2) denom = (exp_avg_sq.sqrt() / sqrt(bc2)).add_(eps)   p.addcdiv_(exp_avg, denom, -lr / bc1)
// Compiled with -ffp-contract=off, so no product is fused into an add differently in the vector body and the
// scalar tail: an element's result does not depend on where a thread's span starts.
template <bool Decoupled, bool L2>
inline void update(const AdamUpdate& u, float* __restrict weights, const float* __restrict grads,
                   float* __restrict exp_avg, float* __restrict exp_avg_sq, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    float w = weights[i];
    float g = grads[i];
    if (Decoupled) w = w * u.weight_factor;
    if (L2) g = g + u.l2 * w;
    float m = exp_avg[i] * u.beta1;
    m = m + u.one_minus_beta1 * g;
    float v = exp_avg_sq[i] * u.beta2;
    v = v + u.one_minus_beta2 * g * g;
    const float denom = std::sqrt(v) / u.bias_correction2_sqrt + u.eps;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
    weights[i] = w + u.neg_step_size * m / denom;
  }
}

}  // namespace

// An AVX2 clone beside the baseline one, chosen once at load time by the CPU (GCC's function
// multiversioning).
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void adamUpdate(const AdamUpdate& u, float* weights, const float* grads, float* exp_avg, float* exp_avg_sq,
                int64_t count) {
  if (u.decoupled_decay) {
    update<true, false>(u, weights, grads, exp_avg, exp_avg_sq, count);
  } else if (u.l2_decay) {
    update<false, true>(u, weights, grads, exp_avg, exp_avg_sq, count);
  } else {
    update<false, false>(u, weights, grads, exp_avg, exp_avg_sq, count);
  }
}

}  // namespace wb
