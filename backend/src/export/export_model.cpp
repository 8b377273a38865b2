// exportModel: the run's experiment and data give the metadata, the artifact gives the model; each format
// builds its whole file (or module) in memory first, so a refusal writes nothing, then writes it atomically.

#include <chrono>
#include <filesystem>
#include <memory>

#include "compress/model_artifact.h"
#include "data/dataset.h"
#include "export/export_metadata.h"
#include "export/exported_tensors.h"
#include "export/onnx_export.h"
#include "export/safetensors_writer.h"
#include "export/torchscript_export.h"
#include "model/layer_names.h"
#include "util/atomic_file.h"
#include "workbench/errors.h"
#include "workbench/experiment.h"
#include "workbench/export.h"
#include "workbench/run_state.h"
#include "workbench/system_info.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kArtifactsFolder = "compressed";

ModelArtifact loadRequestedArtifact(const std::string& run_dir, const std::string& artifact,
                                    const Dataset& data) {
  if (artifact.empty()) return loadRunModel(run_dir, data.sample_shape, data.num_classes);
  const std::string folder = fs::path(artifact).is_absolute() ? artifact : run_dir + "/" + artifact;
  if (!isCompleteArtifact(folder)) {
    std::string names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(run_dir + "/" + kArtifactsFolder, ec)) {
      if (isCompleteArtifact(entry.path().string())) {
        names += std::string(names.empty() ? "" : ", ") + kArtifactsFolder + "/" +
                 entry.path().filename().string();
      }
    }
    throw UserError("No model artifact " + artifact + " in " + run_dir +
                        (fs::exists(folder) ? " (its pass did not finish)" : ""),
                    names.empty()
                        ? "The run has no compressed models: export the trained one (no --model), or run "
                          "`workbench-cli compress " +
                              run_dir + "` first."
                        : "The run's artifacts: " + names);
  }
  ModelArtifact a = loadArtifact(folder);
  if (a.input_shape != data.sample_shape || a.num_classes != data.num_classes) {
    throw UserError("artifact " + artifact + " takes samples " + shapeToString(a.input_shape) + " with " +
                        std::to_string(a.num_classes) + " classes, but the run's data has " +
                        shapeToString(data.sample_shape) + " with " + std::to_string(data.num_classes),
                    "The artifact belongs to another run.");
  }
  return a;
}

bool uint8Images(DatasetName dataset) {
  return dataset != DatasetName::Csv && dataset != DatasetName::Synthetic;
}

// What torchvision's evaluation transforms do to an image folder's file before ToTensor and Normalize, so
// that the exported model is fed elsewhere what it was evaluated on here.
nlohmann::json imagePreprocessing(const DataConfig& d) {
  if (d.dataset != DatasetName::ImageFolder) return nullptr;
  nlohmann::json p = {{"convert", d.images.channels == 1 ? "L" : "RGB"},
                      {"resize", d.images.resize},
                      {"center_crop", d.images.crop},
                      {"interpolation", "bilinear"},
                      {"antialias", true},
                      {"steps",
                       "Image.open(f).convert(mode); Resize(resize) if resize > 0 (the shorter side, "
                       "PIL bilinear); CenterCrop(center_crop) if > 0; ToTensor; Normalize(mean, std)"}};
  return p;
}

// Float tensors by state-dict name; int8 artifacts add the int8 weights, their scales, zero points and
// biases.
}  // namespace

NamedTensors exportedTensors(const ModelArtifact& a) {
  NamedTensors all = a.weights;
  all.insert(all.end(), a.buffers.begin(), a.buffers.end());
  all.insert(all.end(), a.quantized.begin(), a.quantized.end());
  if (a.layers.is_null() || a.isQuantized()) return all;
  // A float model whose layers carry names (torchvision's architectures) is written under those names, so
  // torchvision.models.resnet18(num_classes=...).load_state_dict(load_file(f)) takes the file as it is. An
  // int8 model's tensors have no torchvision counterpart and keep ours.
  std::vector<std::string> keys;
  for (const auto& [name, tensor] : all) keys.push_back(name);
  const std::map<std::string, std::string> outside = outsideNames(artifactLayers(a), keys);
  for (auto& [name, tensor] : all) {
    if (const auto it = outside.find(name); it != outside.end()) name = it->second;
  }
  return all;
}

