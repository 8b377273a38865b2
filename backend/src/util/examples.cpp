#include "workbench/examples.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "workbench/errors.h"
#include "workbench/install_paths.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

nlohmann::json readJson(const fs::path& file, const std::string& what) {
  std::ifstream in(file);
  if (!in) throw UserError("Cannot read " + what + " " + file.string() + ".", "Reinstall Torch Workbench.");
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    throw UserError(file.string() + " is not valid JSON.", "Reinstall Torch Workbench.");
  }
  return doc;
}

std::string textOf(const nlohmann::json& entry, const char* key) {
  const auto it = entry.find(key);
  return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void makeAbsolute(nlohmann::json& doc, const char* section, const char* key, const fs::path& base) {
  if (!doc.is_object() || !doc.contains(section) || !doc[section].is_object()) return;
  const auto it = doc[section].find(key);
  if (it == doc[section].end() || !it->is_string()) return;
  const fs::path path = it->get<std::string>();
  if (!path.empty() && path.is_relative()) *it = (base / path).lexically_normal().string();
}

}  // namespace

std::vector<ExampleInfo> listExamples(const std::string& dir_in) {
  const std::string dir = dir_in.empty() ? examplesDir() : dir_in;
  if (dir.empty()) {
    throw UserError(
        "The example experiments are not installed (no share/torch-workbench/examples beside the "
        "program, and no source tree).",
        "Install the package, or set TORCH_WORKBENCH_EXAMPLES to a folder of examples.");
  }
  const fs::path index_file = fs::path(dir) / "index.json";
  const nlohmann::json index = readJson(index_file, "the list of examples");
  std::vector<ExampleInfo> examples;
  if (!index.contains("examples") || !index["examples"].is_array()) {
    throw UserError(index_file.string() + " has no \"examples\" list.", "Reinstall Torch Workbench.");
  }
  for (const nlohmann::json& entry : index["examples"]) {
    const std::string file = textOf(entry, "file");
    if (file.empty()) continue;
    ExampleInfo info;
    info.id = fs::path(file).stem().string();
    info.file = (fs::path(dir) / file).string();
    info.title = textOf(entry, "title");
    info.description = textOf(entry, "description");
    if (info.title.empty()) info.title = info.id;
    examples.push_back(std::move(info));
  }
  return examples;
}

std::optional<ExampleInfo> findExample(const std::string& id, const std::vector<ExampleInfo>& examples) {
  for (const ExampleInfo& e : examples) {
    if (e.id == id || fs::path(e.file).filename().string() == id) return e;
  }
  return std::nullopt;
}

nlohmann::json loadExampleDocument(const ExampleInfo& example) {
  nlohmann::json doc = readJson(example.file, "the example");
  const fs::path base = fs::path(example.file).parent_path();
  makeAbsolute(doc, "data", "path", base);
  makeAbsolute(doc, "data", "test_path", base);
  makeAbsolute(doc, "model", "torchscript", base);
  return doc;
}

}  // namespace wb
