#pragma once
// The Adam/AdamW update of one span of float32 elements: weights, gradient and both moments read once and
// written once. Plain C++ with no Torch header, so it is compiled on its own with the flags that let GCC
// vectorize it (backend/CMakeLists.txt); fused_adam.cpp splits a parameter across threads and calls it.

#include <cstdint>

namespace wb {

struct AdamUpdate {
  bool decoupled_decay = false;  // AdamW: weights *= weight_factor before the update
  float weight_factor = 1;       // 1 - lr * weight_decay
  bool l2_decay = false;         // Adam: gradient += l2 * weights
  float l2 = 0;
  float beta1 = 0, one_minus_beta1 = 0;
  float beta2 = 0, one_minus_beta2 = 0;
  float bias_correction2_sqrt = 1;  // sqrt(1 - beta2^step)
  float eps = 0;
  float neg_step_size = 0;  // -lr / (1 - beta1^step)
};

void adamUpdate(const AdamUpdate& u, float* weights, const float* grads, float* exp_avg, float* exp_avg_sq,
                int64_t count);

}  // namespace wb
