#pragma once
// A model, its optimizer and a training step built as a run's rank builds them (train/training_host.h,
// training_data.h, rank_step.h: the same threads, seeds, device, data placement, channels_last, AMP, loss
// scaling and clipping), without a run folder, events, metrics or checkpoints: what the learning-rate range
// test and the batch-size finder train. Only the loop around the step is the finders' own.

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "data/batch_loader.h"
#include "data/dataset.h"
#include "model/model.h"
#include "train/rank_step.h"
#include "workbench/experiment.h"

namespace wb {

// Epoch after epoch of one loader: a finder needs a given number of steps, not epochs.
class EndlessBatches {
 public:
  EndlessBatches(const DataSplit& split, const BatchLoaderOptions& options);
  Batch next();
  int64_t batchesPerEpoch() const { return m_loader.batchesPerEpoch(); }

 private:
  BatchLoader m_loader;
  int64_t m_epoch = 1;
};

class ProbeTrainer {
 public:
  // Loads the data and builds everything on train.devices[0]. Throws UserError / DataError as a run would.
  ProbeTrainer(const Experiment& experiment, const std::function<void(const std::string&)>& log);

  const torch::Device& device() const { return m_device; }
  std::string deviceName() const;
  const Dataset& data() const { return m_data; }
  Model& model() { return m_step->model(); }
  // Batches of one optimizer step of the run: train.grad_accum on each of train.devices (data parallel
  // averages the devices' gradients, which accumulating their batches here reproduces on one device).
  int64_t microBatchesPerStep() const { return m_micro_batches; }
  // The run's loader options (augmentation, pinned memory, channels_last, device) for a batch size.
  BatchLoaderOptions loaderOptions(int64_t batch_size) const;

  // One optimizer step over `micro_batches` batches of `batches`, at learning rate `lr` (every parameter
  // group). `after_backward(batch_size)` runs after each backward while the step's tensors are alive. Returns
  // the mean loss of the batches as a float64 device scalar (not read back: the caller decides when to
  // synchronize).
  torch::Tensor step(EndlessBatches& batches, int64_t micro_batches, double lr,
                     const std::function<void(int64_t)>& after_backward = {});

 private:
  const Experiment& m_experiment;
  torch::Device m_device = torch::kCPU;
  Dataset m_data;
  std::unique_ptr<RankStep> m_step;
  int64_t m_steps = 0;
  bool m_channels_last = false;
  int64_t m_micro_batches = 1;
};

}  // namespace wb
