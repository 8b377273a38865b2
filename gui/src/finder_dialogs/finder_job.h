#pragma once
// A finder (workbench/finders.h) on a worker thread for a dialog. The worker stages what it reports (points,
// trials, log lines) under a mutex and the dialog takes it all on its own timer: no signal per step, and the UI
// thread never waits on the finder. Cancel is a flag the finder polls between steps. Exceptions stop at the
// worker's edge and come back as text.

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QFuture>
#include <QString>
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

}  // namespace wb::gui
