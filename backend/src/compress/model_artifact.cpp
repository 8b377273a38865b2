#include "compress/model_artifact.h"

#include <filesystem>
#include <fstream>

#include "model/layer_list.h"
#include "model/layer_net_model.h"
#include "model/torchscript_model.h"
#include "model/weights_file.h"
#include "util/atomic_file.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kArtifactFile = "artifact.json";
const char* const kWeightsFile = "weights.pt";
constexpr int kFormat = 1;

NamedTensors cpuCopies(const NamedTensors& tensors) {
  NamedTensors out;
  out.reserve(tensors.size());
  for (const auto& [name, t] : tensors) out.emplace_back(name, t.detach().to(torch::kCPU).clone());
  return out;
}

json names(const NamedTensors& tensors) {
  json list = json::array();
  for (const auto& item : tensors) list.push_back(item.first);
  return list;
}

// Archive keys become TorchScript attribute names: dots are not allowed, so names are escaped.
std::string archiveKey(const std::string& name) {
  std::string key;
  for (char c : name) key += c == '.' ? std::string("__") : std::string(1, c);
  return key;
}

void writeGroup(torch::serialize::OutputArchive& archive, const char* group, const NamedTensors& tensors) {
  torch::serialize::OutputArchive part;
  for (const auto& [name, t] : tensors) part.write(archiveKey(name), t, /*is_buffer=*/true);
  archive.write(group, part);
}

NamedTensors readGroup(torch::serialize::InputArchive& archive, const char* group, const json& list,
                       const std::string& file) {
  NamedTensors out;
  if (!list.is_array() || list.empty()) return out;
  torch::serialize::InputArchive part;
  if (!archive.try_read(group, part)) {
    throw UserError(file + " lacks the tensors of group \"" + group + "\"",
                    "The artifact is damaged: run the pass again.");
  }
  for (const auto& entry : list) {
    const std::string name = entry.get<std::string>();
    torch::Tensor t;
    if (!part.try_read(archiveKey(name), t, /*is_buffer=*/true)) {
      throw UserError(file + " lacks tensor " + name, "The artifact is damaged: run the pass again.");
    }
    out.emplace_back(name, t);
  }
  return out;
}

void copyInto(Model& model, const ModelArtifact& artifact) {
  torch::NoGradGuard no_grad;
  auto copy = [&](const NamedTensors& targets) {
    for (const auto& [name, target] : targets) {
      const torch::Tensor value = artifact.tensor(name);
      if (!value.defined() || !value.sizes().equals(target.sizes())) {
        throw UserError("artifact " + artifact.name + ": tensor " + name +
                            (value.defined() ? " has shape " + shapeToString(value.sizes().vec()) +
                                                   ", the model " + shapeToString(target.sizes().vec())
                                             : " is missing"),
                        "The artifact does not match its own layer list: run the pass again.");
      }
      target.copy_(value);
    }
  };
  copy(model.namedParameters());
  copy(model.namedBuffers());
}

}  // namespace

torch::Tensor ModelArtifact::tensor(const std::string& tensorName) const {
  for (const auto* group : {&weights, &buffers}) {
    for (const auto& [n, t] : *group) {
      if (n == tensorName) return t;
    }
  }
  return {};
}

std::vector<LayerPtr> artifactLayers(const ModelArtifact& artifact) {
  std::vector<ValidationIssue> issues;
  std::vector<LayerPtr> layers = parseLayerList(artifact.layers, "layers", issues);
  if (!issues.empty()) {
    throw UserError("artifact " + artifact.name + ": its layer list does not parse: " + issues.front().path +
                        ": " + issues.front().message,
                    "It was written by another version of the workbench: run the pass again.");
  }
  return layers;
}

ModelArtifact artifactFromModel(Model& model, const json& layers, const std::string& torchscript,
                                const Shape& input_shape, int64_t num_classes) {
  ModelArtifact a;
  a.layers = layers;
  a.torchscript = torchscript;
  a.input_shape = input_shape;
  a.num_classes = num_classes;
  a.weights = cpuCopies(model.namedParameters());
  a.buffers = cpuCopies(model.namedBuffers());
  return a;
}

ModelArtifact loadRunModel(const std::string& run_dir, const Shape& input_shape, int64_t num_classes) {
  const std::string model_file = run_dir + "/model.pt";
  const ParseResult parsed = loadExperimentFile(run_dir + "/experiment.json");
  if (!parsed.ok()) {
    throw UserError(run_dir + " is not a usable run folder: " + formatIssues(parsed.issues),
                    "Give the folder of a finished run (`workbench-cli runs` lists them).");
  }
  if (!fs::exists(model_file)) {
    throw UserError(
        "The run in " + run_dir + " has no model.pt (it did not finish, or failed).",
        "Use a run whose training completed (`workbench-cli runs` lists them with their status).");
  }
  const ModelConfig& config = parsed.experiment.model;
  if (!config.huggingface.empty()) {
    // Compression passes and exporters walk a layer list or a TorchScript module; a text model is neither.
    throw UserError("The run in " + run_dir + " trained a Hugging Face text model (model.huggingface " +
                        config.huggingface + "): it is not compressed or exported yet",
                    "its model.pt is evaluated with `workbench-cli eval " + run_dir + "`");
  }
  auto model = buildModel(config, input_shape, num_classes);
  model->load(model_file);
  json layers = nullptr;
  std::string torchscript;
  if (!config.torchscript.empty()) {
    torchscript = fs::absolute(model_file).string();  // the trained module, saved whole
  } else {
    layers = config.layers.is_null() ? presetLayers(config.preset, input_shape, num_classes) : config.layers;
  }
  return artifactFromModel(*model, layers, torchscript, input_shape, num_classes);
}

