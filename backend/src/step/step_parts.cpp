#include "step/step_parts.h"

#include <stdexcept>

#include "optim/device_step.h"

namespace wb {

StepParts& StepParts::add(std::shared_ptr<StepPart> part) {
  if (!part) throw std::logic_error("StepParts::add: no part");
  m_parts.push_back(std::move(part));
  return *this;
}

StepParts& StepParts::add(const StepParts& parts) {
  for (const auto& p : parts.m_parts) add(p);
  return *this;
}

std::vector<std::string> StepParts::names() const {
  std::vector<std::string> out;
  for (const auto& p : m_parts) out.push_back(p->name());
  return out;
}

StepPart* StepParts::find(const std::string& name) const {
  for (const auto& p : m_parts) {
    if (p->name() == name) return p.get();
  }
  return nullptr;
}

std::vector<std::string> StepParts::uncapturable() const {
  std::vector<std::string> names;
  for (const auto& p : m_parts) {
    if (!p->capturable()) names.push_back(p->name());
  }
  return names;
}

void StepParts::beforeStep(int64_t step) {
  for (const auto& p : m_parts) p->beforeStep(step);
}

torch::Tensor StepParts::loss(const torch::Tensor& outputs, const Batch& batch, const Task& task) {
  for (const auto& p : m_parts) {
    if (std::optional<torch::Tensor> l = p->loss(outputs, batch)) return *l;
  }
  return task.loss(outputs, batch.y);
}

torch::Tensor StepParts::lossForBackward(torch::Tensor loss) {
  for (const auto& p : m_parts) loss = p->lossForBackward(std::move(loss));
  return loss;
}

void StepParts::beforeBackward(bool completes) {
  for (const auto& p : m_parts) p->beforeBackward(completes);
}

void StepParts::gradientsReady() {
  for (const auto& p : m_parts) p->gradientsReady();
}

void StepParts::optimizerStep(torch::optim::Optimizer& optimizer) {
  for (const auto& p : m_parts) {
    if (p->optimizerStep(optimizer)) return;
  }
  // Not optimizer.step(): a device step's step() also writes the learning rates to the device, which inside
  // a graph capture would record today's rate as a constant. TrainingStep::begin writes them, outside.
  auto* device_step = dynamic_cast<DeviceStep*>(&optimizer);
  if (device_step && device_step->stepsOnDevice()) {
    device_step->stepScaled(torch::Tensor(), torch::Tensor());
  } else {
    optimizer.step();
  }
}

void StepParts::afterStep(int64_t step) {
  for (const auto& p : m_parts) p->afterStep(step);
}

void StepParts::beforeEvaluation() {
  for (const auto& p : m_parts) p->beforeEvaluation();
}

CommunicationTimes StepParts::takeCommunicationTimes() {
  CommunicationTimes sum;
  for (const auto& p : m_parts) {
    const CommunicationTimes t = p->takeCommunicationTimes();
    if (t.busy_ms < 0) continue;
    sum.busy_ms = (sum.busy_ms < 0 ? 0 : sum.busy_ms) + t.busy_ms;
    sum.hidden_ms = (sum.hidden_ms < 0 ? 0 : sum.hidden_ms) + std::max(0.0, t.hidden_ms);
  }
  return sum;
}

GradNormWindow StepParts::takeGradNorm() {
  GradNormWindow norm;
  for (const auto& p : m_parts) {
    if (GradNormWindow n = p->takeGradNorm(); n.mean || n.nonfinite > 0) norm = n;
  }
  return norm;
}

PartState StepParts::saveState() const {
  PartState state;
  for (const auto& p : m_parts) p->saveState(state);
  return state;
}

void StepParts::loadState(const PartState& state) {
  for (const auto& p : m_parts) p->loadState(state);
}

}  // namespace wb
