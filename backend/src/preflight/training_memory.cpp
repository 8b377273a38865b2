// estimateTrainingMemory and its table (workbench/training_memory.h). ZeRO's arithmetic (Rajbhandari et al.,
// 2020, section 5): with Ψ parameters, N ranks and K bytes of optimizer state per parameter, data parallel
// keeps 4Ψ + 4Ψ + KΨ per rank; stage 1 divides the KΨ by N, stage 2 also the gradients, stage 3 also the
// parameters. Activations are the same on every rank (each trains its own batch) and are not sharded.
#include "preflight/training_memory.h"

#include <algorithm>
#include <map>

#include "model/layer_list.h"
#include "model/model.h"
#include "parallel/shard_checks.h"
#include "pipeline/pipeline_cut.h"
#include "pipeline/pipeline_stages.h"
#include "workbench/errors.h"
#include "workbench/finders.h"
#include "workbench/system_info.h"
#include "workbench/training_memory.h"

namespace wb {
namespace training_memory_detail {

constexpr int64_t kFloatBytes = 4;

int64_t elementsOf(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t size : shape) count *= size;
  return count;
}

// A top-level layer with everything nested in it (a residual's branches): what a pipeline stage holds whole.
struct LayerGroup {
  std::string name;
  int64_t parameters = 0, trainable = 0, flops = -1, activation_elements = 0;
};

std::vector<LayerGroup> topLevelGroups(const ModelSummary& summary) {
  std::vector<LayerGroup> groups;
  for (const ModelSummaryRow& row : summary.rows) {
    if (row.depth == 0) {
      groups.push_back({row.name, row.parameters, row.parameters - row.frozen, row.flops, 0});
    }
    if (!groups.empty()) groups.back().activation_elements += elementsOf(row.shape);
  }
  return groups;
}

std::string optimizerLine(const OptimizerConfig& o, int64_t bytes) {
  std::string what;
  switch (o.name) {
    case OptimizerName::Sgd:
      what = o.momentum > 0 ? "SGD with momentum: momentum buffer" : "SGD without momentum: no state";
      break;
    case OptimizerName::Adam:
    case OptimizerName::AdamW:
      what = std::string(o.name == OptimizerName::Adam ? "Adam" : "AdamW") + ": 2 moments";
      break;
    case OptimizerName::RmsProp:
      what = o.momentum > 0 ? "RMSprop: square average and momentum buffer" : "RMSprop: square average";
      break;
    case OptimizerName::Adagrad:
      what = "Adagrad: sum of squares";
      break;
  }
  return what + " (" + std::to_string(bytes) + " B per trainable parameter)";
}

DeviceMemoryEstimate deviceEstimate(const std::string& device, int64_t capacity) {
  DeviceMemoryEstimate estimate;
  estimate.device = device;
  estimate.capacity = capacity;
  return estimate;
}

MemoryChoice dataParallelChoice(const TrainingMemory& m, ShardLevel level, int64_t input_elements,
                                const std::vector<int64_t>& capacities) {
  MemoryChoice choice;
  choice.shard = level;
  choice.name = "shard " + std::string(wordOf(level));
  const int64_t ranks = static_cast<int64_t>(m.devices.size());
  // Stage 3 holds its shard of the trainable parameters plus the layer it has gathered (and that layer's
  // gradients until they are reduced to their owners); frozen parameters stay whole.
  const int64_t gathered =
      std::min(m.trainable_parameters,
               shardShare(m.trainable_parameters, ranks) + std::max<int64_t>(m.largest_layer_trainable, 0));
  const int64_t frozen = m.parameters - m.trainable_parameters;
  const int64_t parameters = level == ShardLevel::Parameters ? frozen + gathered : m.parameters;
  const int64_t gradients = level == ShardLevel::Parameters  ? gathered
                            : level == ShardLevel::Gradients ? shardShare(m.trainable_parameters, ranks)
                                                             : m.trainable_parameters;
  const int64_t state =
      level == ShardLevel::None ? m.trainable_parameters : shardShare(m.trainable_parameters, ranks);
  for (size_t d = 0; d < m.devices.size(); ++d) {
    DeviceMemoryEstimate estimate = deviceEstimate(m.devices[d], capacities[d]);
    estimate.parameters = parameters * kFloatBytes;
    estimate.gradients = gradients * kFloatBytes;
    estimate.optimizer_state = state * m.optimizer_bytes_per_parameter;
    estimate.activations =
        m.batch * (m.activation_elements_per_sample * m.activation_bytes + input_elements * kFloatBytes);
    choice.devices.push_back(estimate);
  }
  // Listed with its figures (what it would save) but never proposed or picked: the trainer refuses it.
  if (!shardLevelTrains(level)) {
    choice.problem = "not available in this version yet (it would hold " +
                     formatBytes(choice.largestDevice()) + " on the fullest device)";
  } else if (level == ShardLevel::Parameters && m.largest_layer_trainable < 0) {
    choice.problem = "a TorchScript model has no layer list to gather layer by layer (it would hold " +
                     formatBytes(choice.largestDevice()) + " on the fullest device)";
  }
  return choice;
}

// Samples whose activations stage `stage` of `stages` keeps at once: GPipe runs every micro-batch forward
// before any backward; 1F1B at most (stages - stage) micro-batches in flight.
int64_t samplesInFlight(const PipelineConfig& p, int64_t batch, size_t stage, size_t stages) {
  if (p.schedule == PipelineSchedule::GPipe) return batch;
  const int64_t micro_batches = std::max<int64_t>(p.micro_batches, 1);
  const int64_t micro = (batch + micro_batches - 1) / micro_batches;
  const int64_t in_flight = std::min<int64_t>(micro_batches, static_cast<int64_t>(stages - stage));
  return std::min(batch, in_flight * micro);
}

std::string stagesJson(const std::vector<std::string>& devices, const PipelineCut& cut) {
  std::string text = "[";
  for (size_t s = 0; s < cut.stages.size(); ++s) {
    const PipelineStage& stage = cut.stages[s];
    const std::string range =
        stage.first == stage.last ? stage.first_name : stage.first_name + ".." + stage.last_name;
    text += std::string(s ? ", " : "") + "[\"" + devices[s] + "\", \"" + range + "\"]";
  }
  return text + "]";
}

// Each stage's figures for `cut`: its own layers' state, and the activations of the samples it keeps.
MemoryChoice pipelineFigures(MemoryChoice choice, const TrainingMemory& m, const PipelineConfig& p,
                             const std::vector<LayerGroup>& groups, const PipelineCut& cut,
                             int64_t input_elements, const std::vector<int64_t>& capacities) {
  for (size_t s = 0; s < cut.stages.size(); ++s) {
    const PipelineStage& stage = cut.stages[s];
    DeviceMemoryEstimate estimate = deviceEstimate(m.devices[s], capacities[s]);
    int64_t trainable = 0, activation_elements = 0;
    for (size_t i = stage.first; i <= stage.last; ++i) {
      trainable += groups[i].trainable;
      activation_elements += groups[i].activation_elements;
    }
    const int64_t samples = samplesInFlight(p, m.batch, s, cut.stages.size());
    estimate.parameters = stage.parameters * kFloatBytes;
    estimate.gradients = trainable * kFloatBytes;
    estimate.optimizer_state = trainable * m.optimizer_bytes_per_parameter;
    estimate.activations = samples * activation_elements * m.activation_bytes;
    if (s == 0) estimate.activations += samples * input_elements * kFloatBytes;
    estimate.stage = stage.first == stage.last ? stage.first_name : stage.first_name + ".." + stage.last_name;
    choice.devices.push_back(estimate);
  }
  choice.pipeline_stages_json = stagesJson(m.devices, cut);
  return choice;
}

// train.pipeline.stages resolved as the run resolves them (resolvePipelineStages on the model's own layer
// list: names, dotted prefixes, the unnamed layers after a range), as the cut the figures are for. A cut the
// run would refuse comes back with its problem.
PipelineCut userCut(const Experiment& e, const ModelSummary& summary, const std::vector<LayerGroup>& groups) {
  PipelineCut cut;
  try {
    const nlohmann::json list = layerListOf(e.model, summary.input_shape, summary.num_classes);
    std::vector<ValidationIssue> issues;
    const std::vector<LayerPtr> layers = parseLayerList(list, "model.layers", issues);
    if (!issues.empty() || layers.size() != groups.size()) {
      cut.problem = "the model's layer list could not be read to cut it";
      return cut;
    }
    for (const StageRange& range : resolvePipelineStages(e.train.pipeline, layers, summary.input_shape)) {
      PipelineStage stage;
      stage.first = range.begin;
      stage.last = range.end - 1;
      stage.first_name = groups[stage.first].name;
      stage.last_name = groups[stage.last].name;
      for (size_t i = stage.first; i <= stage.last; ++i) stage.parameters += groups[i].parameters;
      cut.stages.push_back(stage);
    }
  } catch (const std::exception& error) {
    cut.problem = error.what();
  }
  return cut;
}

// The figures of the experiment's own stages, each labelled with its layers as the file writes them.
MemoryChoice userCutFigures(MemoryChoice choice, const TrainingMemory& m, const Experiment& e,
                            const std::vector<LayerGroup>& groups, const ModelSummary& summary,
                            int64_t input_elements, const std::vector<int64_t>& capacities) {
  const PipelineCut cut = userCut(e, summary, groups);
  if (!cut.ok()) {
    choice.problem = cut.problem;
    return choice;
  }
  choice = pipelineFigures(choice, m, e.train.pipeline, groups, cut, input_elements, capacities);
  const std::vector<PipelineStageConfig>& stages = e.train.pipeline.stages;
  choice.pipeline_stages_json = "[";
  for (size_t s = 0; s < choice.devices.size(); ++s) {
    choice.devices[s].stage = stages[s].layers;
    choice.pipeline_stages_json += std::string(s ? ", " : "") + "[" +
                                   nlohmann::json(stages[s].device).dump() + ", " +
                                   nlohmann::json(stages[s].layers).dump() + "]";
  }
  choice.pipeline_stages_json += "]";
  return choice;
}

MemoryChoice pipelineChoice(const TrainingMemory& m, const Experiment& e, const ModelSummary& summary,
                            int64_t input_elements, const std::vector<int64_t>& capacities) {
  MemoryChoice choice;
  choice.pipeline = true;
  choice.name = "pipeline";
  const std::vector<LayerGroup> groups = topLevelGroups(summary);
  if (summary.torchscript) {
    choice.problem = "a TorchScript model has no layer list to cut";
    return choice;
  }
  if (e.train.pipeline.enabled && !e.train.pipeline.balanced)
    return userCutFigures(choice, m, e, groups, summary, input_elements, capacities);
  PipelineCutRequest request;
  request.devices = static_cast<int>(m.devices.size());
  for (const LayerGroup& group : groups)
    request.layers.push_back({group.name, group.parameters, group.flops, group.activation_elements});
  request.device_memory = capacities;
  request.bytes_per_parameter = 2 * kFloatBytes + m.optimizer_bytes_per_parameter;
  request.bytes_per_activation = m.activation_bytes;
  request.batch = m.batch;
  for (size_t s = 0; s < m.devices.size(); ++s)
    request.stage_samples.push_back(samplesInFlight(e.train.pipeline, m.batch, s, m.devices.size()));
  const PipelineCut cut = proposePipelineCut(request);
  if (!cut.ok()) {
    // No cut fits the memory: still show the cut that balances time alone, which the table marks too large.
    request.device_memory.clear();
    const PipelineCut unlimited = proposePipelineCut(request);
    if (!unlimited.ok()) {
      choice.problem = unlimited.problem;
      return choice;
    }
    return pipelineFigures(choice, m, e.train.pipeline, groups, unlimited, input_elements, capacities);
  }
  return pipelineFigures(choice, m, e.train.pipeline, groups, cut, input_elements, capacities);
}

}  // namespace training_memory_detail

