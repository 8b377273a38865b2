#include "run/run_lifecycle.h"

#include <utility>

namespace wb::gui {

bool RunLifecycle::beginCheck() {
  if (m_phase != Phase::Idle) return false;
  m_phase = Phase::Checking;
  return true;
}

void RunLifecycle::checkDone(bool passed) {
  if (m_phase != Phase::Checking) return;
  m_phase = passed ? Phase::Starting : Phase::Idle;
}

bool RunLifecycle::beginResume(const QString& dir) {
  if (m_phase != Phase::Idle) return false;
  m_phase = Phase::Resuming;
  m_resumingDir = dir;
  return true;
}

void RunLifecycle::controllerStateChanged(RunController::State state) {
  switch (state) {
    case RunController::State::Running:
      m_phase = Phase::Running;
      break;
    case RunController::State::Paused:
      m_phase = Phase::Paused;
      break;
    case RunController::State::Stopping:
      m_phase = Phase::Stopping;
      break;
    case RunController::State::Idle:
      break;  // finished() says what the end means
  }
}

bool RunLifecycle::resumeRefusedAsChanged() {
  if (m_resumingDir.isEmpty()) return false;
  m_refusedAsChanged = true;
  return true;
}

bool RunLifecycle::resumeAnywayChosen(const QString& dir) {
  if (m_phase == Phase::Idle) return true;
  m_resumeAnywayWhenIdle = dir;
  return false;
}

RunLifecycle::AfterFinish RunLifecycle::finished(bool jobs_left) {
  AfterFinish after;
  after.refused_as_changed = std::exchange(m_refusedAsChanged, false);
  m_phase = Phase::Idle;
  m_resumingDir.clear();
  after.close = closeAfterJob(jobs_left);
  // Quitting wins over a resume chosen meanwhile.
  after.resume_anyway = std::exchange(m_resumeAnywayWhenIdle, QString());
  if (after.close) after.resume_anyway.clear();
  return after;
}

bool RunLifecycle::jobEnded(bool jobs_left) {
  return closeAfterJob(jobs_left);
}

bool RunLifecycle::closeAfterJob(bool jobs_left) {
  if (m_quit == Quit::Asking && !jobs_left) m_quit = Quit::Pending;  // the question no longer means anything
  return m_quit == Quit::Pending && !jobs_left;
}

RunLifecycle::CloseAnswer RunLifecycle::closeRequested(bool jobs) const {
  switch (m_quit) {
    case Quit::Pending:
      return jobs ? CloseAnswer::Wait : CloseAnswer::Quit;
    case Quit::Asking:
      return CloseAnswer::RaiseQuestion;
    case Quit::None:
      break;
  }
  return jobs ? CloseAnswer::AskToStop : CloseAnswer::Close;
}

void RunLifecycle::quitAsked() {
  if (m_quit == Quit::None) m_quit = Quit::Asking;
}

bool RunLifecycle::quitConfirmed(bool jobs) {
  m_quit = Quit::Pending;
  return !jobs;
}

void RunLifecycle::quitCancelled() {
  if (m_quit == Quit::Asking) m_quit = Quit::None;
}

RunLifecycle::Actions RunLifecycle::actions() const {
  Actions a;
  const bool live = m_phase == Phase::Running || m_phase == Phase::Paused;
  a.start = m_phase == Phase::Idle;
  a.resume = m_phase == Phase::Idle;
  a.pause = live;
  a.stop = live;
  a.checkpoint = live;
  // Checking edits nothing yet: the form stays open until the run starts.
  a.change_experiment = m_phase == Phase::Idle || m_phase == Phase::Checking;
  a.paused = m_phase == Phase::Paused;
  return a;
}

const char* phaseName(RunLifecycle::Phase phase) {
  switch (phase) {
    case RunLifecycle::Phase::Idle:
      return "Idle";
    case RunLifecycle::Phase::Checking:
      return "Checking";
    case RunLifecycle::Phase::Starting:
      return "Starting";
    case RunLifecycle::Phase::Resuming:
      return "Resuming";
    case RunLifecycle::Phase::Running:
      return "Running";
    case RunLifecycle::Phase::Paused:
      return "Paused";
    case RunLifecycle::Phase::Stopping:
      return "Stopping";
  }
  return "?";
}

}  // namespace wb::gui
