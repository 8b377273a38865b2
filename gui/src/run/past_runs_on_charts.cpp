#include "run/past_runs_on_charts.h"

#include <QDir>

#include "app/off_thread.h"
#include "run/run_follower.h"
#include "runs_browser/runs_browser.h"
#include "window/run_progress.h"
#include "workbench/errors.h"
#include "workbench/run_info.h"

namespace wb::gui {

LoadedHistory loadHistory(const QString& folder) {
  LoadedHistory out;
  out.folder = folder;
  try {
    out.history = loadRunHistory(folder.toStdString());
  } catch (const UserError& e) {
    out.error = QString::fromUtf8(e.what());
    out.hint = QString::fromStdString(e.hint());
  } catch (const std::exception& e) {
    out.error = QString::fromUtf8(e.what());
  }
  return out;
}

PastRunsOnCharts::PastRunsOnCharts(ChartsPanel* charts, RunsBrowser* runs, RunProgress* progress,
                                   std::function<bool()> liveRunBusy, ErrorPresenter presentError,
                                   QObject* parent)
    : QObject(parent),
      m_charts(charts),
      m_runs(runs),
      m_progress(progress),
      m_liveRunBusy(std::move(liveRunBusy)),
      m_presentError(std::move(presentError)),
      m_follower(new RunFollower(this)) {
  connect(m_runs, &RunsBrowser::openRequested, this, &PastRunsOnCharts::open);
  connect(m_runs, &RunsBrowser::backToLiveRequested, this, &PastRunsOnCharts::clear);
  connect(m_runs, &RunsBrowser::runRenamed, m_charts, &ChartsPanel::setTraceLabel);
  connect(m_runs, &RunsBrowser::runsDeleted, this, [this](const QStringList& folders) {
    for (const QString& folder : folders) m_charts->removeTrace(folder);
    emit changed();
  });
  connect(m_runs, &RunsBrowser::rowsLoaded, this, &PastRunsOnCharts::letGoOfStoppedRuns);
  connect(m_follower, &RunFollower::appended, this,
          [this](const QString& folder, const RunHistoryTail& tail) {
            if (!m_charts->hasTrace(folder)) {
              m_follower->unfollow(folder);
              return;
            }
            appendHistory(m_charts, folder, tail);
          });
  connect(m_follower, &RunFollower::rewound, this, [this](const QString& folder) {
    if (m_charts->hasTrace(folder)) open({folder}, false);  // read whole again, and followed from its end
  });
  connect(m_follower, &RunFollower::ended, this, [this](const QString& folder) {
    emit statusMessage(tr("Run %1 ended").arg(QDir(folder).dirName()), 4000);
  });
}

void PastRunsOnCharts::open(const QStringList& folders, bool replace) {
  if (replace) m_charts->clearTracesExcept(kLiveTrace);
  for (const QString& folder : folders) {
    ++m_pendingLoads;
    runOffThread(
        this, [folder] { return loadHistory(folder); },
        [this](const LoadedHistory& loaded) {
          --m_pendingLoads;
          show(loaded);
        });
  }
}

void PastRunsOnCharts::clear() {
  m_charts->clearTracesExcept(kLiveTrace);
  emit changed();
}

void PastRunsOnCharts::show(const LoadedHistory& loaded) {
  if (!loaded.history) {
    m_presentError(tr("Could not open the run %1").arg(QDir(loaded.folder).dirName()), loaded.error,
                   loaded.hint.isEmpty()
                       ? tr("Check that the folder is a run folder (it has experiment.json).")
                       : loaded.hint);
    return;
  }
  m_charts->addTrace(loaded.folder, labelFor(loaded.folder, *loaded.history),
                     loaded.history->experiment.task);
  appendHistory(m_charts, loaded.folder, *loaded.history);
  // While a run trains, the header keeps its devices; else it shows those of the run just opened.
  if (!m_liveRunBusy()) {
    m_progress->setDevices(loaded.history->experiment.train.devices,
                           tr("The devices of %1 (its experiment.json)").arg(QDir(loaded.folder).dirName()));
  }
  // Still training (no summary yet), by another process or this one: its new lines follow as they come.
  const std::optional<RunRecord> listed = m_runs->run(loaded.folder);
  if (!loaded.history->summary && !(listed && listed->status != RunIndexStatus::Running)) {
    m_follower->follow(loaded.folder, loaded.history->metrics_bytes);
  }
  emit changed();  // "Back to Live Run" while a run trains
  emit statusMessage(tr("Opened run %1").arg(QDir(loaded.folder).dirName()), 4000);
}

QString PastRunsOnCharts::labelFor(const QString& folder, const RunHistory& history) const {
  // The run's name (as listed, renamed or not) reads best in legends; the folder (its date) tells apart runs
  // of the same name.
  const std::optional<RunRecord> listed = m_runs->run(folder);
  QString label = QString::fromStdString(listed ? listed->name : experimentRunName(history.experiment));
  for (const QString& id : m_charts->traceIds()) {
    if (id != folder && m_charts->traceLabel(id) == label) label = QDir(folder).dirName();
  }
  return label;
}

void PastRunsOnCharts::letGoOfStoppedRuns() {
  // A followed run the index no longer lists as training (killed, interrupted) is let go; one that ended
  // normally lets itself go once its summary is written (after its last lines).
  for (const QString& id : m_charts->traceIds()) {
    const std::optional<RunRecord> record = m_runs->run(id);
    if (m_follower->follows(id) && record && record->status == RunIndexStatus::Interrupted)
      m_follower->unfollow(id);
  }
}

}  // namespace wb::gui
