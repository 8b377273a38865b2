#include "util/default_cpu_generator.h"

#include <ATen/CPUGeneratorImpl.h>

namespace wb {
namespace {

std::recursive_mutex& defaultCpuGeneratorTurns() {
  static std::recursive_mutex turns;
  return turns;
}

}  // namespace

std::unique_lock<std::recursive_mutex> holdDefaultCpuGenerator() {
  return std::unique_lock<std::recursive_mutex>(defaultCpuGeneratorTurns());
}

std::unique_lock<std::recursive_mutex> holdDefaultGenerator(const torch::Device& device) {
  if (!device.is_cpu()) return {};
  return holdDefaultCpuGenerator();
}

BorrowedDefaultCpuGenerator::BorrowedDefaultCpuGenerator(uint64_t seed) : m_hold(holdDefaultCpuGenerator()) {
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  // The generator's own mutex guards its state against a single draw; ours, held above, against the run's
  // draws for the whole scope.
  std::lock_guard<std::mutex> lock(generator.mutex());
  m_state = generator.get_state();
  generator.set_current_seed(seed);  // what torch::manual_seed does to the CPU generator
}

BorrowedDefaultCpuGenerator::~BorrowedDefaultCpuGenerator() {
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(m_state);
}

}  // namespace wb
