#include "run_folder/training_state.h"

#include <algorithm>
#include <sstream>

#include "optim/optimizer_state_io.h"
#include "util/rng_state.h"
#include "workbench/errors.h"

namespace wb {
namespace {

// Archive keys become attribute names of a TorchScript class: no dots.
std::string escapedKey(const std::string& name) {
  std::string key;
  for (char c : name) key += c == '.' ? std::string("__") : std::string(1, c);
  return key;
}

std::string unescapedKey(const std::string& key) {
  std::string name;
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] == '_' && i + 1 < key.size() && key[i + 1] == '_') {
      name += '.';
      ++i;
    } else {
      name += key[i];
    }
  }
  return name;
}

}  // namespace

// The tensors of a checkpoint: model weights and buffers, the optimizer's state, the RNG states, serialized
// into `buffer`. The caller keeps the buffer from one checkpoint to the next: writing into memory that is
// already mapped is several times faster than growing a fresh stream (page faults dominated: the CNN's
// 37.5 MiB checkpoint took ~530 ms through an ostringstream, ~110 ms written and synced from a reused
// buffer).
void serializeTrainingState(Model& model, torch::optim::Optimizer& optimizer, std::string& buffer,
                            const ExtraTensors& extra) {
  torch::serialize::OutputArchive archive;
  torch::serialize::OutputArchive weights;
  for (const auto& [name, tensor] : model.namedParameters()) weights.write(name, tensor.detach());
  for (const auto& [name, tensor] : model.namedBuffers()) weights.write(name, tensor, /*is_buffer=*/true);
  archive.write("model", weights);
  torch::serialize::OutputArchive optimizer_state;
  optimizer.save(optimizer_state);
  archive.write("optimizer", optimizer_state);
  torch::serialize::OutputArchive rng;
  // Archive keys become attribute names of a TorchScript class: "cuda:0" is stored as "cuda_0".
  for (const auto& [name, state] : captureRngStates()) {
    std::string key = name;
    std::replace(key.begin(), key.end(), ':', '_');
    rng.write(key, state, /*is_buffer=*/true);
  }
  archive.write("rng", rng);
  if (!extra.empty()) {
    torch::serialize::OutputArchive extras;
    for (const auto& [name, tensor] : extra) extras.write(escapedKey(name), tensor, /*is_buffer=*/true);
    archive.write("extra", extras);
  }
  buffer.clear();  // keeps its capacity
  archive.save_to([&buffer](const void* data, size_t size) {
    buffer.append(static_cast<const char*>(data), size);
    return size;
  });
}

ExtraTensors restoreTrainingState(const std::string& payload, const std::string& file, Model& model,
                                  torch::optim::Optimizer& optimizer) {
  std::istringstream in(payload);
  torch::serialize::InputArchive archive;
  archive.load_from(in, torch::Device(torch::kCPU));
  torch::serialize::InputArchive weights;
  archive.read("model", weights);
  {
    torch::NoGradGuard no_grad;
    auto restore = [&](const std::vector<std::pair<std::string, torch::Tensor>>& targets, bool buffers) {
      for (const auto& [name, target] : targets) {
        torch::Tensor value;
        if (!weights.try_read(name, value, buffers) || !value.sizes().equals(target.sizes())) {
          throw UserError("Checkpoint " + file + " does not fit the model: tensor " + name +
                              " is missing or "
                              "has another shape.",
                          "The model in experiment.json was changed after the checkpoint was written.");
        }
        target.copy_(value);
      }
    };
    restore(model.namedParameters(), false);
    restore(model.namedBuffers(), true);
  }
  torch::serialize::InputArchive optimizer_state;
  archive.read("optimizer", optimizer_state);
  loadOptimizerState(optimizer, optimizer_state);  // whichever LibTorch wrote it
  torch::serialize::InputArchive rng;
  archive.read("rng", rng);
  std::vector<std::pair<std::string, torch::Tensor>> states;
  for (const std::string& key : rng.keys()) {
    torch::Tensor state;
    std::string name = key;
    if (name.rfind("cuda_", 0) == 0) name[4] = ':';
    if (rng.try_read(key, state, /*is_buffer=*/true)) states.emplace_back(name, state);
  }
  restoreRngStates(states);
  ExtraTensors extra;
  torch::serialize::InputArchive extras;
  if (archive.try_read("extra", extras)) {
    for (const std::string& key : extras.keys()) {
      torch::Tensor t;
      if (extras.try_read(key, t, /*is_buffer=*/true)) extra.emplace_back(unescapedKey(key), t);
    }
  }
  return extra;
}

}  // namespace wb
