#pragma once
// Owns the engine's TrainingRun for the window: starts, pauses, stops it, and turns the worker's event
// batches into one Qt signal per drain tick. Nothing here blocks the UI thread: the run is released (and its
// thread joined) only once it has reported RunFinished and its worker is no longer running.

#include <QObject>
#include <QTimer>
#include <memory>
#include <optional>

#include "run/event_buffer.h"
#include "run/job_drain.h"
#include "workbench/events.h"
#include "workbench/experiment.h"
#include "workbench/training_run.h"

namespace wb::gui {

class RunController : public QObject {
  Q_OBJECT

 public:
  enum class State { Idle, Running, Paused, Stopping };

  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  // False (and nothing happens) while another run is active.
  bool start(const Experiment& experiment);
  bool resumeInterrupted(const ResumeRequest& request);

  void pause();
  void resume();
  void stop();  // the engine finishes the step in flight and writes a checkpoint; the run ends Interrupted
  void requestCheckpoint();
  // Live changes (Run ▸ Change Learning Rate…, Stop After This Epoch): taken by the engine at its next step
  // boundary, confirmed by a ControlApplied event. Nothing happens unless a run is running or paused.
  void setLearningRate(const LrChange& change);
  void stopAfterEpoch();
  bool stopAfterEpochRequested() const { return m_stopAfterEpoch; }
  // Run ▸ Profile Steps…: the engine records the steps from its next step boundary (a paused run after
  // Resume) and reports them with a ProfileRecorded event. Nothing happens unless a run is running or paused.
  void requestProfile(const ProfileRequest& request);

  State state() const { return m_state; }
  bool isActive() const { return m_state != State::Idle; }
  // The experiment of the active (or last) run; for a resumed run, read from its folder.
  const std::optional<Experiment>& experiment() const { return m_experiment; }

 signals:
  void eventsArrived(const wb::EventBatch& batch);
  void stateChanged(wb::gui::RunController::State state);
  void runFinished(const wb::RunSummary& summary);

 private:
  void launch(std::unique_ptr<TrainingRun> run);
  void drain();
  void setState(State state);

  // Declared before m_run: the worker's sink writes into the buffer until the run is destroyed.
  std::shared_ptr<EventBuffer> m_buffer;
  std::unique_ptr<TrainingRun> m_run;
  std::optional<Experiment> m_experiment;
  QTimer m_drainTimer;
  State m_state = State::Idle;
  JobDrain m_drain;
  bool m_stopAfterEpoch = false;  // asked during the active run (cannot be taken back)
};

}  // namespace wb::gui
