#include "workbench/run_info.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "util/atomic_file.h"

namespace wb {
namespace {

std::string trimmed(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  const size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::vector<std::string> cleanTags(const std::vector<std::string>& tags) {
  std::vector<std::string> out;
  for (const std::string& tag : tags) {
    const std::string t = trimmed(tag);
    if (t.empty()) continue;
    bool seen = false;
    for (const std::string& o : out) seen = seen || o == t;
    if (!seen) out.push_back(t);
  }
  return out;
}

}  // namespace

std::string experimentModelName(const Experiment& e) {
  if (!e.model.huggingface.empty()) {
    std::string folder = e.model.huggingface;
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
    return folder.substr(folder.find_last_of('/') + 1);
  }
  if (!e.model.torchscript.empty()) return "torchscript";
  return e.model.preset.empty() ? "layers" : e.model.preset;
}

std::string experimentRunName(const Experiment& e) {
  if (!e.name.empty()) return e.name;
  return experimentModelName(e) + "-" + wordString(e.data.dataset);
}

std::string numberedRunName(const Experiment& e, int64_t run_number) {
  if (!e.name.empty()) return e.name;
  char number[24];
  std::snprintf(number, sizeof(number), "%04lld", static_cast<long long>(run_number));
  return experimentRunName(e) + "-" + number;
}

std::optional<RunInfo> readRunInfo(const std::string& run_dir) {
  std::ifstream in(run_dir + "/run.json");
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  RunInfo info;
  if (doc.contains("name") && doc["name"].is_string()) info.name = doc["name"].get<std::string>();
  if (doc.contains("notes") && doc["notes"].is_string()) info.notes = doc["notes"].get<std::string>();
  if (doc.contains("tags") && doc["tags"].is_array()) {
    for (const auto& tag : doc["tags"]) {
      if (tag.is_string()) info.tags.push_back(tag.get<std::string>());
    }
  }
  info.tags = cleanTags(info.tags);
  return info;
}

void writeRunInfo(const std::string& run_dir, const RunInfo& info) {
  const nlohmann::json doc = {
      {"name", trimmed(info.name)}, {"tags", cleanTags(info.tags)}, {"notes", info.notes}};
  writeFileAtomically(run_dir + "/run.json", doc.dump(2) + "\n");
}

std::vector<std::string> parseTags(const std::string& text) {
  std::vector<std::string> tags;
  std::string current;
  std::istringstream in(text);
  while (std::getline(in, current, ',')) tags.push_back(current);
  return cleanTags(tags);
}

}  // namespace wb
