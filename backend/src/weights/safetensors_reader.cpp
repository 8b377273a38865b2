// safetensors read as its specification and the reference reader (huggingface/safetensors, `validate` in
// safetensors/src/tensor.rs) check it: a header of at most 100 MB that is a JSON object; per tensor a known
// dtype, a shape of non-negative dimensions and [begin, end) offsets whose length is the shape's bytes; the
// tensors, sorted by offset, tile the byte buffer exactly (no gap, no overlap: no polyglot files) and end
// with it. We read each tensor straight into its own storage: no copy of the whole file in memory.

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "weights/weights_reader.h"
#include "workbench/errors.h"

namespace wb {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors data is little-endian");

namespace {

using ReadAt = std::function<void(uint64_t offset, void* destination, size_t bytes)>;

[[noreturn]] void stBad(const std::string& file, const std::string& what) {
  throw UserError(
      file + ": not a valid safetensors file: " + what,
      "the file is damaged or was not written by a safetensors writer; download or export it again");
}

bool stDtype(const std::string& word, torch::ScalarType* type) {
  static const std::map<std::string, torch::ScalarType> kTypes = {
      {"F64", torch::kFloat64},   {"F32", torch::kFloat32}, {"F16", torch::kFloat16},
      {"BF16", torch::kBFloat16}, {"I64", torch::kInt64},   {"I32", torch::kInt32},
      {"I16", torch::kInt16},     {"I8", torch::kInt8},     {"U8", torch::kUInt8},
      {"BOOL", torch::kBool}};
  const auto found = kTypes.find(word);
  if (found == kTypes.end()) return false;
  *type = found->second;
  return true;
}

struct StEntry {
  std::string name;
  torch::ScalarType type;
  std::vector<int64_t> shape;
  uint64_t begin;
  uint64_t end;
};

uint64_t stOffset(const nlohmann::json& value, const std::string& file, const std::string& name) {
  if (!value.is_number_unsigned())
    stBad(file, "tensor \"" + name + "\": data_offsets are not two non-negative integers");
  return value.get<uint64_t>();
}

StEntry stParseEntry(const std::string& name, const nlohmann::json& info, const std::string& file) {
  const std::string tensor = "tensor \"" + name + "\"";
  if (!info.is_object() || !info.contains("dtype") || !info.contains("shape") ||
      !info.contains("data_offsets"))
    stBad(file, tensor + " lacks dtype, shape or data_offsets");
  StEntry entry{name, torch::kFloat32, {}, 0, 0};
  const nlohmann::json& dtype = info["dtype"];
  if (!dtype.is_string()) stBad(file, tensor + ": dtype is not a string");
  if (!stDtype(dtype.get<std::string>(), &entry.type)) {
    throw UserError(file + ": tensor \"" + name + "\" has dtype " + dtype.get<std::string>() +
                        ", which this LibTorch cannot hold as a weight",
                    "convert the file's tensors to F32, F16 or BF16 (or an integer type) and save it again");
  }
  const nlohmann::json& shape = info["shape"];
  if (!shape.is_array() || shape.size() > static_cast<size_t>(kMaxTensorDims))
    stBad(file, tensor + ": shape is not a list of at most 64 dimensions");
  uint64_t numel = 1;
  bool overflow = false;
  for (const nlohmann::json& dim : shape) {
    if (!dim.is_number_unsigned() || dim.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      stBad(file, tensor + ": a shape dimension is not a non-negative integer");
    entry.shape.push_back(static_cast<int64_t>(dim.get<uint64_t>()));
    overflow = overflow || __builtin_mul_overflow(numel, dim.get<uint64_t>(), &numel);
  }
  const nlohmann::json& offsets = info["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) stBad(file, tensor + ": data_offsets is not [begin, end]");
  entry.begin = stOffset(offsets[0], file, name);
  entry.end = stOffset(offsets[1], file, name);
  uint64_t bytes = 0;
  overflow = overflow || __builtin_mul_overflow(numel, c10::elementSize(entry.type), &bytes);
  if (entry.end < entry.begin || overflow || entry.end - entry.begin != bytes) {
    stBad(file, tensor + ": data_offsets [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) +
                    ") do not hold its shape's " +
                    (overflow ? std::string("(overflowing)") : std::to_string(bytes)) + " bytes");
  }
  return entry;
}

std::vector<StEntry> stParseHeader(const std::string& text, const std::string& file,
                                   std::map<std::string, std::string>* metadata) {
  // JSON keeps the last of two equal keys; a weights file with one name twice is refused instead.
  std::set<std::string> names;
  std::string duplicate;
  const auto checkKey = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::key && depth == 1 && parsed.is_string() &&
        !names.insert(parsed.get<std::string>()).second)
      duplicate = parsed.get<std::string>();
    return true;
  };
  const nlohmann::json header = nlohmann::json::parse(text, checkKey, /*allow_exceptions=*/false);
  if (header.is_discarded()) stBad(file, "the header is not JSON");
  if (!duplicate.empty()) stBad(file, "the header names tensor \"" + duplicate + "\" twice");
  if (!header.is_object()) stBad(file, "the header is not a JSON object");
  std::vector<StEntry> entries;
  for (auto item = header.begin(); item != header.end(); ++item) {
    if (item.key() == "__metadata__") {
      if (!item.value().is_object()) stBad(file, "__metadata__ is not an object");
      for (auto meta = item.value().begin(); meta != item.value().end(); ++meta) {
        if (!meta.value().is_string()) stBad(file, "__metadata__ \"" + meta.key() + "\" is not a string");
        (*metadata)[meta.key()] = meta.value().get<std::string>();
      }
      continue;
    }
    entries.push_back(stParseEntry(item.key(), item.value(), file));
  }
  return entries;
}

// The tensors, in offset order, must tile [0, buffer) exactly.
void stCheckTiling(std::vector<StEntry> entries, uint64_t buffer, const std::string& file) {
  std::stable_sort(entries.begin(), entries.end(), [](const StEntry& a, const StEntry& b) {
    return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
  });
  uint64_t at = 0;
  for (const StEntry& entry : entries) {
    if (entry.begin != at) {
      stBad(file, "tensor \"" + entry.name + "\" starts at byte " + std::to_string(entry.begin) +
                      " of the data, " +
                      (entry.begin < at ? "inside the tensor before it (overlap)" : "after a gap") +
                      " (expected " + std::to_string(at) + ")");
    }
    at = entry.end;
    if (at > buffer) {
      stBad(file, "tensor \"" + entry.name + "\" ends at byte " + std::to_string(at) + ", past the data's " +
                      std::to_string(buffer) + " bytes (the file is truncated or its header lies)");
    }
  }
  if (at != buffer)
    stBad(file, std::to_string(buffer - at) + " bytes after the last tensor belong to no tensor");
}

WeightsFileContents stRead(uint64_t total, const ReadAt& readAt, const std::string& file) {
  if (total < 8) stBad(file, "shorter than the 8-byte header length");
  unsigned char length_bytes[8];
  readAt(0, length_bytes, 8);
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | length_bytes[i];
  if (length > kMaxSafetensorsHeaderBytes)
    stBad(file, "the header length " + std::to_string(length) + " exceeds 100 MB");
  if (length > total - 8)
    stBad(file, "the header length " + std::to_string(length) + " runs past the end of the file");
  std::string text(static_cast<size_t>(length), '\0');
  readAt(8, text.data(), text.size());
  if (text.empty() || text[0] != '{') stBad(file, "the header does not start with '{'");
  WeightsFileContents contents;
  contents.format = WeightsFormat::Safetensors;
  const std::vector<StEntry> entries = stParseHeader(text, file, &contents.metadata);
  const uint64_t data_start = 8 + length;
  stCheckTiling(entries, total - data_start, file);
  for (const StEntry& entry : entries) {
    torch::Tensor t = torch::empty(entry.shape, torch::TensorOptions().dtype(entry.type));
    if (entry.end > entry.begin) readAt(data_start + entry.begin, t.data_ptr(), entry.end - entry.begin);
    // A byte other than 0 or 1 is not a bool: normalize it rather than hold an invalid value.
    if (entry.type == torch::kBool) {
      auto* bytes = static_cast<unsigned char*>(t.data_ptr());
      for (int64_t i = 0; i < t.numel(); ++i) bytes[i] = bytes[i] != 0;
    }
    contents.tensors.emplace_back(entry.name, t);
  }
  return contents;
}

}  // namespace

WeightsFileContents readSafetensorsBytes(const std::string& bytes, const std::string& file) {
  return stRead(
      bytes.size(),
      [&bytes](uint64_t offset, void* destination, size_t n) {
        std::memcpy(destination, bytes.data() + offset, n);
      },
      file);
}

WeightsFileContents readSafetensorsFile(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(file + ": cannot open the weights file", "check the path and its permissions");
  in.seekg(0, std::ios::end);
  const auto total = static_cast<uint64_t>(in.tellg());
  return stRead(
      total,
      [&in, &file](uint64_t offset, void* destination, size_t n) {
        in.seekg(static_cast<std::streamoff>(offset));
        in.read(static_cast<char*>(destination), static_cast<std::streamsize>(n));
        if (!in) throw UserError(file + ": read error", "check the disk and the file");
      },
      file);
}

}  // namespace wb
