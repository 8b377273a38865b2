#pragma once
// The one set of words for the state of a run, wherever the window shows it: the runs list, the progress
// line, the log and the status bar. A run the index calls "finished" is the same "Finished" the progress line
// says when it ends, and a run training is "Running" in the list as in the status bar.

#include <QCoreApplication>
#include <QString>
#include <string>

#include "run/run_controller.h"
#include "workbench/events.h"
#include "workbench/run_index.h"

namespace wb::gui {

// The run index's status (RunRecord::status).
inline QString runStatusWord(RunIndexStatus status) {
  switch (status) {
    case RunIndexStatus::Running:
      return QCoreApplication::translate("RunStatus", "Running");
    case RunIndexStatus::Finished:
      return QCoreApplication::translate("RunStatus", "Finished");
    case RunIndexStatus::Interrupted:
      return QCoreApplication::translate("RunStatus", "Interrupted");
    case RunIndexStatus::Failed:
      return QCoreApplication::translate("RunStatus", "Failed");
    case RunIndexStatus::Unknown:  // a status a newer engine wrote in the index
      break;
  }
  return QCoreApplication::translate("RunStatus", "Unknown");
}

// How a run ended (RunSummary::status), in the index's words (wb::indexStatus): an early stop is a finished
// run, said so.
inline QString runStatusWord(RunStatus status) {
  if (status == RunStatus::EarlyStopped)
    return QCoreApplication::translate("RunStatus", "Finished (stopped early)");
  return runStatusWord(indexStatus(status));
}

// The run in this window, while it is one.
inline QString runStateWord(RunController::State state) {
  switch (state) {
    case RunController::State::Idle:
      return QCoreApplication::translate("RunStatus", "Idle");
    case RunController::State::Running:
      return runStatusWord(RunIndexStatus::Running);
    case RunController::State::Paused:
      return QCoreApplication::translate("RunStatus", "Paused");
    case RunController::State::Stopping:
      return QCoreApplication::translate("RunStatus", "Stopping…");
  }
  return QString();
}

}  // namespace wb::gui
