#pragma once
// What the optimizer tests share: two parameter groups as makeOptimizer builds them, a comparison within
// float32 rounding, and an optimizer's state through LibTorch's archive (save, then load elsewhere).

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace wb::test {

using Params = std::vector<torch::Tensor>;

inline Params cloneParameters(const Params& params) {
  Params copies;
  for (const auto& p : params) copies.push_back(p.detach().clone().requires_grad_(true));
  return copies;
}

// Two groups of two parameters as makeOptimizer builds them: the second without weight decay.
template <typename Optimizer, typename Options>
std::unique_ptr<Optimizer> build(const Params& params, Options options) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(Params{params[0], params[1]});
  groups.emplace_back(Params{params[2], params[3]});
  auto optimizer = std::make_unique<Optimizer>(groups, options);
  static_cast<Options&>(optimizer->param_groups().back().options()).weight_decay(0.0);
  return optimizer;
}

// Fused kernels compute in another order (one expression per element): float32 rounding apart.
inline void expectClose(const Params& actual, const Params& expected) {
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_TRUE(torch::allclose(actual[i], expected[i], /*rtol=*/1e-5, /*atol=*/1e-6))
        << "parameter " << i << ": max difference " << (actual[i] - expected[i]).abs().max().item<double>();
  }
}

inline std::string saved(const torch::optim::Optimizer& optimizer) {
  torch::serialize::OutputArchive archive;
  optimizer.save(archive);
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

inline void load(torch::optim::Optimizer& optimizer, const std::string& bytes) {
  torch::serialize::InputArchive archive;
  std::istringstream in(bytes);
  archive.load_from(in);
  optimizer.load(archive);
}

}  // namespace wb::test
