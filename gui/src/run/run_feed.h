#pragma once
// What the run in progress reports, shown as it arrives (RunController::eventsArrived, ~30 batches a second):
// its steps and epochs on the live trace of the Training charts, one append per chart per batch however many
// events it held; the engine's log lines and skipped steps in the log; its live changes logged and marked on
// the charts; the progress line. Errors are handed on (errorReported): what one asks of the window (a dialog,
// or "Resume Anyway?") depends on the run's lifecycle, which RunActions keeps.

#include <QObject>
#include <QString>
#include <cstdint>

#include "workbench/events.h"

namespace wb::gui {

class ChartsPanel;
class LogPanel;
class RunProgress;
class RunsBrowser;

// "Epoch 3: train loss 0.4123, train accuracy 85.10 %, val loss ..., val accuracy ... %" (`what` = "Epoch").
QString epochLine(const EpochMetrics& ep, const QString& what);

class RunFeed : public QObject {
  Q_OBJECT

 public:
  RunFeed(ChartsPanel* charts, RunsBrowser* runs, LogPanel* log, RunProgress* progress, QObject* parent);

  void show(const EventBatch& batch);
  // A run starts (or resumes): its first reported step is awaited again.
  void restart() { m_lastStep = 0; }
  int64_t lastStep() const { return m_lastStep; }

 signals:
  void stepReported(qint64 step);
  void errorReported(const wb::RunError& error);

 private:
  void showSteps(const std::vector<StepMetrics>& steps);

  ChartsPanel* m_charts;
  RunsBrowser* m_runs;
  LogPanel* m_log;
  RunProgress* m_progress;
  int64_t m_lastStep = 0;
};

}  // namespace wb::gui
