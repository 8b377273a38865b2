#pragma once
// Building transformers' module trees in LibTorch: each child registered under the name transformers gives
// it, so that named_parameters() reads "bert.encoder.layer.0.attention.self.query.weight" as its state_dict
// does.

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>

namespace wb::hf {

using Holder = std::shared_ptr<torch::nn::Module>;

// A module that only names its children ("attention", "self"), as transformers' nesting does.
inline Holder holder(torch::nn::Module& parent, const std::string& name) {
  return parent.register_module(name, std::make_shared<torch::nn::Module>());
}

inline torch::nn::LayerNorm layerNorm(torch::nn::Module& parent, const std::string& name, int64_t size,
                                      double eps) {
  return parent.register_module(name, torch::nn::LayerNorm(torch::nn::LayerNormOptions({size}).eps(eps)));
}

inline torch::nn::Linear linear(torch::nn::Module& parent, const std::string& name, int64_t in, int64_t out) {
  return parent.register_module(name, torch::nn::Linear(in, out));
}

inline torch::nn::Embedding embedding(torch::nn::Module& parent, const std::string& name, int64_t count,
                                      int64_t size) {
  return parent.register_module(name, torch::nn::Embedding(count, size));
}

}  // namespace wb::hf
