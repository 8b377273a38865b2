#pragma once
// The one description of the experiment file: every key, where it lives in `Experiment`, and how its value is
// checked. The parser, the writer and the command-line overrides all walk this tree, so a key added here is
// read, written and overridable at once, and an unknown key gets the same "did you mean" everywhere.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiment/issue_list.h"
#include "workbench/experiment.h"

namespace wb {

enum class KeyKind {
  Section,  // an object of further keys
  Boolean,
  Integer,
  Number,
  String,
  List,    // an array of values (indexable in overrides: "optimizer.betas[0]=0.8")
  Layers,  // model.layers: kept as JSON here, checked by the model module
};

// When a key matters: while the string key at `path` holds one of `values` (or, `negated`, none of them). The
// file accepts the key either way; the editor shows it only when it matters, and `keys` says when that is.
struct KeyCondition {
  std::string path;
  std::vector<std::string> values;
  bool negated = false;
};

struct SchemaKey {
  std::string name;
  KeyKind kind = KeyKind::Section;
  // When the key (a section: every key in it) matters; none = always.
  std::optional<KeyCondition> appliesWhen;

  // Section only.
  std::vector<SchemaKey> children;
  // Section only: a bare true/false stands for {"enabled": ...} and an object without "enabled" is enabled,
  // so `"augment": false` and `"early_stopping": {"metric": "val_accuracy"}` both read naturally.
  bool switchable = false;

  // Leaves only: checks `value` and stores it in the experiment, or adds issues and leaves the default.
  std::function<void(const nlohmann::json& value, const std::string& path, IssueList& issues, Experiment& e)>
      read;
  // Leaves only: the value as the file spells it.
  std::function<nlohmann::json(const Experiment& e)> write;
  // String leaves and lists of strings: an override such as `name=2024` stays the text "2024".
  bool holdsText = false;
  // String leaves that take one of a fixed set of words, in the order a chooser lists them.
  std::vector<std::string> choices;

  const SchemaKey* child(const std::string& childName) const;
  std::vector<std::string> childNames() const;
};

// The root: a Section whose children are name, seed, data, model, optimizer, schedule, train, compress,
// output.
const SchemaKey& experimentSchema();

// The `compress` section (compress_section.cpp): its pass list is checked pass by pass.
SchemaKey compressSection();

// train.pipeline (pipeline_section.cpp): the cut into stages, the micro-batches and their schedule.
SchemaKey pipelineSection();

// The keys that pick parameters by name (parameter_keys.cpp): model.freeze, model.unfreeze,
// optimizer.param_groups.
SchemaKey freezeKey();
SchemaKey unfreezeSection();
SchemaKey paramGroupsKey();

// "train" + "batch_size" → "train.batch_size"; the root's children have no prefix.
std::string joinPath(const std::string& parent, const std::string& key);
std::string indexPath(const std::string& parent, size_t index);

// What to say about a key that `section` (found at `sectionPath`) does not have: the closest valid key when
// one is close, else the list of valid keys.
std::string unknownKeyMessage(const std::string& key, const SchemaKey& section,
                              const std::string& sectionPath);

}  // namespace wb
