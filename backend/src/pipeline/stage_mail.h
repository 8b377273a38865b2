#pragma once
// What the stages of a pipeline hand each other: activations forward (into stage s from s-1), their
// gradients backward (into stage s from s+1), each with what the receiver's device stream must wait for. A
// stage that fails aborts the mail: every stage waiting for a hand-off (and every later wait) throws
// StageAborted, so one failing stage ends the others instead of leaving them waiting forever.

#include <torch/torch.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace wb {

struct Handoff {
  torch::Tensor tensor;
  std::shared_ptr<void> ready;  // the sender's device event (stage_stream.h); null on the CPU
  int64_t micro = 0;
};

class StageAborted : public std::runtime_error {
 public:
  StageAborted() : std::runtime_error("another pipeline stage failed") {}
};

class StageMail {
 public:
  explicit StageMail(size_t stages) : m_forward(stages), m_backward(stages) {}

  void sendForward(size_t to_stage, Handoff handoff) { send(m_forward[to_stage], std::move(handoff)); }
  void sendBackward(size_t to_stage, Handoff handoff) { send(m_backward[to_stage], std::move(handoff)); }
  // The next hand-off for `stage`; blocks until there is one, throws StageAborted once aborted.
  Handoff receiveForward(size_t stage) { return receive(m_forward[stage]); }
  Handoff receiveBackward(size_t stage) { return receive(m_backward[stage]); }
  void abort();

 private:
  void send(std::deque<Handoff>& queue, Handoff handoff);
  Handoff receive(std::deque<Handoff>& queue);

  std::mutex m_mutex;
  std::condition_variable m_changed;
  bool m_aborted = false;
  std::vector<std::deque<Handoff>> m_forward, m_backward;
};

}  // namespace wb
