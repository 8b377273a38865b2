#pragma once
// Reads one layer's JSON object and reports what is wrong with it, by JSON path, as the layer types ask for
// their parameters. A getter that finds a problem records a ValidationIssue and returns a harmless stand-in,
// so one pass over a layer list reports every parameter error at once; finish() then says whether the layer
// is usable. Keys no getter asked for are rejected, with the closest valid key as a suggestion.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/layer.h"
#include "workbench/experiment.h"

namespace wb {

// A 2-D size such as a kernel: written in JSON as one integer (square) or as [height, width].
struct Size2 {
  int64_t h = 1;
  int64_t w = 1;
  nlohmann::json toJson() const;
  bool operator==(const Size2& other) const { return h == other.h && w == other.w; }
};

class LayerParams {
 public:
  // `object` is the layer's JSON object, `path` its JSON path ("model.layers[3]"). Issues go to `issues`.
  LayerParams(const nlohmann::json& object, std::string path, std::string type,
              std::vector<ValidationIssue>& issues);

  const std::string& path() const { return m_path; }
  const std::string& type() const { return m_type; }

  // An integer >= minimum; required when `fallback` is empty.
  int64_t integer(const std::string& key, std::optional<int64_t> fallback, int64_t minimum);
  // An integer or [h, w] with both >= minimum; required when `fallback` is empty.
  Size2 size2(const std::string& key, std::optional<Size2> fallback, int64_t minimum);
  // A number in [minimum, maximum].
  double number(const std::string& key, double fallback, double minimum, double maximum);
  bool flag(const std::string& key, bool fallback);
  // One of `options`.
  std::string choice(const std::string& key, const std::string& fallback,
                     const std::vector<std::string>& options);
  // A nested layer list, parsed with paths below this layer ("model.layers[3].shortcut[0]"). Empty optional
  // when absent and not required.
  std::optional<std::vector<LayerPtr>> layerList(const std::string& key, bool required);

  // A constraint between parameters that the getters cannot see (padding larger than half the kernel).
  void reportInvalid(const std::string& key, const std::string& message) { report(key, message); }

  // Rejects keys nobody asked for. True when this layer had no issue at all: only then may it be built.
  bool finish();

 private:
  const nlohmann::json* find(const std::string& key);
  void report(const std::string& key, const std::string& message);
  std::string keyPath(const std::string& key) const;

  const nlohmann::json& m_object;
  std::string m_path;
  std::string m_type;
  std::vector<ValidationIssue>& m_issues;
  std::vector<std::string> m_knownKeys;
  size_t m_issuesAtStart;
};

}  // namespace wb