int64_t optimizerStateBytesPerParameter(const OptimizerConfig& optimizer) {
  switch (optimizer.name) {
    case OptimizerName::Sgd:
      return optimizer.momentum > 0 ? 4 : 0;
    case OptimizerName::Adam:
    case OptimizerName::AdamW:
      return 8;
    case OptimizerName::RmsProp:
      return optimizer.momentum > 0 ? 8 : 4;
    case OptimizerName::Adagrad:
      return 4;
  }
  return 0;
}

int64_t shardShare(int64_t total, int64_t ranks) {
  if (ranks <= 1) return total;
  return (total + ranks - 1) / ranks;
}

bool MemoryChoice::fits() const {
  if (!possible()) return false;
  return std::all_of(devices.begin(), devices.end(), [](const DeviceMemoryEstimate& d) { return d.fits(); });
}

int64_t MemoryChoice::largestDevice() const {
  int64_t largest = 0;
  for (const DeviceMemoryEstimate& d : devices) largest = std::max(largest, d.total());
  return largest;
}

const MemoryChoice* TrainingMemory::chosen() const {
  for (const MemoryChoice& choice : choices) {
    if (choice.chosen) return &choice;
  }
  return nullptr;
}

const MemoryChoice* TrainingMemory::firstFitting() const {
  for (const MemoryChoice& choice : choices) {
    if (choice.fits()) return &choice;
  }
  return nullptr;
}

