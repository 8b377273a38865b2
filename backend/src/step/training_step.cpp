#include "step/training_step.h"

#include "optim/autocast_guard.h"
#include "optim/device_step.h"
#include "optim/optimizer_factory.h"
#include "step/phase_range.h"

namespace wb {

TrainingStep::TrainingStep(Model& model, torch::optim::Optimizer& optimizer, StepParts& parts,
                           const Task& task, torch::Device device, std::optional<c10::ScalarType> amp_dtype)
    : m_model(model),
      m_optimizer(optimizer),
      m_parts(parts),
      m_task(task),
      m_device(device),
      m_amp_dtype(amp_dtype) {}

void TrainingStep::begin(int64_t step, double lr) {
  begin(step, std::vector<double>{lr});
}

void TrainingStep::begin(int64_t step, const std::vector<double>& lrs) {
  {
    PhaseRange optimizer(StepPhase::Optimizer);  // as a Python loop's optimizer.zero_grad()
    m_optimizer.zero_grad();
  }
  setStepLearningRates(lrs);
  m_parts.beforeStep(step);
}

void TrainingStep::setStepLearningRate(double lr) {
  setStepLearningRates({lr});
}

void TrainingStep::setStepLearningRates(const std::vector<double>& lrs) {
  setLearningRates(m_optimizer, lrs);
  // A device step reads its rates from the device: written here, outside any captured graph.
  if (auto* device_step = dynamic_cast<DeviceStep*>(&m_optimizer); device_step && m_device.is_cuda()) {
    device_step->stageLearningRates();
  }
}

TrainingStep::MicroBatch TrainingStep::forwardBackward(const Batch& batch, int64_t micro_batches,
                                                       bool completes) {
  torch::Tensor outputs, loss;
  {
    PhaseRange forward(StepPhase::Forward);
    // Autocast is per thread: entered on the training thread for each forward.
    AutocastGuard autocast(m_device.type(), m_amp_dtype.value_or(torch::kBFloat16), m_amp_dtype.has_value());
    outputs = m_model.forward(batch.x);
    loss = m_parts.loss(outputs, batch, m_task);
  }
  {
    PhaseRange backward(StepPhase::Backward);
    m_parts.beforeBackward(completes);
    m_parts.lossForBackward(micro_batches > 1 ? loss / static_cast<double>(micro_batches) : loss).backward();
  }
  return {outputs.detach(), loss.detach()};
}

void TrainingStep::finish(int64_t steps_done) {
  // Data parallel's wait for the allreduce inside is a phase of its own (its range is nested in this one).
  PhaseRange optimizer(StepPhase::Optimizer);
  m_parts.gradientsReady();
  m_parts.optimizerStep(m_optimizer);
  m_parts.afterStep(steps_done);
}

}  // namespace wb
