#pragma once
// Writing and reading model weight files the same careful way for every kind of model: written whole or not
// at all, and read only when every tensor the model expects is there with the shape it expects.

#include <torch/torch.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace wb {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Writes FILE through util's writeFileAtomically (a crash mid-write leaves the previous file intact); a
// failure of `write` (a torch error, say) becomes UserError naming FILE.
void writeWeightsFile(const std::string& file, const std::function<void(const std::string& tempFile)>& write);

// Throws UserError when FILE does not exist.
void requireWeightsFile(const std::string& file);

// Copies into each of `targets` the tensor `read` finds under its name. Nothing is copied unless every target
// is found with its exact shape; otherwise UserError names FILE and the first missing or mismatched tensor.
void copyCheckedWeights(const std::string& file, const NamedTensors& targets,
                        const std::function<bool(const std::string& name, torch::Tensor& tensor)>& read);

// A model's parameters and buffers as a torch::serialize archive, one entry per name, written whole.
void saveNamedWeights(const std::string& file, const NamedTensors& parameters, const NamedTensors& buffers);
// Such an archive read into `targets` (parameters and buffers by name), as copyCheckedWeights copies:
// UserError naming FILE for a missing file, one that is not an archive, or a tensor missing or of another
// shape.
void loadNamedWeights(const std::string& file, const NamedTensors& targets);

// The first line of an exception's message, without LibTorch's C++ backtrace.
std::string shortErrorText(const std::exception& error);

}  // namespace wb
