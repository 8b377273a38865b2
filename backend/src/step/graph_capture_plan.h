#pragma once
// When train.cuda_graphs warms up, captures, replays or runs a step eagerly, decided on the host apart from
// the graph itself (which only a GPU runs), so that a test on a CPU drives every decision.
// - The capture takes a full batch. A batch with fewer rows than the most seen so far (an epoch's short
//   last batch) runs eagerly and the capture waits for the next full one: a graph of the short batch would
//   leave every full batch after it to run eagerly, silently.
// - A captured graph reads and writes the memory of the tensors it was captured with. The optimizer may
//   replace one of them (a load brings new moments; step counts given back to the host and made anew; a
//   learning rate tensor made again on another device), and a replay would then update memory that is no
//   longer the step's. The plan holds those tensors (so their memory is never freed under the graph) and,
//   before each replay, compares them with the ones the step uses now: on any difference the graph is
//   dropped, one eager warm-up step remakes what the optimizer makes lazily (a capture must not allocate
//   and fill a step count: it would refill it at every replay), and the step is captured again.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace wb {

enum class GraphAction {
  WarmUp,   // an eager step on the graph's side stream, before a capture
  Capture,  // capture this batch's step (and run it once)
  Replay,   // copy the batch into the captured buffers and replay
  Eager,    // a batch the graph does not take: run eagerly beside it
};

class GraphCapturePlan {
 public:
  explicit GraphCapturePlan(int64_t warmup_steps);

  // What to do with the next batch, of `rows` rows. Once captured: `fits` says whether it has the captured
  // buffers' shape and dtype, `held_current` whether the held tensors are still the step's (holds()).
  GraphAction next(int64_t rows, bool fits, bool held_current);

  // The capture took place; `held` are the tensors the graph reads and writes.
  void captured(std::vector<torch::Tensor> held);
  bool isCaptured() const { return m_captured; }

  // Whether `now`, the tensors the step uses now in the order captured() got them, are the held ones: the
  // same count, each at the same address with the same size.
  bool holds(const std::vector<torch::Tensor>& now) const;

  // Graphs dropped since the last call because a held tensor was replaced.
  int64_t takeDropped();

 private:
  int64_t m_warmup_left;
  int64_t m_most_rows = 0;
  bool m_captured = false;
  std::vector<torch::Tensor> m_held;
  int64_t m_dropped = 0;
};

}  // namespace wb
