#pragma once
// One job at a time on Qt's global thread pool, for a controller that shows its progress while it works (the
// finders, an export, an evaluation). The worker and the controller share a state object (counters, staged
// items, the cancel flag the worker polls); a timer on the owner's thread reads it, so the worker never
// signals per step and never touches a QObject. The outcome comes back once on the owner's thread, after a
// last read. The UI thread does not wait: a job still in flight when its owner goes is cancelled and finishes
// on its own, holding its own share of the state (or, for an owner whose job reads what may be deleted next,
// is waited for from its destructor: cancelAndWait). One-shot jobs with nothing to show meanwhile use
// runOffThread.

#include <QFutureWatcher>
#include <QObject>
#include <QTimer>
#include <QtConcurrent/QtConcurrent>
#include <atomic>
#include <functional>
#include <memory>
#include <utility>

namespace wb::gui {

// The part of every job's shared state the job itself needs.
struct JobState {
  std::atomic<bool> cancel_requested{false};
  bool cancelled() const { return cancel_requested; }
};

// `State` derives from JobState; the work turns every exception into an Outcome (it is the thread's edge).
template <typename State, typename Outcome>
class PoolJob {
 public:
  struct Handlers {
    std::function<void(State& state)> poll;         // on the timer, and once more before `finished`
    std::function<void(Outcome outcome)> finished;  // exactly once per job
    std::function<void(bool running)> runningChanged;
  };

  // The handlers run on `owner`'s thread while it lives.
  PoolJob(QObject* owner, int poll_ms, Handlers handlers) : m_handlers(std::move(handlers)) {
    m_timer.setInterval(poll_ms);
    QObject::connect(&m_timer, &QTimer::timeout, owner, [this] { poll(); });
    QObject::connect(&m_watcher, &QFutureWatcherBase::finished, owner, [this] { finish(); });
  }
  ~PoolJob() {
    if (m_state) m_state->cancel_requested = true;
  }
  PoolJob(const PoolJob&) = delete;
  PoolJob& operator=(const PoolJob&) = delete;

  // False (and nothing starts) while a job runs.
  bool start(std::function<Outcome(State& state)> work) {
    if (m_running) return false;
    m_state = std::make_shared<State>();
    std::shared_ptr<State> state = m_state;
    m_watcher.setFuture(QtConcurrent::run([work = std::move(work), state] { return work(*state); }));
    setRunning(true);
    poll();
    return true;
  }
  // False when nothing runs; the work stops where it next polls the flag.
  bool cancel() {
    if (!m_running || !m_state) return false;
    m_state->cancel_requested = true;
    return true;
  }
  // For an owner that must not outlive the job's reads (an evaluation of a folder that may be deleted next):
  // cancels it and waits until the work returns. Only from a destructor: the UI thread waits for as long as
  // the work takes to notice the flag.
  void cancelAndWait() {
    if (!m_running || !m_state) return;
    m_state->cancel_requested = true;
    m_watcher.waitForFinished();
  }
  bool isRunning() const { return m_running; }
  bool cancelled() const { return m_state && m_state->cancelled(); }
  // The state of the job in flight or the last one (null before the first).
  const State* state() const { return m_state.get(); }
  // What a worker needs to keep its state alive past the controller: its own share.
  std::shared_ptr<State> sharedState() const { return m_state; }

 private:
  void poll() {
    if (m_state && m_handlers.poll) m_handlers.poll(*m_state);
  }
  void finish() {
    poll();
    setRunning(false);
    if (m_handlers.finished) m_handlers.finished(m_watcher.result());
  }
  void setRunning(bool running) {
    m_running = running;
    if (running) {
      m_timer.start();
    } else {
      m_timer.stop();
    }
    if (m_handlers.runningChanged) m_handlers.runningChanged(running);
  }

  Handlers m_handlers;
  std::shared_ptr<State> m_state;
  QFutureWatcher<Outcome> m_watcher;
  QTimer m_timer;
  bool m_running = false;
};

}  // namespace wb::gui
