#pragma once
// The communication figures of steps whose collectives run on a GPU's streams (NCCL), where a host clock sees
// them only queued. `busy` is the sum of the collectives' own durations on the device (the events c10d
// records around each: CollectiveTiming::device_ms); `exposed` the time the compute stream stood waiting for
// them once backward's work on it was done — between an event recorded on it where backward ends and one
// recorded after the waits (which make the stream wait on each collective's end) — and `hidden` the rest of
// `busy`, the part that ran behind backward. A step's figures are read once its events are done, at a later
// collect(): no step waits for its own figures. With blocking waits (TORCH_NCCL_BLOCKING_WAIT, set by
// prepareNcclEnvironment) the second event is recorded once the host saw the end, so `exposed` holds the
// host's wake-up too (a millisecond or so): the hidden share reads low for tiny models. LibTorch >= 2.4
// (c10::Event::elapsedTime on CUDA); before, it adds nothing.

#include <torch/torch.h>

#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "distributed/rank_group.h"

namespace wb {

class DeviceCollectiveClock {
 public:
  DeviceCollectiveClock();
  ~DeviceCollectiveClock();
  DeviceCollectiveClock(const DeviceCollectiveClock&) = delete;
  DeviceCollectiveClock& operator=(const DeviceCollectiveClock&) = delete;

  // On `device`'s current stream, where backward's work ends (before the step waits for its collectives).
  void backwardEnded(const torch::Device& device);
  // After the waits, on the same stream: the step's collectives, whose durations are read later.
  void collectivesWaited(std::vector<std::shared_ptr<CollectiveTiming>> timings);
  // Adds every recorded step whose events and collectives are done; the others wait for a later call.
  void collect(double& busy_ms, double& hidden_ms);

 private:
  struct Step;
  std::deque<std::unique_ptr<Step>> m_steps;
  std::unique_ptr<Step> m_open;  // backwardEnded, not yet waited
};

}  // namespace wb
