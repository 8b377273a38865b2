// evaluateRunDetailed (workbench/evaluation_report.h) and evaluateArtifact (workbench/compression.h): a run's
// model, or one of its compressed artifacts, on the run's test split. Here rather than in train/ because an
// artifact (int8 included) needs the compression module's inference models.
#include <filesystem>

#include "compress/model_artifact.h"
#include "data/dataset.h"
#include "data/dataset_catalog.h"
#include "distributed/device_selection.h"
#include "evaluation/split_reporter.h"
#include "model/model.h"
#include "util/default_cpu_generator.h"
#include "workbench/compression.h"
#include "workbench/errors.h"
#include "workbench/evaluation_report.h"
#include "workbench/run_state.h"
#include "workbench/system_info.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

const char* const kArtifactsFolder = "compressed";
constexpr int64_t kArtifactBatch = 500;  // int8 kernels run on the CPU; batches of this size keep them busy

Experiment runExperiment(const std::string& run_dir) {
  if (!fs::is_directory(run_dir)) {
    throw UserError("Run folder not found: " + run_dir,
                    "Pass a folder made by `workbench-cli train` (under runs/).");
  }
  const ParseResult parsed = loadExperimentFile(run_dir + "/experiment.json");
  if (!parsed.ok()) {
    throw UserError(run_dir + " is not a usable run folder: " + formatIssues(parsed.issues),
                    "The run folder's experiment.json is missing or damaged.");
  }
  return parsed.experiment;
}

std::string artifactFolder(const std::string& run_dir, const std::string& artifact) {
  const std::string folder = fs::path(artifact).is_absolute() ? artifact : run_dir + "/" + artifact;
  if (isCompleteArtifact(folder)) return folder;
  std::string names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(run_dir + "/" + kArtifactsFolder, ec)) {
    if (isCompleteArtifact(entry.path().string())) {
      names +=
          std::string(names.empty() ? "" : ", ") + kArtifactsFolder + "/" + entry.path().filename().string();
    }
  }
  throw UserError("No model artifact " + folder + (fs::exists(folder) ? " (its pass did not finish)" : ""),
                  names.empty() ? "Run `workbench-cli compress " + run_dir + "` first."
                                : "The run's artifacts: " + names);
}

EvaluationReport reportOnRunModel(const std::string& run_dir, const Experiment& e, const Dataset& data,
                                  const SplitReporter& reporter, const EvaluationOptions& options) {
  torch::Device device = torch::kCPU;
  if (!e.train.devices.empty() && checkDevice(e.train.devices[0]).empty())
    device = resolveDevice(e.train.devices[0]);
  std::unique_ptr<Model> model;
  {
    BorrowedDefaultCpuGenerator generator(
        e.seed);  // initialized, then overwritten: leaves a run's draws alone
    model = buildModel(e.model, data.sample_shape, data.num_classes);
  }
  model->load(run_dir + "/model.pt");
  model->to(device);
  model->train(false);
  // The batch evaluateRunDir uses, so both read the same sums.
  return reporter.report([&model](const torch::Tensor& x) { return model->forward(x); }, data,
                         std::max<int64_t>(256, e.train.batch_size * 2), device, options);
}

EvaluationReport reportOnArtifact(const std::string& folder, const Dataset& data,
                                  const SplitReporter& reporter, const EvaluationOptions& options) {
  const ModelArtifact a = loadArtifact(folder);
  if (a.input_shape != data.sample_shape || a.num_classes != data.num_classes) {
    throw UserError("artifact " + folder + " takes samples " + shapeToString(a.input_shape) + " with " +
                        std::to_string(a.num_classes) + " classes, but the run's data has " +
                        shapeToString(data.sample_shape) + " with " + std::to_string(data.num_classes),
                    "The artifact belongs to another run.");
  }
  auto model = makeInferenceModel(a);
  return reporter.report([&model](const torch::Tensor& x) { return model->forward(x); }, data, kArtifactBatch,
                         torch::kCPU, options);
}

}  // namespace

EvaluationReport evaluateRunDetailed(const std::string& run_dir, const EvaluationOptions& options) {
  // Checked before the data load (seconds): a missing, failed or unfinished run, or a missing artifact, is
  // answered at once.
  const std::string note =
      checkRunModel(run_dir, "evaluate", !options.model.empty() || options.allow_unfinished);
  const Experiment e = runExperiment(run_dir);
  const std::string folder = options.model.empty() ? std::string() : artifactFolder(run_dir, options.model);
  if (options.model.empty() && !fs::exists(run_dir + "/model.pt")) {
    throw UserError(
        "The run in " + run_dir + " has no model.pt yet (" + readRunState(run_dir).describe() + ").",
        "Wait for its first checkpoint, or resume it if it was stopped.");
  }
  configureThreads(e.train.threads);
  const Dataset data = loadDataset(e.data, e.seed);
  const std::unique_ptr<SplitReporter> reporter = makeSplitReporter(e.task);
  EvaluationReport report = options.model.empty() ? reportOnRunModel(run_dir, e, data, *reporter, options)
                                                  : reportOnArtifact(folder, data, *reporter, options);
  report.run_dir = run_dir;
  report.model = options.model;
  report.note = options.model.empty() ? note : std::string();
  report.dataset = datasetInfo(e.data.dataset).display_name;
  return report;
}

EvalResult evaluateArtifact(const std::string& run_dir, const std::string& artifact) {
  EvaluationOptions options;
  options.model = artifact;
  options.max_misclassified = 0;
  const EvaluationReport report = evaluateRunDetailed(run_dir, options);
  EvalResult r;
  r.loss = report.loss;
  r.figures = report.task_figures;
  r.accuracy = figureNamed(r.figures, "accuracy", 0.0);
  r.samples = report.samples;
  return r;
}

}  // namespace wb
