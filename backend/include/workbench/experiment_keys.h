#pragma once
// The experiment file's keys, for the front ends, read from the one schema the parser, the writer and `--set`
// walk (so a list built from this cannot drift from what the file accepts): each key's path as the file and
// `--set` spell it, the kind of value it takes, and its default. Plain C++: no JSON type, no Torch.

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

struct ExperimentKey {
  std::string path;  // "train.batch_size"
  ExperimentKeyKind kind = ExperimentKeyKind::String;
  std::string default_value;  // as the file spells it (JSON text): "128", "\"cosine\"", "[0.9,0.999]"
};

// Every key that takes a value (sections are their keys' path prefixes), in the file's order.
std::vector<ExperimentKey> experimentKeys();

}  // namespace wb
