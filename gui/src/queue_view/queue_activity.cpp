#include "queue_view/queue_activity.h"

#include <QCoreApplication>

namespace wb::gui {
namespace {

QString activityTr(const char* text) {
  return QCoreApplication::translate("QueueActivity", text);
}

// "trial 3 of 12 (sweep lr-search)" for a sweep's trial: its place among the sweep's entries in queue order.
QString runningEntryText(const std::vector<QueueEntry>& entries, const QueueEntry& running) {
  if (running.sweep.empty()) {
    return activityTr("%1 training").arg(QString::fromStdString(running.label));
  }
  int trial = 0, trials = 0;
  for (const QueueEntry& e : entries) {
    if (e.sweep != running.sweep) continue;
    ++trials;
    if (e.id == running.id) trial = trials;
  }
  return activityTr("trial %1 of %2 training (sweep %3)")
      .arg(trial)
      .arg(trials)
      .arg(QString::fromStdString(running.sweep));
}

}  // namespace

QString queueActivityText(const std::vector<QueueEntry>& entries) {
  int running = 0, waiting = 0;
  const QueueEntry* first = nullptr;
  for (const QueueEntry& e : entries) {
    if (e.state == QueueState::Running) {
      if (!first) first = &e;
      ++running;
    }
    waiting += e.state == QueueState::Queued;
  }
  if (running == 0 && waiting == 0) return {};
  QString text;
  if (running == 1) {
    text = runningEntryText(entries, *first);
  } else if (running > 1) {
    text = activityTr("%1 entries training").arg(running);
  }
  if (waiting > 0) {
    const QString waits = activityTr("%1 waiting").arg(waiting);
    text = text.isEmpty() ? waits : text + QStringLiteral(", ") + waits;
  }
  return activityTr("Queue: %1").arg(text);
}

}  // namespace wb::gui
