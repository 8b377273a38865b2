#pragma once
// The tensors of a checkpoint: model weights and buffers, the optimizer's state and the RNG states, plus
// whatever a step's parts carry (pruning masks). Shared by training runs and compression passes.

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "model/model.h"

namespace wb {

using ExtraTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Serializes into `buffer`. The caller keeps the buffer from one checkpoint to the next: writing into memory
// that is already mapped is several times faster than growing a fresh stream (page faults dominated: the
// CNN's 37.5 MiB checkpoint took ~530 ms through an ostringstream, ~110 ms written and synced from a reused
// buffer).
void serializeTrainingState(Model& model, torch::optim::Optimizer& optimizer, std::string& buffer,
                            const ExtraTensors& extra = {});

// Restores what serializeTrainingState wrote; UserError naming `file` when a model tensor is missing or has
// another shape. Returns the extra tensors stored with it.
ExtraTensors restoreTrainingState(const std::string& payload, const std::string& file, Model& model,
                                  torch::optim::Optimizer& optimizer);

}  // namespace wb