std::vector<std::string> trainingDevices(const Experiment& experiment) {
  const PipelineConfig& pipeline = experiment.train.pipeline;
  if (!pipeline.enabled) return experiment.train.devices;
  if (pipeline.balanced) return pipeline.devices;
  std::vector<std::string> devices;
  for (const PipelineStageConfig& stage : pipeline.stages) devices.push_back(stage.device);
  return devices;
}

std::vector<int64_t> deviceCapacities(const std::vector<std::string>& devices) {
  return deviceCapacities(devices, querySystemInfo());
}

std::vector<int64_t> deviceCapacities(const std::vector<std::string>& devices, const SystemInfo& info) {
  std::map<std::string, int64_t> memory;
  for (const DeviceInfo& device : info.devices) memory[device.id] = device.memory_bytes;
  if (memory.count("cuda:0")) memory["cuda"] = memory["cuda:0"];
  // CPU ranks and stages are processes or threads of one machine: they share its RAM.
  const int64_t cpu_entries = std::count_if(devices.begin(), devices.end(),
                                            [](const std::string& d) { return d.rfind("cpu", 0) == 0; });
  std::vector<int64_t> capacities;
  for (const std::string& device : devices) {
    if (device.rfind("cpu", 0) == 0) {
      capacities.push_back(memory["cpu"] / std::max<int64_t>(cpu_entries, 1));
    } else {
      const auto found = memory.find(device);
      capacities.push_back(found == memory.end() ? 0 : found->second);
    }
  }
  return capacities;
}

