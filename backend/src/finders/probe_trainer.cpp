#include "finders/probe_trainer.h"

#include "optim/autocast_guard.h"
#include "optim/fused_adam.h"
#include "optim/optimizer_factory.h"
#include "step/configured_parts.h"
#include "train/data_parallel.h"
#include "train/training_model.h"
#include "util/fast_paths.h"
#include "util/host_allocator.h"
#include "workbench/errors.h"
#include "workbench/system_info.h"

namespace wb {

EndlessBatches::EndlessBatches(const DataSplit& split, const BatchLoaderOptions& options)
    : m_loader(split, options) {
  if (m_loader.batchesPerEpoch() == 0) {
    throw UserError("The training split has " + std::to_string(split.size()) +
                        " samples, fewer than one batch of " + std::to_string(options.batch_size) + ".",
                    "Lower train.batch_size or raise data.limit.");
  }
  m_loader.startEpoch(m_epoch);
}

Batch EndlessBatches::next() {
  std::optional<Batch> batch = m_loader.next();
  if (!batch) {
    m_loader.startEpoch(++m_epoch);
    batch = m_loader.next();
  }
  return std::move(*batch);
}

ProbeTrainer::ProbeTrainer(const Experiment& e, const std::function<void(const std::string&)>& log)
    : m_experiment(e) {
  auto say = [&](const std::string& line) {
    if (log) log(line);
  };
  const RankLayout layout = layoutRanks(e, std::nullopt);
  m_device = layout.local.front().device;
  m_micro_batches = std::max<int64_t>(1, e.train.grad_accum) * layout.world_size;
  say(configureThreads(e.train.threads, e.train.blas_threads));
  keepFreedHostMemoryForReuse();
  if (m_device.is_cuda()) say(applyCudaBackendSwitches(e.train));
  // The run's order: the seed, the data, then the seed again right before the model, so the weights a finder
  // starts from are the ones the run will start from.
  torch::manual_seed(e.seed);
  m_data = loadDataset(e.data, e.seed);
  say(m_data.description);
  if (m_device.is_cuda() && m_data.train.inMemory()) {
    const DataPlacement placement = chooseDataPlacement(
        e.train, m_device, static_cast<int64_t>(m_data.train.x.nbytes() + m_data.train.y.nbytes()));
    if (placement.on_device) {
      m_data.train.x = m_data.train.x.to(m_device);
      m_data.train.y = m_data.train.y.to(m_device);
    }
  }
  TrainingModel built = buildTrainingModel(e, m_data, m_device);
  m_model = std::move(built.model);
  m_optimizer = std::move(built.optimizer);
  m_model->train(true);
  m_channels_last = useChannelsLast(e.train, m_data.sample_shape);
  m_amp_dtype = autocastDtype(e.train.amp);
  GradScalerOptions scaler_options;
  scaler_options.enabled = e.train.amp == "fp16";
  m_scaler = std::make_unique<GradScaler>(scaler_options);
  addConfiguredParts(m_parts, e.train, *m_model, *m_optimizer, *m_scaler);
  m_step = std::make_unique<TrainingStep>(*m_model, *m_optimizer, m_parts, m_device, m_amp_dtype);
  say("Model: " + std::to_string(m_model->info().parameters) + " parameters on " + deviceName() +
      "; optimizer " + e.optimizer.name + (takesFusedStep(*m_optimizer) ? " (fused CPU step)" : "") +
      "; precision " + (m_amp_dtype ? e.train.amp + " autocast" : std::string("float32")) +
      (m_micro_batches > 1 ? "; " + std::to_string(m_micro_batches) +
                                 " batches accumulated per step (train.grad_accum x train.devices)"
                           : std::string()));
}

std::string ProbeTrainer::deviceName() const {
  return m_device.str();
}

BatchLoaderOptions ProbeTrainer::loaderOptions(int64_t batch_size) const {
  BatchLoaderOptions options;
  options.batch_size = batch_size;
  options.shuffle = true;
  options.seed = m_experiment.seed;
  options.device = m_device;
  options.pin_memory = m_experiment.train.pinned_memory;
  options.channels_last = m_channels_last;
  options.drop_last =
      true;  // every step sees a full batch: the loss and the memory are those of the batch size
  if (m_experiment.data.augment_enabled && m_data.sample_shape.size() == 3) {
    options.augment = m_experiment.data.augment;
  }
  return options;
}

torch::Tensor ProbeTrainer::step(EndlessBatches& batches, int64_t micro_batches, double lr,
                                 const std::function<void(int64_t)>& after_backward) {
  micro_batches = std::max<int64_t>(1, micro_batches);
  m_step->begin(m_steps, lr);
  torch::Tensor loss_sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat64).device(m_device));
  for (int64_t i = 0; i < micro_batches; ++i) {
    const Batch batch = batches.next();
    const TrainingStep::MicroBatch result =
        m_step->forwardBackward(batch, micro_batches, i + 1 == micro_batches);
    if (after_backward) after_backward(batch.x.size(0));
    loss_sum += result.loss.to(torch::kFloat64);
  }
  if (m_step->finish(m_steps + 1)) ++m_steps;
  return loss_sum / static_cast<double>(micro_batches);
}

}  // namespace wb
