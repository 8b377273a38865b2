#include "compress/distillation.h"

#include <filesystem>
#include <sstream>

#include "model/torchscript_model.h"
#include "run_folder/checkpoint_file.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string resolve(const std::string& spec, const std::string& run_dir) {
  if (fs::path(spec).is_absolute() || fs::exists(spec)) return spec;
  return (fs::path(run_dir) / spec).string();
}

// A run's checkpoint file: its header holds the experiment, its payload the model's tensors under "model".
std::unique_ptr<Model> modelFromCheckpoint(const std::string& file, const ModelArtifact& original) {
  const CheckpointContents contents = readCheckpointFile(file);
  const ParseResult parsed = parseExperiment(contents.meta.value("experiment", nlohmann::json()));
  if (!parsed.ok()) {
    throw UserError(
        "teacher " + file + ": the checkpoint's experiment cannot be read: " + formatIssues(parsed.issues),
        "Give a checkpoint written by `workbench-cli train`.");
  }
  auto model = buildModel(parsed.experiment.model, original.input_shape, original.num_classes);
  std::istringstream in(contents.payload);
  torch::serialize::InputArchive archive;
  archive.load_from(in, torch::Device(torch::kCPU));
  torch::serialize::InputArchive weights;
  archive.read("model", weights);
  torch::NoGradGuard no_grad;
  auto restore = [&](const NamedTensors& targets, bool buffers) {
    for (const auto& [name, target] : targets) {
      torch::Tensor value;
      if (!weights.try_read(name, value, buffers) || !value.sizes().equals(target.sizes())) {
        throw UserError("teacher " + file + ": tensor " + name + " is missing or has another shape",
                        "The checkpoint does not belong to a model for this data.");
      }
      target.copy_(value);
    }
  };
  restore(model->namedParameters(), false);
  restore(model->namedBuffers(), true);
  return model;
}

}  // namespace

torch::Tensor distillationLoss(const torch::Tensor& student_logits, const torch::Tensor& teacher_logits,
                               const torch::Tensor& labels, double temperature, double alpha) {
  namespace F = torch::nn::functional;
  // In float32 whatever autocast chose for the logits: the softmax of logits / T is sensitive to rounding.
  const torch::Tensor s = student_logits.to(torch::kFloat32);
  const torch::Tensor t = teacher_logits.detach().to(torch::kFloat32);
  const torch::Tensor soft = F::kl_div(F::log_softmax(s / temperature, F::LogSoftmaxFuncOptions(1)),
                                       F::softmax(t / temperature, F::SoftmaxFuncOptions(1)),
                                       F::KLDivFuncOptions().reduction(torch::kBatchMean));
  torch::Tensor loss = soft * (alpha * temperature * temperature);
  if (alpha < 1.0) loss = loss + (1.0 - alpha) * F::cross_entropy(s, labels);
  return loss;
}

Teacher::Teacher(std::unique_ptr<Model> model, std::string description)
    : m_model(std::move(model)), m_description(std::move(description)) {
  m_model->train(false);
}

torch::Tensor Teacher::forward(const torch::Tensor& x) {
  torch::NoGradGuard no_grad;
  return m_model->forward(x);
}

std::string teacherProblem(const std::string& spec, const std::string& run_dir) {
  if (spec == "original") return fs::exists(fs::path(run_dir) / "model.pt") ? "" : "the run has no model.pt";
  const std::string path = resolve(spec, run_dir);
  if (fs::is_directory(path)) {
    if (isCompleteArtifact(path)) return "";
    if (fs::exists(fs::path(path) / "experiment.json") && fs::exists(fs::path(path) / "model.pt")) return "";
    return path +
           " is a folder but neither a finished run (experiment.json and model.pt) nor a model artifact "
           "(artifact.json)";
  }
  if (!fs::is_regular_file(path)) return "no file or folder " + path;
  if (endsWith(path, ".wbckpt") || endsWith(path, ".pt")) return "";
  return path + " is neither a checkpoint (.wbckpt) nor a TorchScript file (.pt)";
}

std::unique_ptr<Teacher> loadTeacher(const std::string& spec, const std::string& run_dir,
                                     const ModelArtifact& original) {
  const std::string problem = teacherProblem(spec, run_dir);
  if (!problem.empty()) {
    throw UserError(
        "teacher \"" + spec + "\": " + problem,
        "Set teacher to \"original\", an artifact such as \"compressed/01-prune\", a run folder, a "
        "checkpoint (.wbckpt) or a TorchScript file (.pt).");
  }
  if (spec == "original")
    return std::make_unique<Teacher>(buildFloatModel(original), "the run's trained model");
  const std::string path = resolve(spec, run_dir);
  std::unique_ptr<Model> model;
  if (fs::is_directory(path) && isCompleteArtifact(path)) {
    const ModelArtifact artifact = loadArtifact(path);
    if (artifact.isQuantized()) {
      throw UserError("teacher " + path + " is an int8 artifact",
                      "Distill from a float model: the original or an "
                      "artifact made before quantization.");
    }
    model = buildFloatModel(artifact);
  } else if (fs::is_directory(path)) {
    model = buildFloatModel(loadRunModel(path, original.input_shape, original.num_classes));
  } else if (endsWith(path, ".wbckpt")) {
    model = modelFromCheckpoint(path, original);
  } else {
    model = std::make_unique<TorchScriptModel>(path, original.input_shape, original.num_classes);
  }
  return std::make_unique<Teacher>(std::move(model), path);
}

}  // namespace wb
