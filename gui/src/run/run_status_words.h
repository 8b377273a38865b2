#pragma once
// The one set of words for the state of a run, wherever the window shows it: the runs list, the progress
// line, the log and the status bar. A run the index calls "finished" is the same "Finished" the progress line
// says when it ends, and a run training is "Running" in the list as in the status bar.

#include <QCoreApplication>
#include <QString>
#include <string>

#include "run/run_controller.h"
#include "workbench/events.h"

namespace wb::gui {

// The run index's status (RunRecord::status: running | finished | failed | interrupted).
inline QString runStatusWord(const std::string& indexStatus) {
  if (indexStatus == "running") return QCoreApplication::translate("RunStatus", "Running");
  if (indexStatus == "finished") return QCoreApplication::translate("RunStatus", "Finished");
  if (indexStatus == "interrupted") return QCoreApplication::translate("RunStatus", "Interrupted");
  if (indexStatus == "failed") return QCoreApplication::translate("RunStatus", "Failed");
  return QString::fromStdString(indexStatus);  // a status a newer engine wrote: shown as it is
}

// How a run ended (RunSummary::status), in the index's words: an early stop is a finished run.
inline QString runStatusWord(RunStatus status) {
  switch (status) {
    case RunStatus::Completed:
      return runStatusWord("finished");
    case RunStatus::EarlyStopped:
      return QCoreApplication::translate("RunStatus", "Finished (stopped early)");
    case RunStatus::Interrupted:
      return runStatusWord("interrupted");
    case RunStatus::Failed:
      return runStatusWord("failed");
  }
  return runStatusWord("failed");
}

// The run in this window, while it is one.
inline QString runStateWord(RunController::State state) {
  switch (state) {
    case RunController::State::Idle:
      return QCoreApplication::translate("RunStatus", "Idle");
    case RunController::State::Running:
      return runStatusWord("running");
    case RunController::State::Paused:
      return QCoreApplication::translate("RunStatus", "Paused");
    case RunController::State::Stopping:
      return QCoreApplication::translate("RunStatus", "Stopping…");
  }
  return QString();
}

}  // namespace wb::gui
