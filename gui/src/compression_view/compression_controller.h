#pragma once
// Owns the engine's CompressionRun for the window: starts it, asks it to stop, and turns the worker's event
// batches into one Qt signal per drain tick (as RunController does for training). Nothing here blocks the UI
// thread: the run is released (its thread joined) only once it has reported RunFinished and its worker is no
// longer running.

#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>

#include "run/event_buffer.h"
#include "run/job_drain.h"
#include "workbench/compression.h"
#include "workbench/events.h"

namespace wb::gui {

class CompressionController : public QObject {
  Q_OBJECT

 public:
  enum class State { Idle, Running, Stopping };

  explicit CompressionController(QObject* parent = nullptr);
  ~CompressionController() override;

  // False (and nothing happens) while a pipeline is active.
  bool start(const CompressRequest& request);
  // The pass in flight writes a checkpoint after its current step; the run then ends Interrupted.
  void stop();

  State state() const { return m_state; }
  bool isActive() const { return m_state != State::Idle; }
  QString runDir() const { return m_runDir; }  // of the active (or last) pipeline

 signals:
  void eventsArrived(const wb::EventBatch& batch);
  void stateChanged(wb::gui::CompressionController::State state);
  void finished(const wb::RunSummary& summary);

 private:
  void drain();
  void setState(State state);

  // Declared before m_run: the worker's sink writes into the buffer until the run is destroyed.
  std::shared_ptr<EventBuffer> m_buffer;
  std::unique_ptr<CompressionRun> m_run;
  QString m_runDir;
  QTimer m_drainTimer;
  State m_state = State::Idle;
  JobDrain m_drain;
};

}  // namespace wb::gui
