#pragma once
// How much memory training an experiment's model takes on each of its devices, under each way of spreading
// the training state: every rank holding it all (data parallel), ZeRO's three shard levels (train.shard) and
// a pipeline cut (train.pipeline). Arithmetic on the model summary (workbench/model_summary.h), nothing
// allocated: `check` prints it and refuses what cannot fit, the Model tab and the device picker show it.
// Plain C++.

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/experiment.h"
#include "workbench/model_summary.h"
#include "workbench/system_info.h"

namespace wb {

// One device's share of the training state, in bytes.
struct DeviceMemoryEstimate {
  std::string device;      // "cuda:0", "cpu"
  int64_t capacity = 0;    // what the device holds for it; 0 when unknown (nothing is refused then)
  int64_t parameters = 0;  // fp32 weights
  int64_t gradients = 0;   // fp32, of the trainable parameters
  int64_t optimizer_state = 0;
  int64_t activations = 0;  // estimated: every layer's output kept for the backward pass
  std::string stage;        // a pipeline stage's layers, "0..3"; empty otherwise

  int64_t total() const { return parameters + gradients + optimizer_state + activations; }
  bool fits() const { return capacity <= 0 || total() <= capacity; }
};

// One way of placing the training state on the devices.
struct MemoryChoice {
  bool pipeline = false;                // train.pipeline's cut; otherwise data parallel at `shard`
  ShardLevel shard = ShardLevel::None;  // data parallel only
  std::string name;                     // "shard none", "shard gradients", "pipeline"
  std::string problem;                  // why the choice is not possible here (too few layers); figures empty
  std::vector<DeviceMemoryEstimate> devices;
  bool chosen = false;  // the experiment's own setting
  // train.pipeline's stages for this cut, as the file writes them: [["cuda:0", "0..3"], ["cuda:1", "4..9"]]
  std::string pipeline_stages_json;

  bool possible() const { return problem.empty(); }
  bool fits() const;
  int64_t largestDevice() const;  // the most any one device holds under this choice
};

struct TrainingMemory {
  std::string problem;               // the model could not be summarized (its issues say why): no figures
  std::vector<std::string> devices;  // the experiment's devices, one per rank or stage
  int64_t parameters = 0;
  int64_t trainable_parameters = 0;
  int64_t optimizer_bytes_per_parameter = 0;   // per trainable parameter: AdamW 8, SGD with momentum 4, ...
  int64_t activation_bytes = 4;                // per activation element: 4 fp32, 2 under train.amp
  int64_t activation_elements_per_sample = 0;  // every layer's output for one sample
  int64_t batch = 0;                           // samples per device per step (train.batch_size)
  // ZeRO stage 3 gathers one top-level layer's parameters at a time: the largest one's trainable count; -1
  // for a TorchScript model, which has no layer list (stage 3 cannot train it).
  int64_t largest_layer_trainable = 0;
  std::string assumptions;  // one line: what the figures count and how ("AdamW: 2 moments, 8 B/param; ...")
  // none, optimizer, gradients, parameters (several devices only), then the pipeline (several devices).
  std::vector<MemoryChoice> choices;

  const MemoryChoice* chosen() const;
  // The first choice that fits, in the order above (the least communication first); null when none does.
  const MemoryChoice* firstFitting() const;
};

// The figures for `experiment` on `capacities` (bytes, one per device in trainingDevices(); 0 unknown).
// Never throws: a summary with issues gives a TrainingMemory whose `problem` says so.
TrainingMemory estimateTrainingMemory(const Experiment& experiment, const ModelSummary& summary,
                                      const std::vector<int64_t>& capacities);

// The devices the training state lives on: train.pipeline's when it is on, else train.devices.
std::vector<std::string> trainingDevices(const Experiment& experiment);

// What each device can hold: a CUDA device's total memory; CPU entries share the machine's RAM, each its
// equal part. 0 where unknown (a CUDA device this machine lacks). May initialize CUDA.
std::vector<int64_t> deviceCapacities(const std::vector<std::string>& devices);
// The same from what querySystemInfo() found (the window keeps it cached).
std::vector<int64_t> deviceCapacities(const std::vector<std::string>& devices, const SystemInfo& info);

// The table, one line each: a header, then per choice one line per device ("shard none  cuda:0  params ...").
std::vector<std::string> memoryTableLines(const TrainingMemory& memory);

// Whether this version trains at train.shard `level`: `check` refuses the others, the memory figures give
// them a `problem` and the window does not offer them. (Defined beside the trainer's check, distributed/.)
bool shardLevelTrains(ShardLevel level);

// Empty when the experiment's own choice fits (or capacities are unknown); otherwise why not, naming the
// device and its figures, and the train.shard level or train.pipeline cut that would fit (or what to change
// when none does).
std::string memoryRefusal(const TrainingMemory& memory);

}  // namespace wb
