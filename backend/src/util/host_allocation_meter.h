#pragma once
// The bytes LibTorch's CPU allocator holds for one piece of work, counted as it allocates and frees them: the
// host-side counterpart of the CUDA caching allocator's statistics, for the batch-size finder. The process's
// resident memory is no measure of a step: glibc keeps or returns freed blocks as its thresholds move, and
// AddressSanitizer quarantines them, so two runs of the same step can differ by more than the step needs.
//
// It uses c10's memory-reporting hook (what torch.profiler's profile_memory uses): while a meter is installed
// on a thread, every CPU tensor allocated there (and on threads that inherit the thread's c10 debug info,
// such as the batch loader's prefetch thread) is reported with its size, and so is its free. Memory allocated
// before the meter was installed is not counted, nor are its frees.

#include <cstdint>
#include <memory>

namespace wb {

class HostAllocationMeter {
 public:
  HostAllocationMeter();   // installs itself on the calling thread
  ~HostAllocationMeter();  // and removes itself
  HostAllocationMeter(const HostAllocationMeter&) = delete;
  HostAllocationMeter& operator=(const HostAllocationMeter&) = delete;

  // Bytes allocated since the meter was installed and not yet freed.
  int64_t currentBytes() const;
  // The largest currentBytes() since installation or the last resetPeak().
  int64_t peakBytes() const;
  void resetPeak();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace wb
