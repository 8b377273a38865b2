// ONNX export: pins the opset and IR version, declares the input and output with a dynamic batch dimension,
// lets one emitter per layer type (onnx_emitters.cpp) build the plan, and hands the plan to ONNX's own C++
// library (Debian's libonnx-dev), which returns bytes only after onnx::checker and strict shape inference
// accepted them. Debian's LibTorch links the same libprotobuf as that library, so it runs in this process
// (WB_WITH_ONNX); pip's LibTorch carries a protobuf of its own whose symbols clash with it, so there the plan
// goes to the workbench-onnx-writer program as files (WB_ONNX_WRITER: the build's copy of it). ONNX's
// library stays the one writer and checker in both: no second ONNX serializer of our own to keep in step.

#include "export/onnx_export.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "export/onnx_emitters.h"
#include "export/onnx_plan_files.h"
#include "workbench/errors.h"
#include "workbench/install_paths.h"

#ifdef WB_WITH_ONNX
#include "export/onnx_model_writer.h"
#endif

extern char** environ;

namespace wb {

namespace {

namespace fs = std::filesystem;
using onnx_export::OnnxDataType;
using onnx_export::OnnxDim;
using onnx_export::OnnxEmitContext;
using onnx_export::OnnxEmitterTable;
using onnx_export::OnnxGraph;
using onnx_export::OnnxModelPlan;
using onnx_export::OnnxValuePlan;

// Opset 17: the first with LayerNormalization (the ViT layers), supported by ONNX Runtime since 1.14.
// IR version 8 is what ONNX 1.12 writes for it.
constexpr int64_t kOpset = 17;
constexpr int64_t kIrVersion = 8;
const char* const kWriterName = "workbench-onnx-writer";

const OnnxEmitterTable& emitters() {
  static const OnnxEmitterTable table = [] {
    OnnxEmitterTable t;
    onnx_export::registerOnnxEmitters(t);
    return t;
  }();
  return table;
}

// A float32 tensor [batch, ...sample].
OnnxValuePlan batchedTensor(const std::string& name, const Shape& sample) {
  OnnxValuePlan v;
  v.name = name;
  v.type = OnnxDataType::Float;
  v.dims.push_back(OnnxDim{0, "batch"});
  for (int64_t d : sample) v.dims.push_back(OnnxDim{d, ""});
  return v;
}

std::string readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A folder removed with everything in it when the export is done, whatever happened.
class PlanFolder {
 public:
  explicit PlanFolder(std::string path) : m_path(std::move(path)) {
    std::error_code ec;
    fs::remove_all(m_path, ec);
    if (!fs::create_directories(m_path, ec) || ec) {
      throw UserError("Could not create " + m_path + ": " + ec.message(),
                      "Check that the folder is writable and the disk is not full.");
    }
  }
  ~PlanFolder() {
    std::error_code ignored;
    fs::remove_all(m_path, ignored);
  }
  PlanFolder(const PlanFolder&) = delete;
  PlanFolder& operator=(const PlanFolder&) = delete;
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

// Runs `writer PLAN_FOLDER OUT` with its stderr in a file of the plan folder; its exit status, and its stderr
// text (trimmed) in `error`. -1 when it could not be started or was killed.
int runWriter(const std::string& writer, const std::string& folder, const std::string& out,
              std::string& error) {
  const std::string err_path = folder + "/writer.stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  std::vector<std::string> args = {writer, folder, out};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, writer.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    error = std::string("could not start it: ") + std::strerror(spawned);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      error = std::string("could not wait for it: ") + std::strerror(errno);
      return -1;
    }
  }
  error = readWhole(err_path);
  while (!error.empty() && (error.back() == '\n' || error.back() == ' ')) error.pop_back();
  if (WIFSIGNALED(status)) {
    error =
        "it was killed by signal " + std::to_string(WTERMSIG(status)) + (error.empty() ? "" : ": " + error);
    return -1;
  }
  return WEXITSTATUS(status);
}

}  // namespace

