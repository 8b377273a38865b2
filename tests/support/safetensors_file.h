#pragma once
// A safetensors file as its writer lays it out (an 8-byte header length, the JSON header, the data), float32
// tensors only: for tests that need a weights file shaped as another tool would save it (a base model's
// names, a pretraining head beside them).

#include <torch/torch.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace wb::test {

inline void writeFloatSafetensors(const std::string& file,
                                  const std::map<std::string, torch::Tensor>& tensors) {
  nlohmann::json header;
  std::string data;
  for (const auto& [name, tensor] : tensors) {
    const torch::Tensor t = tensor.contiguous().to(torch::kFloat);
    const size_t begin = data.size();
    data.append(static_cast<const char*>(t.data_ptr()), static_cast<size_t>(t.numel()) * sizeof(float));
    header[name] = {{"dtype", "F32"}, {"shape", t.sizes().vec()}, {"data_offsets", {begin, data.size()}}};
  }
  const std::string text = header.dump();
  const uint64_t length = text.size();
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&length), 8);
  out << text << data;
}

}  // namespace wb::test
