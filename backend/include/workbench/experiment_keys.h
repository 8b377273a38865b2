#pragma once
// The experiment file's keys, for the front ends, read from the one schema the parser, the writer and `--set`
// walk (so a form or list built from this cannot drift from what the file accepts): each key's path as the
// file and `--set` spell it, the kind of value it takes, its default, the words it takes when it takes one of
// a set, and when it matters. Plain C++: no JSON type, no Torch.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace wb {

enum class ExperimentKeyKind {
  Boolean,
  Integer,
  Number,
  String,
  List,    // an array of values ("optimizer.betas"; `--set optimizer.betas[0]=0.8`)
  Layers,  // model.layers: a list of layer objects, checked by the model module
};

// When a key matters: while the key at `path` holds one of `values` or, `negated`, none of them. The file
// accepts the key either way (it has no effect then): a form hides it, `keys` says when it applies.
struct ExperimentKeyCondition {
  std::string path;  // "optimizer.name"; empty: the key always matters
  std::vector<std::string> values;
  bool negated = false;

  // Whether the key matters while the key at `path` holds `value`.
  bool heldBy(const std::string& value) const;
  // "optimizer.name is adam or adamw", "data.dataset is not synthetic"; empty when always.
  std::string describe() const;
};

struct ExperimentKey {
  std::string path;  // "train.batch_size"
  ExperimentKeyKind kind = ExperimentKeyKind::String;
  std::string default_value;         // as the file spells it (JSON text): "128", "\"cosine\"", "[0.9,0.999]"
  std::vector<std::string> choices;  // the words a String key takes, in a chooser's order; empty: any text
  ExperimentKeyCondition applies_when;  // a section's condition holds for every key in it
  // Integer keys: the least and the greatest value the engine accepts (a field never offers another).
  int64_t minimum = std::numeric_limits<int64_t>::min();
  int64_t maximum = std::numeric_limits<int64_t>::max();
};

// Every key that takes a value (sections are their keys' path prefixes), in the file's order.
std::vector<ExperimentKey> experimentKeys();
// The key at `path` ("optimizer.betas[1]" is optimizer.betas's), or null.
const ExperimentKey* findExperimentKey(const std::string& path);

}  // namespace wb
