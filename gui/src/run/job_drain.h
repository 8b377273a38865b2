#pragma once
// One drain tick of an engine job's controller (a training run, a compression): everything the worker posted
// since the last tick, and whether the job has ended — its RunFinished seen (its last event) and its worker
// no longer running, so that releasing the job joins its thread at once and the UI thread never waits.

#include <optional>

#include "run/event_buffer.h"
#include "workbench/events.h"

namespace wb::gui {

class JobDrain {
 public:
  struct Tick {
    EventBatch batch;
    bool ended = false;
    std::optional<RunSummary> summary;  // the RunFinished's, when it came in this tick
  };

  void restart() { m_finishedSeen = false; }  // a new job starts

  // `worker_running`: whether the job's worker thread still runs (false when there is no job).
  Tick take(EventBuffer& buffer, bool worker_running) {
    Tick tick;
    tick.batch = buffer.take();
    for (const Event& e : tick.batch) {
      if (const auto* f = std::get_if<RunFinished>(&e)) tick.summary = f->summary;
    }
    if (tick.summary) m_finishedSeen = true;
    tick.ended = m_finishedSeen && !worker_running;
    if (tick.ended) m_finishedSeen = false;
    return tick;
  }

 private:
  bool m_finishedSeen = false;
};

}  // namespace wb::gui
