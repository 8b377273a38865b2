#include "model/step_generator.h"

#include <ATen/CPUGeneratorImpl.h>

#include <mutex>

namespace wb {
namespace {

thread_local std::optional<torch::Generator> t_stepGenerator;

}  // namespace

torch::Generator* stepGenerator() {
  return t_stepGenerator ? &*t_stepGenerator : nullptr;
}

void setStepGenerator(std::optional<torch::Generator> generator) {
  t_stepGenerator = std::move(generator);
}

void seedStepGenerator(const torch::Device& device, uint64_t seed) {
  if (device.is_cpu()) {
    // Reseeding resets the whole state (mt19937 and the cached normal sample): the same stream as a fresh
    // generator with this seed, without an allocation per step.
    if (!t_stepGenerator) t_stepGenerator = at::detail::createCPUGenerator(seed);
    std::lock_guard<std::mutex> lock(t_stepGenerator->mutex());
    t_stepGenerator->set_current_seed(seed);
    return;
  }
  t_stepGenerator.reset();
  at::Generator generator = at::globalContext().defaultGenerator(device);
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_current_seed(seed);
}

StepGeneratorScope::StepGeneratorScope(std::optional<torch::Generator> generator)
    : m_previous(std::move(t_stepGenerator)) {
  t_stepGenerator = std::move(generator);
}

StepGeneratorScope::~StepGeneratorScope() {
  t_stepGenerator = std::move(m_previous);
}

}  // namespace wb
