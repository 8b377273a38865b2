#pragma once
// A pipeline stage's device work, kept apart from the other stages' on a device they share: a CUDA stage
// runs on a stream of its own, and work handed between stages is ordered by events, not by synchronizing the
// device. A CPU stage's work is done when its call returns, so there all of this does nothing but wait (on
// the host) for what a CUDA stage hands it, when one pipeline has stages on the CPU and on CUDA.

#include <torch/torch.h>

#include <memory>

namespace wb {

class StageStream {
 public:
  virtual ~StageStream() = default;
  // First, on the stage's thread: its work goes to its own stream from here on, after what the thread's
  // default stream had queued (the batch copied to the device).
  virtual void enter() {}
  // Last, on the stage's thread: the default stream waits for the stage's work (the optimizer step, on the
  // caller's thread, reads the gradients).
  virtual void leave() {}
  // After the stage queued the work that makes a tensor it hands on: what the receiver waits for.
  virtual std::shared_ptr<void> handOff() { return nullptr; }
  // Before the stage reads a tensor handed to it: its stream waits for the sender's work, and the tensor's
  // memory is kept until the stream that reads it (this stage's, or for a copy from another GPU the source
  // device's current stream) has done so: the sender's stream allocated it and may drop it at once.
  virtual void receive(const torch::Tensor& /*tensor*/, const std::shared_ptr<void>& /*ready*/) {}
};

// For a CPU stage, the host's wait for a CUDA stage's hand-off (in a build with CUDA; nothing else); a
// stream from the device's pool for a CUDA stage (in a build with CUDA).
std::unique_ptr<StageStream> makeStageStream(const torch::Device& device);

}  // namespace wb
