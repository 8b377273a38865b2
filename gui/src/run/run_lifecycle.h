#pragma once
// The window's run lifecycle as a state machine without widgets: which of Start, Resume, Pause, Stop and
// Checkpoint each phase allows, the "Resume Anyway" question when the engine refuses a resume because the
// run's experiment changed, and the quit protocol (ask while a job runs, stop it, close once it has ended).
// The window feeds it what happens (the user's actions, the engine's checks and events, the controller's
// state, the end of a run) and does what it answers; tests drive it with those events alone, without a window
// or a run.

#include <QString>

#include "run/run_controller.h"

namespace wb::gui {

class RunLifecycle {
 public:
  enum class Phase {
    Idle,
    Checking,  // Start's engine checks run off the UI thread; the run starts when they pass
    Starting,  // handed to the controller: loading data, building the model
    Resuming,  // a resume: its curves load off the UI thread, then the controller resumes it
    Running,
    Paused,
    Stopping,  // the step in flight finishes and a checkpoint is written
  };
  Phase phase() const { return m_phase; }
  // A run is being checked, started, resumed or trained: only one at a time.
  bool busy() const { return m_phase != Phase::Idle; }

  // Start: Idle → Checking. False (nothing changes) in any other phase.
  bool beginCheck();
  // The checks' answer: Starting when they passed (the window starts the run), else Idle again.
  void checkDone(bool passed);
  // Resume of the run folder `dir`: Idle → Resuming. False in any other phase.
  bool beginResume(const QString& dir);
  // What the controller says (RunController::stateChanged). Its Idle is the end of the run: see finished().
  void controllerStateChanged(RunController::State state);

  // The engine refused the resume in progress because the run's experiment changed since its checkpoint: true
  // when the window should ask whether to resume anyway (a resume is in progress).
  bool resumeRefusedAsChanged();
  // "Resume Anyway" chosen for `dir`: true when it may start now (the refused attempt has wound down);
  // otherwise it is kept and finished() hands it back.
  bool resumeAnywayChosen(const QString& dir);

  // What the run's end asks of the window. The phase is Idle after it.
  struct AfterFinish {
    bool refused_as_changed = false;  // the run did not fail: the resume was refused and the question is open
    bool close = false;               // the user asked to quit: close the window now
    QString resume_anyway;            // resume this folder anyway (after the end has been handled)
  };
  // The run ended; `jobs_left` = another job (a compression) is still running, which quitting waits for too.
  AfterFinish finished(bool jobs_left);
  // A compression ended: true when the window should close now (quit pending and nothing left running).
  bool jobEnded(bool jobs_left);

  // The window is asked to close; `jobs` = a run or a compression is running. Asks nothing of the user
  // itself: for Close and AskToStop the window first confirms discarding unsaved edits.
  enum class CloseAnswer {
    Close,          // nothing runs: close
    AskToStop,      // open "Stop and quit?", then quitAsked(); its answer: quitConfirmed or quitCancelled
    RaiseQuestion,  // "Stop and quit?" is already open: bring it up, do not close
    Wait,           // quitting already: closes once the jobs have ended (finished / jobEnded say when)
    Quit,           // quitting, and the jobs have ended: close and quit the application
  };
  CloseAnswer closeRequested(bool jobs) const;
  void quitAsked();
  // "Stop and quit?" answered yes: the window stops its jobs and closes once they have ended; true when that
  // is already the case (close now).
  bool quitConfirmed(bool jobs);
  void quitCancelled();
  bool quitPending() const { return m_quit == Quit::Pending; }
  bool quitQuestionOpen() const { return m_quit == Quit::Asking; }

  // Which run actions are enabled now.
  struct Actions {
    bool start = false;
    bool resume = false;
    bool pause = false;  // Pause or, when paused, Resume
    bool stop = false;
    bool checkpoint = false;
    bool change_experiment = false;  // New, Open, Open Recent: not while a run shows its experiment
    bool paused = false;             // the pause action reads "Resume"
  };
  Actions actions() const;

  // The run folder being resumed, while it is.
  const QString& resumingDir() const { return m_resumingDir; }

 private:
  enum class Quit { None, Asking, Pending };
  // An ended job may leave "Stop and quit?" with nothing to stop: the question is withdrawn and the quit goes
  // ahead.
  bool closeAfterJob(bool jobs_left);

  Phase m_phase = Phase::Idle;
  QString m_resumingDir;
  bool m_refusedAsChanged = false;
  QString m_resumeAnywayWhenIdle;
  Quit m_quit = Quit::None;
};

// "Idle", "Checking", ... for logs and test messages.
const char* phaseName(RunLifecycle::Phase phase);

}  // namespace wb::gui
