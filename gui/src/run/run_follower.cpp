#include "run/run_follower.h"

#include "app/off_thread.h"

namespace wb::gui {

RunFollower::RunFollower(QObject* parent) : QObject(parent) {
  m_timer.setInterval(500);
  connect(&m_timer, &QTimer::timeout, this, &RunFollower::poll);
}

void RunFollower::follow(const QString& folder, quint64 offset) {
  m_runs[folder] = Followed{offset, false, ++m_generation};
  if (!m_timer.isActive()) m_timer.start();
}

void RunFollower::unfollow(const QString& folder) {
  m_runs.erase(folder);
  if (m_runs.empty()) m_timer.stop();
}

void RunFollower::poll() {
  for (auto& [folder, run] : m_runs) {
    if (run.inFlight) continue;
    run.inFlight = true;
    runOffThread(
        this, [dir = folder.toStdString(), offset = run.offset] { return readRunHistoryTail(dir, offset); },
        [this, folder = folder, generation = run.generation](const RunHistoryTail& tail) {
          const auto it = m_runs.find(folder);
          if (it == m_runs.end() || it->second.generation != generation) return;
          it->second.inFlight = false;
          if (tail.rewound) {
            unfollow(folder);
            emit rewound(folder);
            return;
          }
          it->second.offset = tail.metrics_bytes;
          if (!tail.steps.empty() || !tail.epochs.empty() || !tail.controls.empty())
            emit appended(folder, tail);
          if (tail.ended) {
            unfollow(folder);
            emit ended(folder);
          }
        });
  }
}

}  // namespace wb::gui
