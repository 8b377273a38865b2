// workbench-cli check: every check a run makes before it trains (the file's keys and values, then the data
// files, the model's shapes and the devices), without training.
#include <iostream>

#include "cli_commands.h"
#include "experiment_args.h"
#include "workbench/data_preview.h"
#include "workbench/model_summary.h"
#include "workbench/system_info.h"
#include "workbench/training_memory.h"
#include "workbench/weights_load_report.h"

namespace wb::cli {
namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text;
  for (const int64_t size : shape) text += (text.empty() ? "" : "x") + std::to_string(size);
  return text;
}

void printDataSummary(const DataPreview& p) {
  std::cout << "data: " << wordOf(p.dataset) << (p.source.empty() ? "" : " from " + p.source) << ", "
            << p.train_samples
            << " training samples (before data.limit and the validation share), model input "
            << shapeText(p.sample_shape) << ", " << p.class_names.size() << " classes\n";
  if (!p.class_counts.empty()) {
    std::cout << "  classes:";
    for (size_t c = 0; c < p.class_names.size(); ++c) {
      std::cout << (c ? ", " : " ") << p.class_names[c] << " " << p.class_counts[c];
    }
    std::cout << "\n";
  }
  if (!p.preprocessing.empty()) std::cout << "  preprocessing: " << p.preprocessing << "\n";
  std::cout << "  loader: " << p.loader << "\n";
}

// The training state per device under each way of spreading it (workbench/training_memory.h); false, with
// the refusal printed, when the experiment's own choice cannot fit its devices.
bool printMemory(const Experiment& experiment) {
  const TrainingMemory memory = estimateTrainingMemory(experiment, summarizeModel(experiment),
                                                       deviceCapacities(trainingDevices(experiment)));
  for (const std::string& line : memoryTableLines(memory)) std::cout << line << "\n";
  const std::string refusal = memoryRefusal(memory);
  if (refusal.empty()) return true;
  std::cerr << "error: " << refusal << "\n";
  return false;
}

struct CheckOptions {
  ExperimentArgs experiment;
};

int check(const CheckOptions& o) {
  const std::optional<Experiment> experiment = resolveExperiment(o.experiment);
  if (!experiment) return kExitBadInput;
  const ExperimentArgs& a = o.experiment;
  const std::string source = !a.example.empty() ? "example " + a.example
                             : a.file.empty()   ? std::string("the default experiment")
                                                : a.file;
  std::cout << source << ": valid\n";
  printDataSummary(previewData(*experiment, 0));  // a UserError (no data there) is the edge's, exit 2
  // What model.weights would load, by name, before anything trains (the checks above refused what misfits).
  if (!experiment->model.weights.empty()) {
    for (const std::string& line : weightsLoadLines(previewWeightsLoad(*experiment)))
      std::cout << line << "\n";
  }
  if (!printMemory(*experiment)) return kExitBadInput;
  // Valid is not the same as fast: bf16 on a CPU without AVX-512 trains many times slower than fp32.
  bool on_cpu = false;
  for (const auto& d : experiment->train.devices) on_cpu = on_cpu || d.rfind("cpu", 0) == 0;
  if (experiment->train.amp == Precision::Bf16 && on_cpu) {
    const CpuBf16Cost cost = cpuBf16Cost(queryCpuFeatures());
    std::cout << (cost.slower_than_fp32 ? "warning: " : "note: ") << "train.amp: " << cost.summary << "\n";
  }
  return kExitOk;
}

}  // namespace

void addCheckCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "check",
      "check an experiment without training it\n"
      "Checks an experiment as `train` does before it starts, and trains nothing: unknown keys, types, "
      "ranges "
      "and combinations (each problem with its JSON path and a \"did you mean\"), then that the data files "
      "are "
      "there, that the model fits the data's shape and that the devices exist. Prints every problem at once. "
      "A "
      "valid experiment's data are summarized: the classes and their counts (an image folder's files per "
      "class), the model's input, the preprocessing and the loader's workers; with model.weights, the load "
      "report "
      "(tensors loaded, missing, unexpected, of another shape, a new head). Then the training state's memory "
      "per device (parameters, gradients, optimizer state, estimated activations) under each train.shard "
      "level and a proposed train.pipeline cut; an experiment whose own choice cannot fit its devices (a "
      "CUDA "
      "device's memory; the machine's RAM, shared by CPU devices) is refused with the choice that would fit.",
      "Examples:\n"
      "  workbench-cli check my-experiment.json\n"
      "  workbench-cli check --example vit --set train.devices=cuda:0\n"
      "\n"
      "Exit status: 0 valid, 2 not valid.\n");
  auto o = std::make_shared<CheckOptions>();
  addExperimentArgs(command, o->experiment);
  setAction(command, [o] { return check(*o); });
}

}  // namespace wb::cli
