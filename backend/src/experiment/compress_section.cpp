// The experiment file's `compress` section: an ordered list of passes, each an object whose keys depend on
// its "type". The list is one schema leaf (overrides such as `compress.passes[0].amount=0.7` reach into it
// freely); this reader checks every pass with the same value checks, messages and "did you mean" as the rest
// of the file, then the order of the passes.

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "experiment/experiment_schema.h"
#include "experiment/value_checks.h"
#include "workbench/did_you_mean.h"

namespace wb {
namespace {

using nlohmann::json;

const std::vector<std::string> kTrainingKeys = {"epochs", "max_steps", "lr"};

// One word of E's table (workbench/compression_words.h), with the same "expected one of" and "did you mean"
// as any other string choice.
template <typename E>
std::optional<E> readWord(const json& value, const std::string& path, IssueList& issues) {
  if (auto word = readString(value, oneOf(allWords<E>()), path, issues)) return fromWord<E>(*word);
  return std::nullopt;
}

template <typename E>
json wordList(const std::vector<E>& values) {
  json list = json::array();
  for (E value : values) list.push_back(wordString(value));
  return list;
}

std::vector<std::string> keysOf(PassType type) {
  std::vector<std::string> keys = {"type"};
  if (type == PassType::Prune) {
    keys.insert(keys.end(), {"method", "amount", "scope", "norm", "layer_types", "layers",
                             "prune_output_layer", "schedule"});
  } else if (type == PassType::Distill) {
    keys.insert(keys.end(), {"teacher", "student", "temperature", "alpha"});
  } else if (type == PassType::Quantize) {
    keys.insert(keys.end(), {"mode", "observer", "calibration_batches", "engine"});
  }
  keys.insert(keys.end(), kTrainingKeys.begin(), kTrainingKeys.end());
  return keys;
}

std::optional<std::vector<std::string>> readStringList(const json& value, const StringRule& element,
                                                       const std::string& path, IssueList& issues) {
  if (!value.is_array()) {
    issues.add(path, "expected a list of strings, got " + describeValue(value));
    return std::nullopt;
  }
  std::vector<std::string> result;
  bool valid = true;
  for (size_t i = 0; i < value.size(); ++i) {
    if (auto item = readString(value[i], element, indexPath(path, i), issues)) {
      result.push_back(*item);
    } else {
      valid = false;
    }
  }
  if (!valid) return std::nullopt;
  return result;
}

// Training passes default to one epoch; a prune pass trains only when asked.
int64_t defaultEpochs(PassType type) {
  return type == PassType::Prune ? 0 : 1;
}

// One of a pass's keys (known to its type) into `pass`.
void readPassKey(CompressPassConfig& pass, const std::string& key, const json& v, const std::string& keyPath,
                 IssueList& issues) {
  if (key == "method") {
    if (auto r = readWord<PruneMethod>(v, keyPath, issues)) pass.method = *r;
  } else if (key == "amount") {
    if (auto r = readNumber(v, numberIn(0.0, false, 1.0, false), keyPath, issues)) pass.amount = *r;
  } else if (key == "scope") {
    if (auto r = readWord<PruneScope>(v, keyPath, issues)) pass.scope = *r;
  } else if (key == "norm") {
    if (auto r = readWord<PruneNorm>(v, keyPath, issues)) pass.norm = *r;
  } else if (key == "layer_types") {
    if (auto r = readStringList(v, oneOf(allWords<PrunedLayerType>()), keyPath, issues)) {
      pass.layer_types.clear();
      for (const std::string& word : *r) pass.layer_types.push_back(*fromWord<PrunedLayerType>(word));
    }
  } else if (key == "layers") {
    if (auto r = readStringList(v, nonEmptyString(), keyPath, issues)) pass.layers = *r;
  } else if (key == "prune_output_layer") {
    if (auto r = readBoolean(v, keyPath, issues)) pass.prune_output_layer = *r;
  } else if (key == "schedule") {
    if (auto r = readWord<PruneSchedule>(v, keyPath, issues)) pass.schedule = *r;
  } else if (key == "epochs") {
    if (auto r = readInteger(v, IntegerRule{0, 100000}, keyPath, issues)) pass.epochs = *r;
  } else if (key == "max_steps") {
    if (auto r = readInteger(v, IntegerRule{0, 1000000000}, keyPath, issues)) pass.max_steps = *r;
  } else if (key == "lr") {
    if (auto r = readNumber(v, nonNegativeNumber(), keyPath, issues)) pass.lr = *r;
  } else if (key == "teacher") {
    if (auto r = readString(v, nonEmptyString(), keyPath, issues)) pass.teacher = *r;
  } else if (key == "student") {
    if (v.is_null()) {
      pass.student = nullptr;
    } else if (!v.is_object() ||
               !(v.contains("preset") || v.contains("layers") || v.contains("torchscript"))) {
      issues.add(keyPath,
                 "expected a model section such as {\"preset\": \"mlp\"} or {\"layers\": [...]}, got " +
                     describeValue(v));
    } else if (!holdsValidUtf8(v)) {
      issues.add(keyPath, "expected text in UTF-8, got a model section holding other bytes");
    } else {
      pass.student = v;
    }
  } else if (key == "temperature") {
    if (auto r = readNumber(v, positiveNumber(), keyPath, issues)) pass.temperature = *r;
  } else if (key == "alpha") {
    if (auto r = readNumber(v, numberIn(0.0, true, 1.0, true), keyPath, issues)) pass.alpha = *r;
  } else if (key == "mode") {
    if (auto r = readWord<QuantizeMode>(v, keyPath, issues)) pass.mode = *r;
  } else if (key == "observer") {
    if (auto r = readWord<ObserverKind>(v, keyPath, issues)) pass.observer = *r;
  } else if (key == "calibration_batches") {
    if (auto r = readInteger(v, IntegerRule{1, 100000}, keyPath, issues)) pass.calibration_batches = *r;
  } else if (key == "engine") {
    if (auto r = readWord<QuantizedEngine>(v, keyPath, issues)) pass.engine = *r;
  }
}

CompressPassConfig readPass(const json& object, const std::string& path, IssueList& issues) {
  CompressPassConfig pass;
  if (!object.is_object()) {
    issues.add(path, "expected a pass object such as {\"type\": \"prune\", \"amount\": 0.5}, got " +
                         describeValue(object));
    return pass;
  }
  if (!object.contains("type")) {
    issues.add(path, "a pass needs a \"type\": one of " + quotedList(allWords<PassType>()));
    return pass;
  }
  const auto type = readWord<PassType>(object["type"], joinPath(path, "type"), issues);
  if (!type) return pass;
  pass.type = *type;
  pass.epochs = defaultEpochs(pass.type);
  const std::vector<std::string> allowed = keysOf(pass.type);
  for (const auto& item : object.items()) {
    const std::string keyPath = joinPath(path, item.key());
    const json& v = item.value();
    const std::string& key = item.key();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string message = "a " + wordString(pass.type) + " pass has no key \"" + key + "\"";
      const std::string suggestion = didYouMean(key, allowed);
      if (!suggestion.empty()) {
        message += "; did you mean \"" + suggestion + "\"?";
      } else {
        message += "; its keys are " + quotedList(allowed, " and ");
      }
      issues.add(keyPath, message);
      continue;
    }
    if (key != "type") readPassKey(pass, key, v, keyPath, issues);
  }
  return pass;
}

bool trains(const CompressPassConfig& p) {
  if (p.type == PassType::Finetune || p.type == PassType::Distill) return true;
  if (p.type == PassType::Quantize) return p.mode == QuantizeMode::Qat;
  return p.epochs > 0 || p.max_steps > 0;
}

// What only the whole pass, or the pass list, can tell.
void checkPasses(const std::vector<CompressPassConfig>& passes, const std::string& path, IssueList& issues) {
  int64_t quantizeAt = -1;
  for (size_t i = 0; i < passes.size(); ++i) {
    const CompressPassConfig& p = passes[i];
    const std::string at = indexPath(path, i);
    if (issues.hasIssueAt(at)) continue;
    const bool needsTraining = p.type == PassType::Finetune || p.type == PassType::Distill ||
                               (p.type == PassType::Quantize && p.mode == QuantizeMode::Qat);
    if (needsTraining && p.epochs == 0 && p.max_steps == 0) {
      issues.add(joinPath(at, "epochs"), "a " + wordString(p.type) +
                                             (p.type == PassType::Quantize ? " (qat)" : "") +
                                             " pass trains: set epochs (or max_steps) to at least 1");
    }
    if (p.type == PassType::Prune && p.schedule == PruneSchedule::Gradual) {
      if (p.method == PruneMethod::Structured) {
        issues.add(
            joinPath(at, "schedule"),
            "gradual pruning raises the sparsity of single weights step by step; structured pruning "
            "removes channels once: use \"one_shot\" with method \"structured\", or method \"unstructured\"");
      } else if (p.epochs == 0 && p.max_steps == 0) {
        issues.add(
            joinPath(at, "schedule"),
            "gradual pruning happens during fine-tuning, but this pass has epochs 0: set epochs (such as "
            "2) or use schedule \"one_shot\"");
      }
    }
    if (p.type == PassType::Prune && p.layer_types.empty()) {
      issues.add(joinPath(at, "layer_types"), "no layer type to prune: list \"conv2d\", \"linear\" or both");
    }
    if (quantizeAt >= 0 && trains(p)) {
      issues.add(
          at,
          "the model is int8 after compress.passes[" + std::to_string(quantizeAt) +
              "] (quantize), and an int8 model cannot be trained further: put the " + wordString(p.type) +
              " pass before the quantize pass, or use quantize mode \"qat\" to fine-tune while quantizing");
    } else if (quantizeAt >= 0) {
      issues.add(at, "compress.passes[" + std::to_string(quantizeAt) +
                         "] already quantized the model to int8: " + "the " + wordString(p.type) +
                         " pass must come before it (quantize is the last pass)");
    }
    if (p.type == PassType::Quantize && quantizeAt < 0) quantizeAt = static_cast<int64_t>(i);
  }
}

json writePass(const CompressPassConfig& p) {
  json j = {{"type", wordString(p.type)}};
  if (p.type == PassType::Prune) {
    j["method"] = wordString(p.method);
    j["amount"] = p.amount;
    j["scope"] = wordString(p.scope);
    j["norm"] = wordString(p.norm);
    j["layer_types"] = wordList(p.layer_types);
    j["layers"] = p.layers;
    j["prune_output_layer"] = p.prune_output_layer;
    j["schedule"] = wordString(p.schedule);
  } else if (p.type == PassType::Distill) {
    j["teacher"] = p.teacher;
    j["student"] = p.student;
    j["temperature"] = p.temperature;
    j["alpha"] = p.alpha;
  } else if (p.type == PassType::Quantize) {
    j["mode"] = wordString(p.mode);
    j["observer"] = wordString(p.observer);
    j["calibration_batches"] = p.calibration_batches;
    j["engine"] = wordString(p.engine);
  }
  j["epochs"] = p.epochs;
  j["max_steps"] = p.max_steps;
  j["lr"] = p.lr;
  return j;
}

SchemaKey passesKey() {
  SchemaKey key;
  key.name = "passes";
  key.kind = KeyKind::Layers;  // free-form for overrides; checked here as a whole
  key.read = [](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
    if (value.is_null()) {
      e.compress.passes.clear();
      return;
    }
    if (!value.is_array()) {
      issues.add(path,
                 "expected a list of passes such as [{\"type\": \"prune\", \"amount\": 0.5}, "
                 "{\"type\": \"quantize\"}], got " +
                     describeValue(value));
      return;
    }
    std::vector<CompressPassConfig> passes;
    for (size_t i = 0; i < value.size(); ++i)
      passes.push_back(readPass(value[i], indexPath(path, i), issues));
    checkPasses(passes, path, issues);
    e.compress.passes = std::move(passes);
  };
  key.write = [](const Experiment& e) {
    json list = json::array();
    for (const CompressPassConfig& p : e.compress.passes) list.push_back(writePass(p));
    return list;
  };
  return key;
}

SchemaKey integerLeaf(const char* name, IntegerRule rule, int64_t CompressConfig::*field) {
  SchemaKey key;
  key.name = name;
  key.kind = KeyKind::Integer;
  key.read = [rule, field](const json& value, const std::string& path, IssueList& issues, Experiment& e) {
    if (auto r = readInteger(value, rule, path, issues)) e.compress.*field = *r;
  };
  key.write = [field](const Experiment& e) { return json(e.compress.*field); };
  return key;
}

}  // namespace

SchemaKey compressSection() {
  SchemaKey section;
  section.name = "compress";
  section.kind = KeyKind::Section;
  section.children = {passesKey(),
                      integerLeaf("latency_runs", IntegerRule{1, 10000}, &CompressConfig::latency_runs),
                      integerLeaf("latency_threads", IntegerRule{0, 1024}, &CompressConfig::latency_threads)};
  return section;
}

nlohmann::json compressPassToJson(const CompressPassConfig& pass) {
  return writePass(pass);
}

}  // namespace wb
