#pragma once
// A finder (workbench/finders.h) on a worker thread for a dialog. The worker stages what it reports (points,
// trials, log lines) under a mutex and the dialog takes it all on a timer: no signal per step, and the UI
// thread never waits on the finder. Cancel is a flag the finder polls between steps. Exceptions stop at the
// worker's edge and come back as text. FinderJob puts the pieces together for a dialog, on the shared
// PoolJob.

#include <QObject>
#include <QString>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/pool_job.h"
#include "workbench/errors.h"
#include "workbench/finders.h"

namespace wb::gui {

template <typename Item>
class FinderStaging : public JobState {
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

  // The callbacks a finder reports through, into this staging area (which outlives the finder: the job holds
  // it).
  FinderCallbacks callbacks() {
    FinderCallbacks callbacks;
    callbacks.log = [this](const std::string& line) { log(line); };
    callbacks.cancelled = [this] { return cancelled(); };
    return callbacks;
  }

 private:
  std::mutex m_mutex;
  std::vector<Item> m_items;
  std::vector<std::string> m_log;
};

template <typename Result>
struct FinderOutcome {
  std::optional<Result> result;
  QString error;  // empty when result is set
  QString hint;
  bool badInput = false;  // the experiment or the options: the user can fix it
};

// Runs `find` on the calling thread (the job's worker), its result or its error as the outcome: the thread's
// edge.
template <typename Result>
FinderOutcome<Result> runFinder(const std::function<Result()>& find) {
  FinderOutcome<Result> out;
  {
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
  }
  return out;
}

// One finder run for a dialog: started on a worker, what it staged handed to the dialog on a timer, cancelled
// by a flag it polls, its outcome handed back once after the last staged items (a PoolJob). The dialogs keep
// only what they show; this is the run/cancel/drain skeleton they share.
template <typename Item, typename Result>
class FinderJob {
 public:
  // The finder's work on the worker: it reports through `callbacks` and hands each item to `report`.
  using Find =
      std::function<Result(const FinderCallbacks& callbacks, const std::function<void(const Item&)>& report)>;
  struct Handlers {
    std::function<void(std::vector<Item> items, std::vector<std::string> log)>
        staged;  // something was staged
    std::function<void(FinderOutcome<Result> outcome)> finished;
    std::function<void(bool running)> runningChanged;
  };

  // The handlers run on `owner`'s thread while it lives.
  FinderJob(QObject* owner, int drain_ms, Handlers handlers)
      : m_job(owner, drain_ms,
              {[staged = handlers.staged](Staging& staging) {
                 auto [items, log] = staging.take();
                 if ((!items.empty() || !log.empty()) && staged) staged(std::move(items), std::move(log));
               },
               std::move(handlers.finished), std::move(handlers.runningChanged)}) {}

  void start(Find find) {
    m_job.start([find = std::move(find)](Staging& staging) {
      return runFinder<Result>(
          [&] { return find(staging.callbacks(), [&staging](const Item& item) { staging.add(item); }); });
    });
  }
  // False when nothing runs; the finder stops after the step in flight.
  bool cancel() { return m_job.cancel(); }
  bool isRunning() const { return m_job.isRunning(); }
  bool cancelled() const { return m_job.cancelled(); }

 private:
  using Staging = FinderStaging<Item>;
  PoolJob<Staging, FinderOutcome<Result>> m_job;
};

}  // namespace wb::gui