std::unique_ptr<Model> buildFloatModel(const ModelArtifact& artifact) {
  if (artifact.isQuantized()) {
    throw UserError("artifact " + artifact.name + " is int8: it cannot be trained or pruned further",
                    "Put training and pruning passes before the quantize pass.");
  }
  std::unique_ptr<Model> model;
  if (!artifact.torchscript.empty()) {
    model =
        std::make_unique<TorchScriptModel>(artifact.torchscript, artifact.input_shape, artifact.num_classes);
  } else {
    model = std::make_unique<LayerNetModel>(artifactLayers(artifact), artifact.input_shape);
  }
  copyInto(*model, artifact);
  return model;
}

bool isCompleteArtifact(const std::string& folder) {
  return fs::is_regular_file(fs::path(folder) / kArtifactFile);
}

void saveArtifact(const ModelArtifact& artifact, const std::string& folder) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec)
    throw UserError("Could not create " + folder + ": " + ec.message(),
                    "Check the disk holding the run folder.");
  torch::serialize::OutputArchive archive;
  writeGroup(archive, "weights", artifact.weights);
  writeGroup(archive, "buffers", artifact.buffers);
  writeGroup(archive, "quantized", artifact.quantized);
  const std::string weights_file = folder + "/" + kWeightsFile;
  writeWeightsFile(weights_file, [&archive](const std::string& tmp) { archive.save_to(tmp); });
  const json meta = {{"format", kFormat},
                     {"name", artifact.name},
                     {"source", artifact.source},
                     {"layers", artifact.layers},
                     {"torchscript", artifact.torchscript},
                     {"input_shape", artifact.input_shape},
                     {"num_classes", artifact.num_classes},
                     {"weights", names(artifact.weights)},
                     {"buffers", names(artifact.buffers)},
                     {"masks", names(artifact.masks)},
                     {"quantized", names(artifact.quantized)},
                     {"quantization", artifact.quantization},
                     {"history", artifact.history}};
  writeFileAtomically(folder + "/" + kArtifactFile, meta.dump(2) + "\n");
}

ModelArtifact loadArtifact(const std::string& folder) {
  const std::string meta_file = folder + "/" + kArtifactFile;
  const std::string weights_file = folder + "/" + kWeightsFile;
  if (!fs::is_regular_file(meta_file)) {
    throw UserError(
        folder + " is not a finished model artifact (no artifact.json)",
        "List a run's artifacts with `workbench-cli compress RUN_DIR --list`, or run its pipeline again.");
  }
  std::ifstream in(meta_file);
  const json meta = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object() || meta.value("format", 0) != kFormat || !meta.contains("input_shape")) {
    throw UserError(meta_file + " is damaged or from another version", "Run the compression pass again.");
  }
  ModelArtifact a;
  try {
    a.name = meta.value("name", std::string());
    a.source = meta.value("source", std::string());
    a.layers = meta.value("layers", json());
    a.torchscript = meta.value("torchscript", std::string());
    a.input_shape = meta.at("input_shape").get<Shape>();
    a.num_classes = meta.at("num_classes").get<int64_t>();
    a.quantization = meta.value("quantization", json());
    a.history = meta.value("history", json::array());
  } catch (const json::exception& e) {
    throw UserError(meta_file + " is damaged: " + e.what(), "Run the compression pass again.");
  }
  requireWeightsFile(weights_file);
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(weights_file, torch::Device(torch::kCPU));
  } catch (const c10::Error& e) {
    throw UserError(weights_file + ": not a weights file the workbench can read (" + shortErrorText(e) + ")",
                    "The artifact is damaged: run the compression pass again.");
  }
  a.weights = readGroup(archive, "weights", meta.value("weights", json::array()), weights_file);
  a.buffers = readGroup(archive, "buffers", meta.value("buffers", json::array()), weights_file);
  // Masks are not stored: the weights hold w × mask, so a pruned entry is exactly the zeros of its weight (an
  // unpruned weight that is exactly 0.0 is pruned in effect anyway). Storing them would double the file of an
  // unstructured-pruned model for nothing.
  for (const auto& entry : meta.value("masks", json::array())) {
    const torch::Tensor w = a.tensor(entry.get<std::string>());
    if (!w.defined())
      throw UserError(meta_file + " names a mask for a tensor it lacks", "Run the pass again.");
    a.masks.emplace_back(entry.get<std::string>(), (w != 0).to(w.dtype()));
  }
  a.quantized = readGroup(archive, "quantized", meta.value("quantized", json::array()), weights_file);
  return a;
}

ParameterCounts countParameters(const ModelArtifact& artifact) {
  ParameterCounts counts;
  auto add = [&](const torch::Tensor& t) {
    counts.total += t.numel();
    counts.nonzero += t.count_nonzero().item<int64_t>();
  };
  for (const auto& item : artifact.weights) add(item.second);
  // int8 weights are stored as int8 tensors, beside their float biases; scales and zero points are not
  // parameters.
  for (const auto& [name, t] : artifact.quantized) {
    const bool bias = name.size() >= 5 && name.compare(name.size() - 5, 5, ".bias") == 0;
    if (t.scalar_type() == torch::kChar || t.scalar_type() == torch::kQInt8) {
      add(t.is_quantized() ? t.int_repr() : t);
    } else if (bias) {
      add(t);
    }
  }
  return counts;
}

}  // namespace wb
