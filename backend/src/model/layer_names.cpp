#include "model/layer_names.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "model/layer.h"

namespace wb {
namespace {

// A module path as torch and torchvision write them: words of letters, digits and '_' joined by single dots.
bool isDottedPath(const std::string& text) {
  if (text.empty() || text.front() == '.' || text.back() == '.') return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (!word && !(c == '.' && text[i + 1] != '.')) return false;
  }
  return true;
}

std::string joined(const std::string& prefix, const std::string& name) {
  if (prefix.empty()) return name;
  if (name.empty()) return prefix;
  return prefix + "." + name;
}

// "layer1.0." -> "layer1.0"; "" stays "".
std::string withoutTrailingDot(const std::string& prefix) {
  return !prefix.empty() && prefix.back() == '.' ? prefix.substr(0, prefix.size() - 1) : prefix;
}

const char* const kPathRule = "letters, digits and '_' in words joined by single dots, such as \"layer1.0\"";

void readName(const nlohmann::json& object, const std::string& path, LayerNaming& naming,
              std::vector<ValidationIssue>& issues) {
  const auto it = object.find("name");
  if (it == object.end() || it->is_null()) return;
  if (!it->is_string() || !(it->get<std::string>().empty() || isDottedPath(it->get<std::string>()))) {
    issues.push_back({path + ".name", std::string("must be the layer's module path outside: ") + kPathRule +
                                          " (or \"\" for the holding module itself), got " + it->dump()});
    return;
  }
  naming.name = it->get<std::string>();
}

void readParamNames(const nlohmann::json& object, const std::string& path, LayerNaming& naming,
                    std::vector<ValidationIssue>& issues) {
  const auto it = object.find("param_names");
  if (it == object.end() || it->is_null()) return;
  if (!it->is_object()) {
    issues.push_back(
        {path + ".param_names",
         "must map the layer's tensor names to the outside model's, such as {\"norm1\": \"ln_1\"}, "
         "got " +
             it->dump()});
    return;
  }
  for (auto entry = it->begin(); entry != it->end(); ++entry) {
    const bool valueOk =
        entry->is_string() && (entry->get<std::string>().empty() || isDottedPath(entry->get<std::string>()));
    if (!isDottedPath(entry.key()) || !valueOk) {
      issues.push_back({path + ".param_names." + entry.key(),
                        std::string("keys and values must be tensor names or prefixes: ") + kPathRule +
                            " (a value may be \"\"), got \"" + entry.key() + "\": " + entry->dump()});
      continue;
    }
    naming.paramNames[entry.key()] = entry->get<std::string>();
  }
}

// The outside name of the key `rest` below the list at `list` ("4.layers.0.weight" below "layers.").
std::string resolvedName(const std::vector<LayerPtr>& layers, const NamePlace& list,
                         const std::string& rest) {
  const size_t dot = rest.find('.');
  const std::string indexText = rest.substr(0, dot);
  const bool isIndex = dot != std::string::npos && !indexText.empty() &&
                       indexText.find_first_not_of("0123456789") == std::string::npos;
  const size_t index = isIndex ? std::stoul(indexText) : layers.size();
  if (index >= layers.size()) {
    throw std::invalid_argument("the tensor " + list.inside + rest + " belongs to no layer of its list");
  }
  const Layer& layer = *layers[index];
  const NamePlace place = layerPlace(list, index, layer.naming());
  const std::string local = rest.substr(dot + 1);
  for (const auto& [branch, branchLayers] : layer.branches()) {
    if (local.rfind(branch + ".", 0) == 0) {
      return resolvedName(*branchLayers, branchPlace(place, layer.naming(), branch),
                          local.substr(branch.size() + 1));
    }
  }
  return joined(place.outside, outsideTensorName(layer.naming(), local));
}

}  // namespace

LayerNaming parseLayerNaming(const nlohmann::json& object, const std::string& path,
                             std::vector<ValidationIssue>& issues) {
  LayerNaming naming;
  readName(object, path, naming, issues);
  readParamNames(object, path, naming, issues);
  return naming;
}

void addLayerNaming(const LayerNaming& naming, nlohmann::json& object) {
  if (naming.name) object["name"] = *naming.name;
  if (!naming.paramNames.empty()) object["param_names"] = naming.paramNames;
}

std::string outsideTensorName(const LayerNaming& naming, const std::string& tensorName) {
  const std::pair<const std::string, std::string>* best = nullptr;
  for (const auto& entry : naming.paramNames) {
    const std::string& key = entry.first;
    const bool matches = tensorName == key || tensorName.rfind(key + ".", 0) == 0;
    if (matches && (best == nullptr || key.size() > best->first.size())) best = &entry;
  }
  if (best == nullptr) return tensorName;
  return joined(best->second, tensorName.substr(std::min(tensorName.size(), best->first.size() + 1)));
}

NamePlace modelListPlace() {
  return {"layers.", ""};
}

NamePlace layerPlace(const NamePlace& list, size_t index, const LayerNaming& naming) {
  const std::string inside = list.inside + std::to_string(index);
  if (!naming.name) return {inside, inside};
  return {inside, joined(withoutTrailingDot(list.outside), *naming.name)};
}

NamePlace branchPlace(const NamePlace& layer, const LayerNaming& naming, const std::string& branch) {
  const std::string inside = layer.inside + "." + branch + ".";
  if (!naming.name) return {inside, inside};
  return {inside, layer.outside.empty() ? "" : layer.outside + "."};
}

std::map<std::string, std::string> outsideNames(const std::vector<LayerPtr>& layers,
                                                const std::vector<std::string>& keys) {
  const NamePlace top = modelListPlace();
  std::map<std::string, std::string> owner;  // outside name -> the key that has it, to catch two
  std::map<std::string, std::string> result;
  for (const std::string& key : keys) {
    if (key.rfind(top.inside, 0) != 0) {
      throw std::invalid_argument("the tensor " + key + " is not under the model's \"layers\"");
    }
    const std::string name = resolvedName(layers, top, key.substr(top.inside.size()));
    const auto [it, inserted] = owner.emplace(name, key);
    if (!inserted) {
      throw std::invalid_argument("the tensors " + it->second + " and " + key + " are both named " + name +
                                  " outside: give their layers different \"name\"s");
    }
    if (name != key) result[key] = name;
  }
  return result;
}

}  // namespace wb
