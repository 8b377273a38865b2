// The keys that pick parameters by name: model.freeze, model.unfreeze and optimizer.param_groups. Here only
// their form is checked (strings, numbers, which fields); whether a pattern names a parameter of the model is
// the model's business (train/frozen_parameters.h, optim/parameter_groups.h), which knows the names.

#include <algorithm>

#include "experiment/experiment_schema.h"
#include "experiment/value_checks.h"
#include "workbench/did_you_mean.h"

namespace wb {
namespace {

using nlohmann::json;

// A non-empty list of non-empty name patterns; issues at `path` otherwise.
std::optional<std::vector<std::string>> readPatterns(const json& value, const std::string& path,
                                                     IssueList& issues, const std::string& example) {
  if (!value.is_array() || value.empty()) {
    issues.add(path, "expected a list of name patterns such as " + example + ", got " + describeValue(value));
    return std::nullopt;
  }
  std::vector<std::string> patterns;
  bool valid = true;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::optional<std::string> pattern =
        readString(value[i], nonEmptyString(), indexPath(path, i), issues);
    if (pattern) {
      patterns.push_back(*pattern);
    } else {
      valid = false;
    }
  }
  if (!valid) return std::nullopt;
  return patterns;
}

SchemaKey leaf(const char* name, KeyKind kind) {
  SchemaKey key;
  key.name = name;
  key.kind = kind;
  return key;
}

ParamGroupConfig readGroup(const json& value, const std::string& path, IssueList& issues, bool& valid) {
  ParamGroupConfig group;
  if (!value.is_object()) {
    issues.add(path,
               "expected a group such as {\"params\": [\"layer4.*\", \"fc.*\"], \"lr_scale\": 10}, got " +
                   describeValue(value));
    valid = false;
    return group;
  }
  const std::vector<std::string> fields = {"params", "lr", "lr_scale", "weight_decay"};
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (std::find(fields.begin(), fields.end(), it.key()) != fields.end()) continue;
    const std::string suggestion = didYouMean(it.key(), fields);
    issues.add(joinPath(path, it.key()),
               "unknown key \"" + it.key() + "\"" +
                   (suggestion.empty() ? "; a group has " + quotedList(fields, " and ")
                                       : "; did you mean \"" + suggestion + "\"?"));
    valid = false;
  }
  if (!value.contains("params")) {
    issues.add(joinPath(path, "params"), "a group needs \"params\": the name patterns of its parameters");
    valid = false;
  } else if (auto patterns =
                 readPatterns(value["params"], joinPath(path, "params"), issues, "[\"layer4.*\"]")) {
    group.params = *patterns;
  } else {
    valid = false;
  }
  if (value.contains("lr") && value.contains("lr_scale")) {
    issues.add(path, "a group takes \"lr\" or \"lr_scale\" (a factor on optimizer.lr), not both");
    valid = false;
  }
  if (value.contains("lr")) {
    if (auto lr = readNumber(value["lr"], positiveNumber(), joinPath(path, "lr"), issues)) {
      group.lr = *lr;
    } else {
      valid = false;
    }
  }
  if (value.contains("lr_scale")) {
    if (auto scale = readNumber(value["lr_scale"], positiveNumber(), joinPath(path, "lr_scale"), issues)) {
      group.lr_scale = *scale;
    } else {
      valid = false;
    }
  }
  if (value.contains("weight_decay")) {
    if (auto wd =
            readNumber(value["weight_decay"], nonNegativeNumber(), joinPath(path, "weight_decay"), issues)) {
      group.weight_decay = *wd;
    } else {
      valid = false;
    }
  }
  return group;
}

json writeGroup(const ParamGroupConfig& group) {
  json j = {{"params", group.params}};
  if (group.lr > 0) {
    j["lr"] = group.lr;
  } else {
    j["lr_scale"] = group.lr_scale;
  }
  if (group.weight_decay >= 0) j["weight_decay"] = group.weight_decay;
  return j;
}

}  // namespace

SchemaKey freezeKey() {
  SchemaKey key = leaf("freeze", KeyKind::List);
  key.holdsText = true;
  key.read = [](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
    if (value.is_string() && value.get<std::string>() == "body") {
      e.model.freeze.clear();
      e.model.freeze_body = true;
      return;
    }
    if (value.is_array() && value.empty()) {  // the default: nothing frozen
      e.model.freeze.clear();
      e.model.freeze_body = false;
      return;
    }
    if (value.is_string()) {
      issues.add(path,
                 "expected \"body\" (every parameter but the head) or a list of name patterns such as "
                 "[\"conv1.*\", \"layer1.*\"], got " +
                     describeValue(value));
      return;
    }
    if (auto patterns = readPatterns(value, path, issues, "[\"conv1.*\", \"layer1.*\"] or \"body\"")) {
      e.model.freeze = *patterns;
      e.model.freeze_body = false;
    }
  };
  key.write = [](const Experiment& e) { return e.model.freeze_body ? json("body") : json(e.model.freeze); };
  return key;
}

SchemaKey unfreezeSection() {
  SchemaKey section;
  section.name = "unfreeze";
  section.kind = KeyKind::Section;
  auto integer = [](const char* name, int64_t UnfreezeConfig::*field) {
    SchemaKey key = leaf(name, KeyKind::Integer);
    key.read = [field](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
      if (auto r = readInteger(value, IntegerRule{0, 1000000}, path, issues)) e.model.unfreeze.*field = *r;
    };
    key.write = [field](const Experiment& e) { return json(e.model.unfreeze.*field); };
    return key;
  };
  section.children = {integer("after_epochs", &UnfreezeConfig::after_epochs),
                      integer("every_epochs", &UnfreezeConfig::every_epochs)};
  return section;
}

SchemaKey paramGroupsKey() {
  SchemaKey key = leaf("param_groups", KeyKind::Layers);  // free-form for overrides; checked here as a whole
  key.read = [](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
    if (value.is_null() || (value.is_array() && value.empty())) {
      e.optimizer.param_groups.clear();
      return;
    }
    if (!value.is_array()) {
      issues.add(path,
                 "expected a list of groups such as [{\"params\": [\"fc.*\"], \"lr_scale\": 10}], got " +
                     describeValue(value));
      return;
    }
    std::vector<ParamGroupConfig> groups;
    bool valid = true;
    for (size_t i = 0; i < value.size(); ++i)
      groups.push_back(readGroup(value[i], indexPath(path, i), issues, valid));
    if (valid) e.optimizer.param_groups = std::move(groups);
  };
  key.write = [](const Experiment& e) {
    json list = json::array();
    for (const ParamGroupConfig& group : e.optimizer.param_groups) list.push_back(writeGroup(group));
    return list;
  };
  return key;
}

}  // namespace wb