namespace training_memory_detail {

std::string assumptionsLine(const Experiment& e, const TrainingMemory& m, const ModelSummary& summary) {
  std::string line =
      "fp32 weights and gradients; " + optimizerLine(e.optimizer, m.optimizer_bytes_per_parameter);
  if (summary.torchscript) return line + "; activations unknown for a TorchScript model";
  line += "; activations " + std::string(m.activation_bytes == 2 ? "half (train.amp)" : "fp32") +
          ", every layer's output for " + std::to_string(m.batch) + " samples per device";
  return line;
}

}  // namespace training_memory_detail

TrainingMemory estimateTrainingMemory(const Experiment& experiment, const ModelSummary& summary,
                                      const std::vector<int64_t>& capacities) {
  TrainingMemory m;
  m.devices = trainingDevices(experiment);
  if (!summary.ok()) {
    m.problem = "the model could not be summarized (" + summary.issues.front().path + ": " +
                summary.issues.front().message + ")";
    return m;
  }
  if (m.devices.empty()) m.devices = {"cpu"};
  std::vector<int64_t> device_capacities = capacities;
  device_capacities.resize(m.devices.size(), 0);
  m.parameters = summary.total_parameters;
  m.trainable_parameters = summary.total_parameters - summary.frozen_parameters;
  m.optimizer_bytes_per_parameter = optimizerStateBytesPerParameter(experiment.optimizer);
  m.activation_bytes = experiment.train.amp == Precision::Off ? int64_t{4} : 2;
  if (!summary.torchscript) {
    for (const ModelSummaryRow& row : summary.rows)
      m.activation_elements_per_sample += training_memory_detail::elementsOf(row.shape);
  }
  m.batch = experiment.train.batch_size;
  m.largest_layer_trainable = summary.torchscript ? -1 : 0;
  if (!summary.torchscript) {
    for (const auto& group : training_memory_detail::topLevelGroups(summary))
      m.largest_layer_trainable = std::max(m.largest_layer_trainable, group.trainable);
  }
  m.assumptions = training_memory_detail::assumptionsLine(experiment, m, summary);
  const int64_t input_elements =
      summary.torchscript ? 0 : training_memory_detail::elementsOf(summary.input_shape);
  const bool several = m.devices.size() > 1;
  for (const auto& [level, word] : Words<ShardLevel>::table) {
    if (level != ShardLevel::None && !several) continue;
    MemoryChoice choice =
        training_memory_detail::dataParallelChoice(m, level, input_elements, device_capacities);
    choice.chosen = !experiment.train.pipeline.enabled && (level == experiment.train.shard || !several);
    m.choices.push_back(std::move(choice));
  }
  if (several || experiment.train.pipeline.enabled) {
    MemoryChoice choice =
        training_memory_detail::pipelineChoice(m, experiment, summary, input_elements, device_capacities);
    choice.chosen = experiment.train.pipeline.enabled;
    m.choices.push_back(std::move(choice));
  }
  return m;
}

