#pragma once
// Run ▸ Start, Pause (Resume), Stop, Checkpoint now and Resume an Interrupted Run…: the run this window
// trains, from the editor's experiment (checked by the engine off the UI thread first) or an interrupted
// run's folder to its end. Owns the engine's run on its thread (RunController) and the lifecycle that enables
// these actions and answers the quit protocol (RunLifecycle); shows what the run reports through a RunFeed,
// and its state in the status bar's word (stateLabel). The editor is locked while a run shows its experiment.
// The window puts the actions in its menu and toolbar and the label in its status bar; tests drive it with
// the views alone.

#include <QObject>
#include <QString>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "run/run_controller.h"
#include "run/run_lifecycle.h"
#include "window/error_presenter.h"
#include "workbench/events.h"
#include "workbench/experiment.h"

class QAction;
class QLabel;
class QWidget;

namespace wb::gui {

class ChartsPanel;
class ExperimentEditor;
class LogPanel;
class RunFeed;
class RunProgress;
class RunsBrowser;
struct LoadedHistory;

class RunActions : public QObject {
  Q_OBJECT

 public:
  // Asks whether to resume a run whose experiment file changed since its checkpoint (the engine refused it,
  // naming the changes in `message`); calls `resumeAnyway` on yes. A window-modal dialog by default.
  using ForceResumeAsker = std::function<void(const QString& message, std::function<void()> resumeAnyway)>;

  struct Views {
    ExperimentEditor* editor;
    ChartsPanel* charts;
    RunsBrowser* runs;
    LogPanel* log;
    RunProgress* progress;
  };
  // `window` parents the dialogs; `otherJobsActive` says whether another job (a compression) still runs,
  // which quitting waits for too.
  RunActions(const Views& views, QWidget* window, ErrorPresenter presentError,
             std::function<bool()> otherJobsActive);

  QAction* startAction() const { return m_start; }
  QAction* pauseAction() const { return m_pause; }
  QAction* stopAction() const { return m_stop; }
  QAction* checkpointAction() const { return m_checkpoint; }
  QAction* resumeAction() const { return m_resume; }
  // "Idle", "Checking the experiment…", "Running", …: the status bar's word for the run.
  QLabel* stateLabel() const { return m_stateLabel; }

  RunController* controller() const { return m_controller; }
  const RunLifecycle& lifecycle() const { return m_lifecycle; }
  bool isCheckingStart() const { return m_lifecycle.phase() == RunLifecycle::Phase::Checking; }
  // The window's close protocol tells it of the quit question and its answer, and of a compression's end.
  RunLifecycle& lifecycle() { return m_lifecycle; }
  int64_t lastStep() const;

  // Start with what the editor holds: the form is parsed at once, then the engine's full checks run off the
  // UI thread and the run starts once they pass (else startRefused). True while those checks are under way;
  // false at once when the form has issues or a run (or another Start's check) is active.
  bool startRun();
  // Starts a given experiment as-is (the editor's checks are skipped: the engine still checks it).
  bool startExperiment(const Experiment& experiment);
  // Continues an interrupted run in its folder; `force` resumes even though its experiment file changed.
  bool resumeRun(const QString& runDir, bool force = false);
  void resumeDialog();
  void togglePause();
  void stopRun();
  void checkpointNow();

  void setForceResumeAsker(ForceResumeAsker asker) { m_askForceResume = std::move(asker); }
  // Enables the actions from the lifecycle.
  void updateActions();

 signals:
  void stepReported(qint64 step);
  // Start was refused by the engine's checks: `problems` is their text as the CLI prints it.
  void startRefused(const QString& problems);
  void runEnded(const wb::RunSummary& summary);
  // A run (new or resumed) is about to be drawn on the Training charts: what else is drawn there for a
  // finished job (a compression's fine-tuning) makes room.
  void runStarting();
  // An interrupted run is about to resume with its own experiment.json: the form shows it (the window's
  // document brings it in, as Clone into Editor does).
  void resumeStarting(const QString& runDir);
  // The user asked to quit while the run trained, and it has ended: the window closes now.
  void quitReady();
  // The lifecycle moved: what else depends on it (the File actions, the runs browser) follows.
  void changed();

 private:
  void onStartChecked(const Experiment& experiment, const std::vector<ValidationIssue>& issues);
  void onResumeLoaded(const QString& runDir, bool force, const LoadedHistory& loaded);
  void onError(const RunError& error);
  void onStateChanged(RunController::State state);
  void onRunFinished(const RunSummary& summary);
  void beginLiveTrace(const QString& label, std::optional<TaskKind> task);
  void refresh();  // updateActions, then changed

  Views m_views;
  QWidget* m_window;
  ErrorPresenter m_presentError;
  ForceResumeAsker m_askForceResume;
  std::function<bool()> m_otherJobsActive;
  RunController* m_controller;
  RunFeed* m_feed;
  RunLifecycle
      m_lifecycle;  // checking, starting, resuming, running, paused, stopping; Resume Anyway; quitting
  QLabel* m_stateLabel;
  QAction* m_start = nullptr;
  QAction* m_pause = nullptr;
  QAction* m_stop = nullptr;
  QAction* m_checkpoint = nullptr;
  QAction* m_resume = nullptr;
};

}  // namespace wb::gui
