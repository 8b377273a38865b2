#include "util/host_allocation_meter.h"

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <algorithm>
#include <atomic>

namespace wb {
// Named, not anonymous: HostAllocationMeter::Impl holds one (GCC warns of a field whose type has internal
// linkage).
namespace host_allocation_meter_detail {

// reportMemoryUsage's totals are int64_t in LibTorch 1.13 and size_t in 2.x: take the types from the base.
template <typename F>
struct ReportSignature;
template <typename C, typename Total, typename Reserved>
struct ReportSignature<void (C::*)(void*, int64_t, Total, Reserved, c10::Device)> {
  using TotalT = Total;
  using ReservedT = Reserved;
};
using Report = ReportSignature<decltype(&c10::MemoryReportingInfoBase::reportMemoryUsage)>;

class Counter : public c10::MemoryReportingInfoBase {
 public:
  void reportMemoryUsage(void* /*ptr*/, int64_t alloc_size, Report::TotalT /*total_allocated*/,
                         Report::ReservedT /*total_reserved*/, c10::Device device) override {
    if (!device.is_cpu()) return;
    // Several threads may report (the loader's prefetch thread beside the step's).
    const int64_t now = current.fetch_add(alloc_size, std::memory_order_relaxed) + alloc_size;
    int64_t seen = peak.load(std::memory_order_relaxed);
    while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
  }
  bool memoryProfilingEnabled() const override { return true; }

  std::atomic<int64_t> current{0};
  std::atomic<int64_t> peak{0};
};

}  // namespace host_allocation_meter_detail

struct HostAllocationMeter::Impl {
  using Counter = host_allocation_meter_detail::Counter;
  std::shared_ptr<Counter> counter = std::make_shared<Counter>();
  c10::DebugInfoGuard guard{c10::DebugInfoKind::PROFILER_STATE, counter};
};

HostAllocationMeter::HostAllocationMeter() : m_impl(std::make_unique<Impl>()) {}
HostAllocationMeter::~HostAllocationMeter() = default;

int64_t HostAllocationMeter::currentBytes() const {
  return m_impl->counter->current.load();
}
int64_t HostAllocationMeter::peakBytes() const {
  return m_impl->counter->peak.load();
}
void HostAllocationMeter::resetPeak() {
  m_impl->counter->peak.store(m_impl->counter->current.load());
}

}  // namespace wb