namespace training_memory_detail {

std::string tableRow(const std::string& choice, const DeviceMemoryEstimate& d, const char* verdict) {
  char text[256];
  const std::string capacity = d.capacity > 0 ? formatBytes(d.capacity) : "?";
  std::snprintf(text, sizeof text, "%-19s %-7s %11s %11s %11s %11s %11s %9s %s", choice.c_str(),
                d.device.c_str(), formatBytes(d.parameters).c_str(), formatBytes(d.gradients).c_str(),
                formatBytes(d.optimizer_state).c_str(), formatBytes(d.activations).c_str(),
                formatBytes(d.total()).c_str(), capacity.c_str(), verdict);
  return text;
}

}  // namespace training_memory_detail

std::vector<std::string> memoryTableLines(const TrainingMemory& m) {
  if (!m.problem.empty()) return {"memory: " + m.problem};
  std::vector<std::string> lines;
  lines.push_back("memory per device (estimated: " + m.assumptions + "):");
  char header[256];
  std::snprintf(header, sizeof header, "%-19s %-7s %11s %11s %11s %11s %11s %9s", "  choice", "device",
                "parameters", "gradients", "optimizer", "activations", "total", "holds");
  lines.push_back(header);
  for (const MemoryChoice& choice : m.choices) {
    const std::string mark = choice.chosen ? "* " : "  ";
    if (!choice.possible() && choice.devices.empty()) {
      lines.push_back(mark + choice.name + ": " + choice.problem);
      continue;
    }
    for (size_t d = 0; d < choice.devices.size(); ++d) {
      const DeviceMemoryEstimate& device = choice.devices[d];
      // A pipeline's rows each name their stage's layers: "* pipeline 0..3", "  pipeline 4..10".
      std::string label = d == 0 ? mark + choice.name : "";
      if (!device.stage.empty())
        label = (d == 0 ? mark : std::string("  ")) + choice.name + " " + device.stage;
      const char* verdict = !choice.possible()
                                ? (shardLevelTrains(choice.shard) ? "not possible" : "not available yet")
                            : device.fits() ? "fits"
                                            : "does not fit";
      lines.push_back(training_memory_detail::tableRow(label, device, verdict));
    }
  }
  lines.push_back("  (* this experiment's choice)");
  return lines;
}

namespace training_memory_detail {

std::string fullestDevice(const MemoryChoice& choice) {
  const DeviceMemoryEstimate* worst = nullptr;
  for (const DeviceMemoryEstimate& d : choice.devices) {
    if (!d.fits() && (!worst || d.total() - d.capacity > worst->total() - worst->capacity)) worst = &d;
  }
  if (!worst) return {};
  return choice.name + " needs " + formatBytes(worst->total()) + " on " + worst->device + ", which holds " +
         formatBytes(worst->capacity) + " (parameters " + formatBytes(worst->parameters) + ", gradients " +
         formatBytes(worst->gradients) + ", optimizer state " + formatBytes(worst->optimizer_state) +
         ", activations " + formatBytes(worst->activations) + ")";
}

std::string proposal(const MemoryChoice& fitting) {
  const std::string most = " (at most " + formatBytes(fitting.largestDevice()) + " on a device)";
  if (fitting.pipeline)
    return "A pipeline would fit" + most +
           ": \"train\": {\"pipeline\": {\"stages\": " + fitting.pipeline_stages_json + "}}";
  return "train.shard \"" + std::string(wordOf(fitting.shard)) + "\" would fit" + most +
         ": \"train\": {\"shard\": \"" + std::string(wordOf(fitting.shard)) + "\"}";
}

}  // namespace training_memory_detail

std::string memoryRefusal(const TrainingMemory& m) {
  const MemoryChoice* chosen = m.chosen();
  if (!m.problem.empty() || !chosen || chosen->fits() || !chosen->possible()) return {};
  std::string message =
      "the training state does not fit: " + training_memory_detail::fullestDevice(*chosen) + ". ";
  if (const MemoryChoice* fitting = m.firstFitting())
    return message + training_memory_detail::proposal(*fitting);
  if (m.devices.size() == 1)
    return message +
           "One device cannot shard its state: train on several devices (train.devices) with "
           "train.shard or train.pipeline, or lower train.batch_size (activations " +
           formatBytes(chosen->devices.front().activations) + ")";
  return message + "No shard level or pipeline cut fits these " + std::to_string(m.devices.size()) +
         " devices: use more devices, or lower train.batch_size (activations " +
         formatBytes(chosen->devices.front().activations) + " per device)";
}

}  // namespace wb