namespace {

std::string jsonString(const std::string& s) {
  return json(s).dump();
}

std::string pythonSnippet(ExportFormat format, const std::string& file, const std::string& engine) {
  const std::string f = jsonString(file);
  switch (format) {
    case ExportFormat::TorchScript:
      return std::string("import json, torch\n") +
             (engine.empty() ? ""
                             : "torch.backends.quantized.engine = \"" + engine +
                                   "\"  # int8: set before loading, the packed weights are made for it\n") +
             "extra = {\"metadata.json\": \"\"}\n"
             "model = torch.jit.load(" +
             f +
             ", _extra_files=extra).eval()\n"
             "meta = json.loads(extra[\"metadata.json\"])  # input_shape, normalization, class_names, "
             "history\n"
             "with torch.no_grad():\n"
             "    logits = model(x)  # x: float32 [batch, *meta input_shape], normalized as meta says\n";
    case ExportFormat::Onnx:
      return "import onnxruntime as ort\n"
             "session = ort.InferenceSession(" +
             f +
             ", providers=[\"CPUExecutionProvider\"])\n"
             "meta = session.get_modelmeta().custom_metadata_map  # input_shape, normalization, class_names\n"
             "logits = session.run([\"logits\"], {\"input\": x})[0]  # x: float32 numpy [batch, "
             "*input_shape]\n";
    case ExportFormat::Safetensors:
      return "from safetensors.torch import load_file, safe_open\n"
             "tensors = load_file(" +
             f +
             ")  # state-dict names: model.load_state_dict(tensors)\n"
             "with safe_open(" +
             f +
             ", framework=\"pt\") as s:\n"
             "    meta = s.metadata()  # input_shape, normalization, class_names, layers, history\n";
  }
  return {};
}

std::string cppSnippet(ExportFormat format, const std::string& file, const std::string& engine) {
  const std::string f = jsonString(file);
  switch (format) {
    case ExportFormat::TorchScript:
      return std::string("#include <torch/script.h>\n") +
             (engine.empty() ? ""
                             : "at::globalContext().setQEngine(at::QEngine::" +
                                   std::string(engine == "onednn"    ? "ONEDNN"
                                               : engine == "qnnpack" ? "QNNPACK"
                                               : engine == "x86"     ? "X86"
                                                                     : "FBGEMM") +
                                   ");  // int8: before loading\n") +
             "torch::jit::ExtraFilesMap extra{{\"metadata.json\", \"\"}};\n"
             "torch::jit::Module model = torch::jit::load(" +
             f +
             ", torch::kCPU, extra);\n"
             "model.eval();\n"
             "torch::NoGradGuard no_grad;\n"
             "at::Tensor logits = model.forward({x}).toTensor();  // x: float [batch, ...input_shape], "
             "normalized\n";
    case ExportFormat::Onnx:
      return "#include <onnxruntime_cxx_api.h>\n"
             "Ort::Env env;\n"
             "Ort::Session session(env, " +
             f +
             ", Ort::SessionOptions{});\n"
             "const char* in[] = {\"input\"};\n"
             "const char* out[] = {\"logits\"};\n"
             "auto logits = session.Run(Ort::RunOptions{}, in, &x, 1, out, 1);  // x: Ort::Value float "
             "[batch, ...]\n";
    case ExportFormat::Safetensors:
      return "// u64 little-endian header size N, N bytes of JSON {name: {dtype, shape, data_offsets}}, then "
             "data\n"
             "std::ifstream in(" +
             f +
             ", std::ios::binary);\n"
             "uint64_t n = 0;\n"
             "in.read(reinterpret_cast<char*>(&n), 8);\n"
             "std::string header(n, ' ');\n"
             "in.read(header.data(), n);\n"
             "auto meta = nlohmann::json::parse(header);  // data of a tensor: 8 + n + data_offsets[0]\n";
  }
  return {};
}

}  // namespace

const char* toString(ExportFormat format) {
  switch (format) {
    case ExportFormat::TorchScript:
      return "torchscript";
    case ExportFormat::Onnx:
      return "onnx";
    case ExportFormat::Safetensors:
      return "safetensors";
  }
  return "?";
}

bool exportFormatFromString(const std::string& name, ExportFormat& format) {
  for (ExportFormat f : {ExportFormat::TorchScript, ExportFormat::Onnx, ExportFormat::Safetensors}) {
    if (name == toString(f)) {
      format = f;
      return true;
    }
  }
  return false;
}

std::string exportUnavailable(ExportFormat format) {
  // A build whose LibTorch brings its own protobuf writes ONNX through workbench-onnx-writer: without that
  // program (not built: no libonnx-dev; or not installed beside this one) it has none.
  if (format == ExportFormat::Onnx && !onnxWriterInProcess() && onnxWriterExecutable().empty()) {
    return "this build has no ONNX export: it was built without ONNX's C++ library (Debian: libonnx-dev), or "
           "its ONNX writer (workbench-onnx-writer) is neither beside this program nor in its build tree "
           "(TORCH_WORKBENCH_ONNX_WRITER may name it)";
  }
  return {};
}

