#include "step/graph_capture_plan.h"

#include <algorithm>
#include <utility>

namespace wb {

GraphCapturePlan::GraphCapturePlan(int64_t warmup_steps) : m_warmup_left(warmup_steps) {}

GraphAction GraphCapturePlan::next(int64_t rows, bool fits, bool held_current) {
  if (m_captured) {
    if (held_current) return fits ? GraphAction::Replay : GraphAction::Eager;
    // A held tensor was replaced: the graph would update memory that is no longer the step's.
    m_captured = false;
    m_held.clear();
    m_warmup_left = std::max<int64_t>(m_warmup_left, 1);
    ++m_dropped;
  }
  m_most_rows = std::max(m_most_rows, rows);
  if (m_warmup_left > 0) {
    --m_warmup_left;
    return GraphAction::WarmUp;
  }
  return rows < m_most_rows ? GraphAction::Eager : GraphAction::Capture;
}

void GraphCapturePlan::captured(std::vector<torch::Tensor> held) {
  m_captured = true;
  m_held = std::move(held);
}

bool GraphCapturePlan::holds(const std::vector<torch::Tensor>& now) const {
  if (now.size() != m_held.size()) return false;
  for (size_t i = 0; i < now.size(); ++i) {
    const torch::Tensor& a = m_held[i];
    const torch::Tensor& b = now[i];
    if (a.defined() != b.defined()) return false;
    if (!a.defined()) continue;
    // The held tensor keeps its memory alive, so another tensor cannot be at its address.
    if (a.data_ptr() != b.data_ptr() || a.nbytes() != b.nbytes() || a.device() != b.device()) return false;
  }
  return true;
}

int64_t GraphCapturePlan::takeDropped() {
  return std::exchange(m_dropped, 0);
}

}  // namespace wb
