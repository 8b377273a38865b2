#pragma once
// A finder (workbench/finders.h) on a worker thread for a dialog. The worker stages what it reports (points,
// trials, log lines) under a mutex and the dialog takes it all on a timer: no signal per step, and the UI
// thread never waits on the finder. Cancel is a flag the finder polls between steps. Exceptions stop at the
// worker's edge and come back as text. FinderJob puts the pieces together for a dialog.

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>
#include <QtConcurrent/QtConcurrent>

#include "workbench/errors.h"
#include "workbench/finders.h"

namespace wb::gui {

template <typename Item>
class FinderStaging {
 public:
  void add(const Item& item) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_items.push_back(item);
  }
  void log(const std::string& line) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_log.push_back(line);
  }
  // Everything staged since the last call.
  std::pair<std::vector<Item>, std::vector<std::string>> take() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return {std::exchange(m_items, {}), std::exchange(m_log, {})};
  }
  void cancel() { m_cancel = true; }
  bool cancelled() const { return m_cancel; }

  // The callbacks a finder reports through, into this staging area. It must outlive the finder: share it.
  static FinderCallbacks callbacksOf(const std::shared_ptr<FinderStaging>& staging) {
    FinderCallbacks callbacks;
    callbacks.log = [staging](const std::string& line) { staging->log(line); };
    callbacks.cancelled = [staging] { return staging->cancelled(); };
    return callbacks;
  }

 private:
  std::mutex m_mutex;
  std::vector<Item> m_items;
  std::vector<std::string> m_log;
  std::atomic<bool> m_cancel{false};
};

template <typename Result>
struct FinderOutcome {
  std::optional<Result> result;
  QString error;  // empty when result is set
  QString hint;
  bool badInput = false;  // the experiment or the options: the user can fix it
};

// Runs `find` on Qt's global thread pool; its result or its error comes back in the future.
template <typename Result>
QFuture<FinderOutcome<Result>> runFinder(std::function<Result()> find) {
  return QtConcurrent::run([find = std::move(find)] {
    FinderOutcome<Result> out;
    try {
      out.result = find();
    } catch (const UserError& e) {
      out.error = QString::fromStdString(e.what());
      out.hint = QString::fromStdString(e.hint());
      out.badInput = true;
    } catch (const std::bad_alloc&) {
      out.error = QStringLiteral("Out of host memory.");
      out.hint = QStringLiteral("Lower train.batch_size or data.limit, or close other programs.");
    } catch (const std::exception& e) {
      // LibTorch's messages carry a backtrace after the first line.
      const QString text = QString::fromStdString(e.what());
      out.error = text.section(QLatin1Char('\n'), 0, 0);
      if (text.contains(QLatin1String("out of memory"))) {
        out.hint = QStringLiteral("Lower train.batch_size (Tools ▸ Find Batch Size finds one that fits).");
      }
    } catch (...) {
      out.error = QStringLiteral("Unknown error");
    }
    return out;
  });
}

// One finder run for a dialog: started on a worker, what it staged handed to the dialog on a timer, cancelled by
// a flag it polls, its outcome handed back once after the last staged items. The dialogs keep only what they
// show; this is the run/cancel/drain skeleton they share.
template <typename Item, typename Result>
class FinderJob {
 public:
  // The finder's work on the worker: it reports through `callbacks` and hands each item to `report`.
  using Find = std::function<Result(const FinderCallbacks& callbacks, const std::function<void(const Item&)>& report)>;
  struct Handlers {
    std::function<void(std::vector<Item> items, std::vector<std::string> log)> staged;  // something was staged
    std::function<void(FinderOutcome<Result> outcome)> finished;
    std::function<void(bool running)> runningChanged;
  };

  // The handlers run on `owner`'s thread while it lives.
  FinderJob(QObject* owner, int drain_ms, Handlers handlers) : m_handlers(std::move(handlers)) {
    m_timer.setInterval(drain_ms);
    QObject::connect(&m_timer, &QTimer::timeout, owner, [this] { drain(); });
    QObject::connect(&m_watcher, &QFutureWatcherBase::finished, owner, [this] { finish(); });
  }
  // A finder in flight is cancelled, not waited for: the worker holds its own share of the staging area.
  ~FinderJob() {
    if (m_staging) m_staging->cancel();
  }
  FinderJob(const FinderJob&) = delete;
  FinderJob& operator=(const FinderJob&) = delete;

  void start(Find find) {
    if (m_running) return;
    m_staging = std::make_shared<Staging>();
    const std::shared_ptr<Staging> staging = m_staging;
    const FinderCallbacks callbacks = Staging::callbacksOf(staging);
    m_watcher.setFuture(runFinder<Result>([find = std::move(find), callbacks, staging] {
      return find(callbacks, [staging](const Item& item) { staging->add(item); });
    }));
    setRunning(true);
  }
  // False when nothing runs; the finder stops after the step in flight.
  bool cancel() {
    if (!m_running || !m_staging) return false;
    m_staging->cancel();
    return true;
  }
  bool isRunning() const { return m_running; }
  bool cancelled() const { return m_staging && m_staging->cancelled(); }

 private:
  using Staging = FinderStaging<Item>;

  void drain() {
    if (!m_staging) return;
    auto [items, log] = m_staging->take();
    if ((!items.empty() || !log.empty()) && m_handlers.staged) m_handlers.staged(std::move(items), std::move(log));
  }
  void finish() {
    drain();
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
  std::shared_ptr<Staging> m_staging;
  QFutureWatcher<FinderOutcome<Result>> m_watcher;
  QTimer m_timer;
  bool m_running = false;
};

}  // namespace wb::gui
