#include "export/safetensors_writer.h"

#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "workbench/errors.h"

namespace wb {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian: a big-endian host would have to swap bytes");

namespace {

torch::Tensor plainCpu(const torch::Tensor& t) {
  torch::Tensor c = t.detach().to(torch::kCPU);
  if (c.is_quantized()) c = c.int_repr();
  return c.contiguous();
}

}  // namespace

std::string safetensorsDtype(const torch::Tensor& t) {
  switch (t.is_quantized() ? t.int_repr().scalar_type() : t.scalar_type()) {
    case torch::kFloat32:
      return "F32";
    case torch::kFloat64:
      return "F64";
    case torch::kFloat16:
      return "F16";
    case torch::kBFloat16:
      return "BF16";
    case torch::kInt64:
      return "I64";
    case torch::kInt32:
      return "I32";
    case torch::kInt16:
      return "I16";
    case torch::kInt8:
      return "I8";
    case torch::kUInt8:
      return "U8";
    case torch::kBool:
      return "BOOL";
    default:
      throw UserError(std::string("safetensors has no dtype for ") + c10::toString(t.scalar_type()) +
                      " tensors");
  }
}

std::string safetensorsBytes(const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                             const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    nlohmann::ordered_json meta = nlohmann::ordered_json::object();
    for (const auto& [key, value] : metadata) meta[key] = value;
    header["__metadata__"] = meta;
  }
  std::vector<torch::Tensor> data;
  std::set<std::string> seen;
  int64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name.empty() || name == "__metadata__" || !seen.insert(name).second) {
      throw UserError("safetensors export: the tensor name \"" + name +
                      "\" is empty, reserved or used twice");
    }
    const torch::Tensor t = plainCpu(tensor);
    const int64_t bytes = static_cast<int64_t>(t.numel() * t.element_size());
    header[name] = {{"dtype", safetensorsDtype(t)},
                    {"shape", t.sizes().vec()},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    data.push_back(t);
  }
  std::string json = header.dump();
  // The data must start at a multiple of 8 after the 8-byte length: spaces are valid JSON whitespace.
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string out;
  out.reserve(8 + json.size() + static_cast<size_t>(offset));
  const uint64_t length = json.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  out += json;
  for (const torch::Tensor& t : data) {
    out.append(static_cast<const char*>(t.data_ptr()), static_cast<size_t>(t.numel() * t.element_size()));
  }
  return out;
}

}  // namespace wb
