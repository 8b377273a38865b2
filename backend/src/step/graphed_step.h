#pragma once
// train.cuda_graphs: a step of one batch replayed from a CUDA graph instead of launched kernel by kernel,
// as in PyTorch's "whole network capture" recipe. After warm-up steps on a side stream (lazy allocations,
// cuDNN's autotuning), the step is captured once on static input and target buffers and then replayed, the
// loader's batch copied into those buffers first. Whole: forward, loss, backward, the parts (loss scaling,
// clipping, their device accumulators) and the optimizer's device step (optim/device_step.h: learning rates
// in device tensors, written before each replay, so a schedule or a live change reaches the graph). An
// optimizer without a device step keeps its step outside: forward, loss and backward only are captured.
// A batch of another shape (a short last batch) runs eagerly; the capture takes a full batch, and when the
// optimizer replaces a tensor the graph holds, the step is captured again (graph_capture_plan.h). What is
// not captured, and why, is one line of the run's log.

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/batch_loader.h"
#include "step/graph_capture_plan.h"
#include "step/step_parts.h"
#include "step/training_step.h"
#include "workbench/experiment.h"

namespace wb {

class CudaGraph;

// Whether a run's step is to be captured, from what is known before its first step, and the log's line.
struct GraphChoice {
  bool capture = false;
  std::string reason;
};
GraphChoice chooseCudaGraphs(const TrainConfig& train, const torch::Device& device, const StepParts& parts,
                             torch::optim::Optimizer& optimizer);

class GraphedStep {
 public:
  // The references outlive the step. `warmup_steps`: eager steps on the side stream before the capture.
  GraphedStep(TrainingStep& body, StepParts& parts, torch::optim::Optimizer& optimizer, torch::Device device,
              int64_t warmup_steps = 3);
  ~GraphedStep();
  GraphedStep(const GraphedStep&) = delete;
  GraphedStep& operator=(const GraphedStep&) = delete;

  // One whole optimizer step of `batch` (no gradient accumulation); `step` counts the steps done before it.
  // For a replayed step the logits and loss returned are the graph's output buffers: count them before the
  // next step.
  TrainingStep::MicroBatch step(const Batch& batch, int64_t step, double lr);
  // With one learning rate per optimizer group (LrSchedule::groupLrsAt), or one for all.
  TrainingStep::MicroBatch step(const Batch& batch, int64_t step, const std::vector<double>& lrs);

  // A line for the log once the graph is captured, and how many steps ran eagerly since the last call
  // (shape changes), or nullopt when there is nothing new.
  std::optional<std::string> takeNews();

 private:
  TrainingStep::MicroBatch eager(const Batch& batch, int64_t step, const std::vector<double>& lrs);
  TrainingStep::MicroBatch capture(const Batch& batch, int64_t step, const std::vector<double>& lrs);
  TrainingStep::MicroBatch replay(const Batch& batch, int64_t step, const std::vector<double>& lrs);
  bool fitsStaticBuffers(const Batch& batch) const;
  // What the graph reads and writes beside its own pool: the optimizer's device tensors when its step is
  // in the graph, the parameters otherwise.
  std::vector<torch::Tensor> heldTensors() const;

  TrainingStep& m_body;
  StepParts& m_parts;
  torch::optim::Optimizer& m_optimizer;
  torch::Device m_device;
  GraphCapturePlan m_plan;
  std::unique_ptr<CudaGraph> m_graph;
  bool m_whole = false;  // the optimizer's step is in the graph
  Batch m_static;        // the captured step's input and target buffers
  TrainingStep::MicroBatch m_output;
  std::vector<torch::Tensor> m_parameters;  // with gradients, and those gradients as the graph writes them
  std::vector<torch::Tensor> m_gradients;
  std::optional<std::string> m_news;
  int64_t m_eager_since_news = 0;
};

}  // namespace wb
