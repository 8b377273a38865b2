#pragma once
// Past runs on the Training charts, beside the live one: opened from the runs browser or the Sweeps tab, read
// off the UI thread, labelled by the name the runs list gives them (their folder's when two share a name),
// and followed as they grow while another process trains them. What the runs browser does to them (rename,
// delete, Back to Live Run) reaches the charts here. A run's history goes onto a trace in one place,
// appendHistory, for a resumed run's curves too.

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>

#include "charts/charts_panel.h"
#include "window/error_presenter.h"
#include "workbench/run_history.h"

namespace wb::gui {

class RunFollower;
class RunProgress;
class RunsBrowser;

// The trace of the run this window trains; every other trace is a past run, named by its folder.
inline const QString kLiveTrace = QStringLiteral("live");

// A run folder's history as read off the UI thread: the history, or why it could not be read.
struct LoadedHistory {
  QString folder;
  std::optional<RunHistory> history;
  QString error;
  QString hint;
};
LoadedHistory loadHistory(const QString& folder);

// A history (RunHistory, or the lines a followed run gained: RunHistoryTail) appended to a trace: its steps,
// epochs and live changes.
template <typename History>
void appendHistory(ChartsPanel* charts, const QString& trace, const History& history) {
  charts->appendSteps(trace, history.steps);
  charts->appendEpochs(trace, history.epochs);
  charts->addControlMarks(trace, history.controls);
}

class PastRunsOnCharts : public QObject {
  Q_OBJECT

 public:
  // `liveRunBusy` says whether this window is training a run: then the progress header keeps that run's
  // devices instead of showing an opened run's.
  PastRunsOnCharts(ChartsPanel* charts, RunsBrowser* runs, RunProgress* progress,
                   std::function<bool()> liveRunBusy, ErrorPresenter presentError, QObject* parent);

  // Reads each run folder off the UI thread and adds it to the charts; `replace` first removes the past runs
  // shown.
  void open(const QStringList& folders, bool replace);
  int pendingLoads() const { return m_pendingLoads; }
  // Keeps only the live run on the charts.
  void clear();
  RunFollower* follower() const { return m_follower; }

 signals:
  // The past runs on the charts changed: "Back to Live Run" and the like follow.
  void changed();
  void statusMessage(const QString& text, int timeoutMs);

 private:
  void show(const LoadedHistory& loaded);
  QString labelFor(const QString& folder, const RunHistory& history) const;
  void letGoOfStoppedRuns();

  ChartsPanel* m_charts;
  RunsBrowser* m_runs;
  RunProgress* m_progress;
  std::function<bool()> m_liveRunBusy;
  ErrorPresenter m_presentError;
  RunFollower* m_follower;
  int m_pendingLoads = 0;
};

}  // namespace wb::gui
