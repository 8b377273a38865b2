#pragma once
// The safetensors format (huggingface/safetensors README and docs/safetensors.schema.json): an unsigned
// 64-bit little-endian header length N, N bytes of JSON padded with spaces to a multiple of 8, then the
// tensors' raw little-endian bytes back to back. The header maps each name to {"dtype", "shape",
// "data_offsets": [begin, end)} (offsets into the data part, contiguous from 0 in the order written) and
// "__metadata__" to a string -> string map.

#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace wb {

// "F32", "I64", "I8", ... ; UserError for a dtype safetensors has no name for.
std::string safetensorsDtype(const torch::Tensor& t);

// The whole file. Tensors are written in the order given (CPU copies, contiguous; qint8 as its int8 values);
// UserError for an empty or duplicate name, or one called "__metadata__".
std::string safetensorsBytes(const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                             const std::map<std::string, std::string>& metadata);

}  // namespace wb