OnnxModelPlan onnxModelPlan(const ModelArtifact& artifact, const ExportMetadata& metadata) {
  if (artifact.layers.is_null() || !artifact.torchscript.empty()) {
    throw UserError("artifact " + artifact.name +
                        " is a TorchScript model: ONNX export writes a model from its "
                        "layer list, and a TorchScript file has none the exporter can read (its layers are "
                        "compiled code)",
                    "Export it as TorchScript or safetensors, which take it.");
  }
  const std::vector<LayerPtr> layers = artifactLayers(artifact);

  OnnxModelPlan plan;
  plan.subject = artifact.name;
  plan.ir_version = kIrVersion;
  plan.opset = kOpset;
  plan.producer_name = "Torch Workbench";
  plan.model_version = 1;
  plan.doc_string =
      "artifact " + artifact.name +
      (artifact.isQuantized() ? " (int8, " + artifact.quantization.value("mode", std::string()) + ")"
                              : std::string(" (float32)"));
  for (const auto& [key, value] : fileMetadata(metadata, artifact, ExportFormat::Onnx))
    plan.metadata_props.emplace_back(key, value);
  plan.graph_name = metadata.experiment_name.empty() ? "workbench" : metadata.experiment_name;
  plan.inputs.push_back(batchedTensor("input", artifact.input_shape));

  OnnxGraph g(plan);
  g.uniqueName("input");  // reserved: no emitter may name a value like the graph's ends
  g.uniqueName("logits");
  OnnxEmitContext ctx(g, artifact, emitters());
  const nlohmann::json quantization =
      artifact.isQuantized() ? artifact.quantization.at("layers") : nlohmann::json();
  const std::string out = ctx.emitList(layers, "layers", artifact.input_shape, "input", quantization);
  g.addTo("Identity", {out}, "logits");
  plan.outputs.push_back(batchedTensor("logits", {artifact.num_classes}));
  return plan;
}

bool onnxWriterInProcess() {
#ifdef WB_WITH_ONNX
  return true;
#else
  return false;
#endif
}

std::string onnxWriterExecutable() {
  if (const char* overridden = std::getenv("TORCH_WORKBENCH_ONNX_WRITER"); overridden && *overridden)
    return overridden;
  std::vector<fs::path> candidates;
  if (const std::string exe_dir = executableDir(); !exe_dir.empty())
    candidates.push_back(fs::path(exe_dir) / kWriterName);
#ifdef WB_ONNX_WRITER
  candidates.emplace_back(WB_ONNX_WRITER);  // the build tree's, for programs run from it
#endif
  for (const fs::path& candidate : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
  }
  return {};
}

void writeOnnxModelThroughWriter(const OnnxModelPlan& plan, const std::string& path,
                                 const std::string& writer) {
  const PlanFolder folder(path + ".onnx-plan");
  onnx_export::writePlanFiles(plan, folder.path());
  std::string error;
  const int status = runWriter(writer, folder.path(), path, error);
  if (status != 0) {
    throw UserError("Could not write " + path + ": " + kWriterName + " (" + writer + ") failed" +
                        (status > 0 ? " with status " + std::to_string(status) : std::string()) + ": " +
                        (error.empty() ? "it said nothing" : error),
                    "Check that the folder is writable and the disk is not full; a message from ONNX's "
                    "checker is a bug of the exporter: report it with the experiment.");
  }
}

void writeOnnxModel(OnnxModelPlan plan, const std::string& path) {
#ifdef WB_WITH_ONNX
  onnx_export::writeOnnxModelFile(std::move(plan), path);
#else
  const std::string writer = onnxWriterExecutable();
  if (writer.empty()) {
    throw UserError(std::string("Could not write ") + path + ": this build writes ONNX through " +
                        kWriterName + ", which is neither beside this program nor in its build tree",
                    "Install it beside workbench-cli (the package does), build its target, or set "
                    "TORCH_WORKBENCH_ONNX_WRITER to its path.");
  }
  writeOnnxModelThroughWriter(plan, path, writer);
#endif
}

std::string onnxModelBytes(const ModelArtifact& artifact, const ExportMetadata& metadata) {
#ifdef WB_WITH_ONNX
  return onnx_export::serializeOnnxModel(onnxModelPlan(artifact, metadata));
#else
  const fs::path file = fs::temp_directory_path() / ("wb-onnx-" + std::to_string(::getpid()) + ".onnx");
  writeOnnxModel(onnxModelPlan(artifact, metadata), file.string());
  std::string bytes = readWhole(file.string());
  std::error_code ignored;
  fs::remove(file, ignored);
  return bytes;
#endif
}

}  // namespace wb
