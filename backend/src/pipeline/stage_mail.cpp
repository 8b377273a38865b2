#include "pipeline/stage_mail.h"

namespace wb {

void StageMail::abort() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_aborted = true;
  }
  m_changed.notify_all();
}

void StageMail::send(std::deque<Handoff>& queue, Handoff handoff) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    queue.push_back(std::move(handoff));
  }
  m_changed.notify_all();
}

Handoff StageMail::receive(std::deque<Handoff>& queue) {
  std::unique_lock<std::mutex> lock(m_mutex);
  m_changed.wait(lock, [&] { return m_aborted || !queue.empty(); });
  if (m_aborted) throw StageAborted();
  Handoff handoff = std::move(queue.front());
  queue.pop_front();
  return handoff;
}

}  // namespace wb
