// evaluateRunDir (declared in workbench/training_run.h): a finished run's model on its test split.
#include <filesystem>

#include "data/dataset.h"
#include "distributed/device_selection.h"
#include "evaluation/evaluation.h"
#include "model/model.h"
#include "task/make_task.h"
#include "util/default_cpu_generator.h"
#include "workbench/errors.h"
#include "workbench/system_info.h"
#include "workbench/training_run.h"

namespace wb {

EvalResult evaluateRunDir(const std::string& run_dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(run_dir)) {
    throw UserError("Run folder not found: " + run_dir,
                    "Pass a folder made by `workbench-cli train` (under runs/).");
  }
  const std::string experiment_file = run_dir + "/experiment.json";
  const std::string model_file = run_dir + "/model.pt";
  ParseResult parsed = loadExperimentFile(experiment_file);
  if (!parsed.ok()) {
    throw UserError(run_dir + " is not a usable run folder: " + formatIssues(parsed.issues),
                    "The run folder's experiment.json is missing or damaged.");
  }
  if (!fs::exists(model_file)) {
    throw UserError("The run in " + run_dir + " has no model.pt (it did not finish, or failed).",
                    "Evaluate a run whose summary.json says completed, stopped or early_stopped.");
  }
  const Experiment& e = parsed.experiment;
  configureThreads(e.train.threads);
  torch::Device device = torch::kCPU;
  if (!e.train.devices.empty() && checkDevice(e.train.devices[0]).empty())
    device = resolveDevice(e.train.devices[0]);
  const Dataset data = loadDataset(e.data, e.seed);
  std::unique_ptr<Model> model;
  {
    BorrowedDefaultCpuGenerator generator(
        e.seed);  // initialized, then overwritten: leaves a run's draws alone
    model = buildModel(e.model, data.sample_shape, data.num_classes);
  }
  model->load(model_file);
  model->to(device);
  return evaluateModel(*model, data.test, std::max<int64_t>(256, e.train.batch_size * 2), device,
                       *makeTask(e));
}

}  // namespace wb
