// parseExperiment: walks the document along the schema, reading every key it knows and reporting every one it
// does not, then checks the combinations.

#include <set>
#include <string>

#include "experiment/experiment_consistency.h"
#include "experiment/experiment_schema.h"
#include "experiment/issue_list.h"
#include "experiment/value_checks.h"
#include "workbench/experiment.h"

namespace wb {
namespace {

using nlohmann::json;

struct TorchOptimizerDefaults {
  double lr = 1e-3;
  double weight_decay = 0.0;
  double eps = 1e-8;
};

TorchOptimizerDefaults torchOptimizerDefaults(OptimizerName name) {
  TorchOptimizerDefaults d;
  if (name == OptimizerName::AdamW) d.weight_decay = 1e-2;
  if (name == OptimizerName::RmsProp || name == OptimizerName::Adagrad) d.lr = 1e-2;
  if (name == OptimizerName::Adagrad) d.eps = 1e-10;
  return d;
}

class ExperimentReader {
 public:
  ParseResult read(const json& doc) {
    // No document at all is the default experiment, like an empty file would be if JSON allowed one.
    if (doc.is_null()) return finish();
    if (!doc.is_object()) {
      m_issues.add("", "an experiment file holds a JSON object such as {\"train\": {\"epochs\": 5}}, got " +
                           describeValue(doc));
      return finish();
    }
    readSection(experimentSchema(), doc, "");
    settleModelSource();
    settleOptimizerDefaults();
    checkConsistency(m_experiment, m_issues);
    return finish();
  }

 private:
  void readSection(const SchemaKey& section, const json& value, const std::string& path) {
    if (section.switchable && value.is_boolean()) {
      readLeaf(*section.child("enabled"), value, joinPath(path, "enabled"));
      return;
    }
    if (!value.is_object()) {
      const std::string expected = section.switchable ? "true, false or an object" : "an object";
      m_issues.add(path, "expected " + expected + " with the keys " +
                             quotedList(section.childNames(), " and ") + ", got " + describeValue(value));
      return;
    }
    for (const auto& item : value.items()) {
      const std::string keyPath = joinPath(path, item.key());
      const SchemaKey* key = section.child(item.key());
      if (key == nullptr) {
        m_issues.add(keyPath, unknownKeyMessage(item.key(), section, path));
      } else if (key->kind == KeyKind::Section) {
        m_given.insert(keyPath);
        readSection(*key, item.value(), keyPath);
      } else {
        readLeaf(*key, item.value(), keyPath);
      }
    }
    if (section.switchable && !value.contains("enabled")) {
      readLeaf(*section.child("enabled"), json(true), joinPath(path, "enabled"));
    }
  }

  void readLeaf(const SchemaKey& key, const json& value, const std::string& path) {
    m_given.insert(path);
    key.read(value, path, m_issues, m_experiment);
  }

  // A model is exactly one of: a preset, a layer list, a TorchScript file, a Hugging Face folder. The preset
  // defaults to "cnn" only when none of the others is given, so a layer list alone needs no `"preset": ""`.
  void settleModelSource() {
    ModelConfig& model = m_experiment.model;
    std::vector<std::string> given;
    if (!model.layers.is_null()) given.push_back("model.layers");
    if (!model.torchscript.empty()) given.push_back("model.torchscript");
    if (!model.huggingface.empty()) given.push_back("model.huggingface");
    if (given.size() > 1) {
      m_issues.add(given[0], given[0] + " and " + given[1] +
                                 " are both given: a model is one of a layer list, a TorchScript file or a "
                                 "Hugging Face folder, remove one of them");
    }
    if (!given.empty()) {
      const std::string& other = given[0];
      if (m_given.count("model.preset") > 0 && !model.preset.empty()) {
        m_issues.add("model.preset",
                     "model.preset (\"" + model.preset + "\") and " + other +
                         " are both given: a model is either a preset, a layer list, a "
                         "TorchScript file or a Hugging Face folder, remove model.preset or " +
                         other);
      }
      model.preset.clear();
    } else if (model.preset.empty() && !m_issues.hasIssueAt("model")) {
      m_issues.add("model.preset",
                   "no model given: name a preset (\"mlp\", \"cnn\", \"resnet\" or \"vit\"), a layer list in "
                   "model.layers, a TorchScript file in model.torchscript or a Hugging Face folder in "
                   "model.huggingface");
    }
    // A text model's tokenizer is, unless another is named, the one in its folder.
    if (m_given.count("data.text.tokenizer") == 0) m_experiment.data.text.tokenizer = model.huggingface;
  }

  // What torch.optim does when a key is not written depends on the optimizer (torch 1.13's constructors:
  // RMSprop and Adagrad start at lr 1e-2, only AdamW decays weights, Adagrad's eps is 1e-10), so an unwritten
  // key takes the default of the optimizer named. SGD has no lr default in 1.13; 1e-3 is torch 2.x's.
  void settleOptimizerDefaults() {
    OptimizerConfig& optimizer = m_experiment.optimizer;
    const TorchOptimizerDefaults defaults = torchOptimizerDefaults(optimizer.name);
    if (m_given.count("optimizer.lr") == 0) optimizer.lr = defaults.lr;
    if (m_given.count("optimizer.weight_decay") == 0) optimizer.weight_decay = defaults.weight_decay;
    if (m_given.count("optimizer.eps") == 0) optimizer.eps = defaults.eps;
  }

  ParseResult finish() {
    ParseResult result;
    result.experiment = m_experiment;
    result.issues = m_issues.take();
    return result;
  }

  Experiment m_experiment;
  IssueList m_issues;
  std::set<std::string> m_given;  // paths present in the document
};

}  // namespace

ParseResult parseExperiment(const nlohmann::json& doc) {
  ExperimentReader reader;
  return reader.read(doc);
}

}  // namespace wb