namespace {

// A format this build can write, and a file (not a folder) to write it to.
void checkExportTarget(const ExportRequest& request) {
  const std::string unavailable = exportUnavailable(request.format);
  if (!unavailable.empty()) {
    throw UserError(unavailable, "Export as torchscript or safetensors, or build with ONNX.");
  }
  if (request.out.empty())
    throw UserError("export needs a file to write", "Give the output file, e.g. model.pt.");
  std::error_code ec;
  if (fs::is_directory(request.out, ec)) {
    throw UserError("export: " + request.out + " is a folder",
                    "Give a file name inside it, e.g. " + (fs::path(request.out) / "model.pt").string());
  }
}

// What the exported file says about its model: the input it takes and how to prepare it, its classes and
// where it came from.
ExportMetadata exportMetadata(const ExportRequest& request, const Experiment& experiment, const Dataset& data,
                              const ModelArtifact& artifact) {
  ExportMetadata metadata;
  metadata.input_shape = artifact.input_shape;
  metadata.mean = data.normalization.mean;
  metadata.std = data.normalization.std;
  metadata.pixels_in_0_255 = uint8Images(experiment.data.dataset);
  metadata.class_names = data.class_names;
  metadata.preprocessing = imagePreprocessing(experiment.data);
  metadata.experiment_name = experiment.name;
  metadata.artifact = request.artifact.empty() ? "model" : request.artifact;
  metadata.history = artifact.history;
  return metadata;
}

// The file written whole or not at all: by `write` (to a temporary file) when given, else `bytes`.
void writeExport(const std::string& out, const std::function<void(const std::string&)>& write,
                 const std::string& bytes) {
  std::error_code ec;
  const fs::path parent = fs::path(out).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (write) {
    try {
      writeFileAtomically(out, write);
    } catch (const c10::Error& e) {
      throw UserError("Could not write " + out + ": " + e.what_without_backtrace(),
                      "Check that the folder is writable and the disk is not full.");
    }
  } else {
    writeFileAtomically(out, bytes);
  }
}

}  // namespace

ExportResult exportModel(const ExportRequest& request, const std::function<void(double)>& progress) {
  const auto started = std::chrono::steady_clock::now();
  auto report = [&](double fraction) {
    if (progress) progress(fraction);
  };
  report(0.0);
  checkExportTarget(request);
  // The run's own model: a trained one, or a part-trained one on purpose. (An artifact comes from a finished
  // run.)
  const std::string note = request.artifact.empty()
                               ? checkRunModel(request.run_dir, "export", request.allow_unfinished)
                               : (checkRunModel(request.run_dir, "export", true), std::string());
  const ParseResult parsed = loadExperimentFile(request.run_dir + "/experiment.json");
  if (!parsed.ok()) {
    throw UserError(request.run_dir + " is not a usable run folder: " + formatIssues(parsed.issues),
                    "Give the folder of a finished run (`workbench-cli runs` lists them).");
  }
  configureThreads(parsed.experiment.train.threads);
  const Dataset data = loadDataset(parsed.experiment.data, parsed.experiment.seed);
  report(0.2);
  const ModelArtifact artifact = loadRequestedArtifact(request.run_dir, request.artifact, data);
  report(0.4);

  const ExportMetadata metadata = exportMetadata(request, parsed.experiment, data, artifact);
  const std::map<std::string, std::string> strings = fileMetadata(metadata, artifact, request.format);

  // Everything is built before the file is touched: a format that cannot express a layer refuses here.
  std::function<void(const std::string&)> write;
  std::string bytes;
  torch::jit::Module module;
  switch (request.format) {
    case ExportFormat::TorchScript: {
      module = torchScriptModule(artifact);
      json meta = json::object();
      for (const auto& [k, v] : strings) meta[k] = v;
      std::map<std::string, std::string> extra = {{"metadata.json", meta.dump(2)}};
      write = [&module, extra](const std::string& tmp) { saveTorchScript(module, tmp, extra); };
      break;
    }
    case ExportFormat::Onnx: {
      // The plan is whole here (a layer ONNX cannot express has been refused); ONNX's library writes the
      // temporary file, in this process or in workbench-onnx-writer's.
      auto plan = std::make_shared<onnx_export::OnnxModelPlan>(onnxModelPlan(artifact, metadata));
      write = [plan](const std::string& tmp) { writeOnnxModel(std::move(*plan), tmp); };
      break;
    }
    case ExportFormat::Safetensors: {
      std::map<std::string, std::string> meta = strings;
      meta["format"] = "pt";  // what safetensors' own loaders expect of PyTorch tensors
      bytes = safetensorsBytes(exportedTensors(artifact), meta);
      break;
    }
  }
  report(0.8);
  writeExport(request.out, write, bytes);
  report(1.0);

  ExportResult result;
  result.note = note;
  result.file = request.out;
  result.bytes = static_cast<int64_t>(fs::file_size(request.out));
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string engine =
      artifact.isQuantized() ? artifact.quantization.value("engine", std::string()) : "";
  result.python_snippet = pythonSnippet(request.format, request.out, engine);
  result.cpp_snippet = cppSnippet(request.format, request.out, engine);
  return result;
}

}  // namespace wb
