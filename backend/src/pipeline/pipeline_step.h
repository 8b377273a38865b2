#pragma once
// The training step of a model cut into stages (train.pipeline): each batch split into micro-batches, the
// stages on threads of their own (one per stage; on CUDA each with its own stream), activations handed
// forward and their gradients backward between them, in the order of train.pipeline.schedule. Each
// micro-batch's loss is weighted by its share of the batch before backward, so the gradients accumulated
// over the micro-batches are the whole batch's, as the plain step (TrainingStep) computes them — except for
// batch norm in training mode, whose statistics are each micro-batch's (GPipe's and PyTorch's pipelines say
// the same): a model with batch norm trains differently, not wrongly.
//
// A batch whose size micro_batches does not divide is split as evenly as it goes (10 into 4: 3, 3, 2, 2; a
// batch smaller than micro_batches into micro-batches of one sample), each weighted by its own size.
// The step's parts see each micro-batch's loss (lossForBackward) on the last stage's thread; the parts that
// read the gradients run after the schedule, on the caller's thread (clipping measures every stage's
// gradients on their devices: step/clip_grad_norm_part.h); data parallel and fp16 loss scaling are refused
// by the experiment's checks.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/pipeline_model.h"
#include "pipeline/stage_stream.h"
#include "pipeline/stage_workers.h"
#include "step/training_step.h"

namespace wb {

class PipelineStep final : public TrainingStep {
 public:
  PipelineStep(PipelineModel& model, torch::optim::Optimizer& optimizer, StepParts& parts, const Task& task,
               torch::Device device, std::optional<c10::ScalarType> amp_dtype,
               const PipelineConfig& pipeline);

  MicroBatch forwardBackward(const Batch& batch, int64_t micro_batches, bool completes) override;
  std::string describe() override;
  // "pipeline idle per stage: 24.1%, 23.8% (ideal (S-1)/(M+S-1) = 20.0%) over N batches".
  std::string takeReport() override;

  struct Idle {
    // Per stage: time computing its forwards and backwards, waits for hand-offs left out (host time: on
    // CUDA, the time to queue the work).
    std::vector<double> busy_s;
    double wall_s = 0;  // the schedules' time, start to end
    int64_t batches = 0;
  };
  // The measurements since the last take, and start anew.
  Idle takeIdle();

 private:
  PipelineModel& m_model;
  StepParts& m_parts;
  const Task& m_task;  // the last stage's loss
  torch::Device m_device;
  std::optional<c10::ScalarType> m_amp_dtype;
  PipelineSchedule m_schedule;
  int64_t m_micro_batches;
  Idle m_idle;
  std::unique_ptr<StageWorkers> m_workers;              // one thread per stage, for the run
  std::vector<std::unique_ptr<StageStream>> m_streams;  // one per stage, for the run
};

// The step body for `model`: a PipelineStep when the model is cut into stages, the plain step otherwise.
std::unique_ptr<TrainingStep> makeTrainingStep(Model& model, torch::optim::Optimizer& optimizer,
                                               StepParts& parts, const Task& task, torch::Device device,
                                               std::optional<c10::ScalarType> amp_dtype,
                                               const PipelineConfig& pipeline);

// `total` samples in `parts` micro-batches as even as they go, largest first ({3, 3, 2, 2} for 10 in 4);
// never an empty one (fewer micro-batches when total < parts).
std::vector<int64_t> microBatchSizes(int64_t total, int64_t parts);

}  // namespace wb
