#include "finders/probe_trainer.h"

#include "optim/fused_adam.h"
#include "parallel/data_parallel.h"
#include "task/make_task.h"
#include "train/training_data.h"
#include "train/training_host.h"
#include "train/training_model.h"
#include "util/fast_paths.h"
#include "workbench/errors.h"

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
  const TrainingHost host = prepareTrainingHost(e.train, m_device);
  say(host.threads);
  if (host.cuda_switches) say(*host.cuda_switches);
  // The run's seeds in the run's order, so the weights a finder starts from are the ones the run will start
  // from.
  m_data = loadTrainingData(e, m_device, true).data;
  say(m_data.description);
  m_step = std::make_unique<RankStep>(e.train, ownedModel(buildTrainingModel(e, m_data, m_device)),
                                      makeTask(e), m_device);
  m_step->model().train(true);
  m_channels_last = useChannelsLast(e.train, m_data.sample_shape);
  const std::optional<c10::ScalarType> amp_dtype = m_step->ampDtype();
  say("Model: " + std::to_string(model().info().parameters) + " parameters on " + deviceName() +
      "; optimizer " + wordString(e.optimizer.name) +
      (stepDescription(m_step->optimizer()).empty() ? ""
                                                    : " (" + stepDescription(m_step->optimizer()) + ")") +
      "; precision " + (amp_dtype ? wordString(e.train.amp) + " autocast" : std::string("float32")) +
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
  TrainingStep& body = m_step->body();
  body.begin(m_steps, lr);
  torch::Tensor loss_sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat64).device(m_device));
  for (int64_t i = 0; i < micro_batches; ++i) {
    const Batch batch = batches.next();
    const TrainingStep::MicroBatch result =
        body.forwardBackward(batch, micro_batches, i + 1 == micro_batches);
    if (after_backward) after_backward(batch.x.size(0));
    loss_sum += result.loss.to(torch::kFloat64);
  }
  body.finish(++m_steps);
  return loss_sum / static_cast<double>(micro_batches);
}

}  // namespace wb
