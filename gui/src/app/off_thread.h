#pragma once
// A one-shot job off the UI thread: `work` runs on Qt's global thread pool and its result goes to `done` on
// `context`'s thread, or nowhere if `context` is gone by then. The UI thread never waits; the watcher deletes
// itself. For the window's short jobs (checking an experiment, reading a run's history, listing the runs);
// runs and compressions report through JobDrain, and the finders, exports and evaluations through PoolJob
// (pool_job.h), which show progress while they work.

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrent>
#include <type_traits>
#include <utility>

namespace wb::gui {

template <typename Work, typename Done>
void runOffThread(QObject* context, Work work, Done done) {
  using Result = std::invoke_result_t<Work>;
  auto* watcher = new QFutureWatcher<Result>(context);
  QObject::connect(watcher, &QFutureWatcherBase::finished, context,
                   [watcher, done = std::move(done)]() mutable {
                     watcher->deleteLater();
                     done(watcher->result());
                   });
  watcher->setFuture(QtConcurrent::run(std::move(work)));
}

}  // namespace wb::gui
