#include "weights/weights_loading.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "model/huggingface/text_classifier_config.h"
#include "model/model_head.h"
#include "run_folder/checkpoint_file.h"
#include "run_folder/checkpoint_store.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

const char* const kWlCheckpointFormat = "workbench-checkpoint";

bool wlIsCheckpointFile(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[8] = {};
  in.read(magic, sizeof magic);
  return in.gcount() == sizeof magic && std::memcmp(magic, "WBCKPT01", sizeof magic) == 0;
}

// Our checkpoints hold the model's tensors under its own names in a "model" archive: read by those names.
ModelWeightsSource wlReadCheckpoint(const std::string& weights, const std::string& file, Model& model) {
  ModelWeightsSource source{weights, file, kWlCheckpointFormat, {}};
  CheckpointContents checkpoint;
  try {
    checkpoint = readCheckpointFile(file);
  } catch (const CorruptCheckpoint& e) {
    throw UserError("model.weights: the checkpoint " + file + " is damaged (" + e.what() + ")",
                    "give another checkpoint of the run, or the run folder (its newest intact checkpoint)");
  }
  torch::serialize::InputArchive archive;
  torch::serialize::InputArchive weights_archive;
  try {
    std::istringstream in(checkpoint.payload);
    archive.load_from(in, torch::Device(torch::kCPU));
    archive.read("model", weights_archive);
  } catch (const c10::Error& e) {
    throw UserError("model.weights: the checkpoint " + file + " holds no model the workbench can read (" +
                        std::string(e.what_without_backtrace()).substr(0, 200) + ")",
                    "give a checkpoint written by this workbench");
  }
  NamedTensors targets = model.namedParameters();
  for (auto& buffer : model.namedBuffers()) targets.push_back(buffer);
  for (const auto& [name, target] : targets) {
    torch::Tensor tensor;
    if (weights_archive.try_read(name, tensor)) source.contents.tensors.emplace_back(name, tensor);
  }
  return source;
}

ModelWeightsSource wlReadFile(const std::string& weights, const std::string& file) {
  ModelWeightsSource source{weights, file, "", {}};
  try {
    source.contents = readWeightsFile(file);
  } catch (const UserError& e) {
    throw UserError("model.weights: " + std::string(e.what()), e.hint());
  }
  source.format = weightsFormatWord(source.contents.format);
  return source;
}

// A finished (or stopped) run's model.pt is its trained model; an interrupted one has only checkpoints.
ModelWeightsSource wlReadRunFolder(const std::string& weights, Model& model) {
  const fs::path model_file = fs::path(weights) / "model.pt";
  std::error_code ec;
  if (fs::is_regular_file(model_file, ec)) return wlReadFile(weights, model_file.string());
  const CheckpointStore store(weights, 1, true);
  if (auto latest = store.loadLatestGood({})) return wlReadCheckpoint(weights, latest->path, model);
  throw UserError("model.weights: " + weights +
                      " is a folder but not a run of ours with weights (no model.pt, no intact checkpoint)",
                  "give a weights file (.safetensors, .pt, .pth), or a run folder that trained");
}

}  // namespace

ModelWeightsSource readModelWeights(const std::string& weights, Model& model) {
  std::error_code ec;
  if (fs::is_directory(weights, ec)) return wlReadRunFolder(weights, model);
  if (!fs::exists(weights, ec)) {
    throw UserError("model.weights: " + weights + " does not exist",
                    "check the path (a relative path is relative to the folder the program runs in)");
  }
  if (wlIsCheckpointFile(weights)) return wlReadCheckpoint(weights, weights, model);
  return wlReadFile(weights, weights);
}

std::string startingWeightsOf(const ModelConfig& config) {
  if (!config.weights.empty() || config.huggingface.empty()) return config.weights;
  return huggingFaceWeightsFile(config.huggingface);
}

std::string describeArchitecture(const ModelConfig& config) {
  if (!config.huggingface.empty()) return "the model of " + config.huggingface + "/config.json";
  if (!config.torchscript.empty()) return "the TorchScript module in model.torchscript";
  if (config.layers.is_array()) return "the layer list in model.layers";
  return config.preset;
}

}  // namespace wb
