#include "distributed/device_collective_clock.h"

#include <c10/core/Event.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <algorithm>

#include "torch_compat.h"

namespace wb {

#if WB_TORCH_AT_LEAST(2, 4)  // c10::Event::elapsedTime for CUDA

struct DeviceCollectiveClock::Step {
  explicit Step(const torch::Device& device)
      : device(device),
        backward_end(device.type(), c10::EventFlag::BACKEND_DEFAULT),  // timing on (PYTORCH_DEFAULT is off)
        waited(device.type(), c10::EventFlag::BACKEND_DEFAULT) {}
  c10::Stream stream() const { return c10::impl::getDeviceGuardImpl(device.type())->getStream(device); }
  torch::Device device;
  c10::Event backward_end;
  c10::Event waited;
  std::vector<std::shared_ptr<CollectiveTiming>> timings;
};

void DeviceCollectiveClock::backwardEnded(const torch::Device& device) {
  m_open = std::make_unique<Step>(device);
  m_open->backward_end.record(m_open->stream());
}

void DeviceCollectiveClock::collectivesWaited(std::vector<std::shared_ptr<CollectiveTiming>> timings) {
  if (!m_open) return;
  m_open->waited.record(m_open->stream());
  m_open->timings = std::move(timings);
  m_steps.push_back(std::move(m_open));
}

void DeviceCollectiveClock::collect(double& busy_ms, double& hidden_ms) {
  while (!m_steps.empty() && m_steps.front()->waited.query()) {
    const Step& step = *m_steps.front();
    double busy = 0;
    bool known = true;
    for (const auto& timing : step.timings) {
      const double ms = timing->device_ms ? timing->device_ms() : -1.0;
      known = known && ms >= 0;
      busy += std::max(0.0, ms);
    }
    // The stream waited on every collective's end, so all are done: one that cannot say its duration (timing
    // switched off by the user's TORCH_NCCL_ENABLE_TIMING=0) leaves the step out of the figures.
    if (known) {
      const double exposed = step.backward_end.elapsedTime(step.waited);
      busy_ms += busy;
      hidden_ms += std::max(0.0, busy - exposed);
    }
    m_steps.pop_front();
  }
}

#else

struct DeviceCollectiveClock::Step {};
void DeviceCollectiveClock::backwardEnded(const torch::Device&) {}
void DeviceCollectiveClock::collectivesWaited(std::vector<std::shared_ptr<CollectiveTiming>>) {}
void DeviceCollectiveClock::collect(double&, double&) {}

#endif

DeviceCollectiveClock::DeviceCollectiveClock() = default;
DeviceCollectiveClock::~DeviceCollectiveClock() = default;

}  // namespace wb
