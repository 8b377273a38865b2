#include "run/run_controller.h"

#include <variant>

#include "workbench/experiment.h"

namespace wb::gui {
namespace {

// ~30 Hz: fast enough that the plots look live, slow enough that a UI update per tick costs nothing.
constexpr int kRunDrainIntervalMs = 33;

}  // namespace

RunController::RunController(QObject* parent) : QObject(parent), m_buffer(std::make_shared<EventBuffer>()) {
  m_drainTimer.setInterval(kRunDrainIntervalMs);
  connect(&m_drainTimer, &QTimer::timeout, this, &RunController::drain);
}

RunController::~RunController() {
  // Only reached at application exit: the window has already stopped the run and waited for it
  // asynchronously, so this join is immediate in practice. TrainingRun's destructor requests a stop before
  // joining.
  m_drainTimer.stop();
  m_run.reset();
}

bool RunController::start(const Experiment& experiment) {
  if (isActive()) return false;
  m_experiment = experiment;
  std::shared_ptr<EventBuffer> buffer = m_buffer;
  launch(std::make_unique<TrainingRun>(experiment,
                                       [buffer](EventBatch&& batch) { buffer->push(std::move(batch)); }));
  return true;
}

bool RunController::resumeInterrupted(const ResumeRequest& request) {
  if (isActive()) return false;
  // The folder's experiment gives the progress bar its epochs; a damaged folder is the engine's to report.
  const ParseResult parsed = loadExperimentFile(request.run_dir + "/experiment.json");
  if (parsed.ok()) {
    m_experiment = parsed.experiment;
  } else {
    m_experiment.reset();
  }
  std::shared_ptr<EventBuffer> buffer = m_buffer;
  launch(std::make_unique<TrainingRun>(request,
                                       [buffer](EventBatch&& batch) { buffer->push(std::move(batch)); }));
  return true;
}

void RunController::launch(std::unique_ptr<TrainingRun> run) {
  m_buffer->take();  // nothing of an earlier run may leak into this one
  m_drain.restart();
  m_stopAfterEpoch = false;
  m_run = std::move(run);
  m_run->start();
  m_drainTimer.start();
  setState(State::Running);
}

void RunController::pause() {
  if (m_state != State::Running) return;
  m_run->pause();
  setState(State::Paused);
}

void RunController::resume() {
  if (m_state != State::Paused) return;
  m_run->resume();
  setState(State::Running);
}

void RunController::stop() {
  if (m_state != State::Running && m_state != State::Paused) return;
  m_run->requestStop();
  // A paused worker sleeps on the control's condition variable; resuming lets it see the stop.
  m_run->resume();
  setState(State::Stopping);
}

void RunController::requestCheckpoint() {
  if (m_state == State::Running || m_state == State::Paused) m_run->requestCheckpoint();
}

void RunController::setLearningRate(const LrChange& change) {
  if (m_state == State::Running || m_state == State::Paused) m_run->setLearningRate(change);
}

void RunController::requestProfile(const ProfileRequest& request) {
  if (m_state == State::Running || m_state == State::Paused) m_run->requestProfile(request);
}

void RunController::stopAfterEpoch() {
  if (m_state != State::Running && m_state != State::Paused) return;
  m_run->stopAfterEpoch("the window");
  m_stopAfterEpoch = true;
}

void RunController::drain() {
  const JobDrain::Tick tick = m_drain.take(*m_buffer, m_run && m_run->isRunning());
  if (!tick.batch.empty()) emit eventsArrived(tick.batch);
  if (tick.ended && m_run) {
    const RunSummary summary = tick.summary ? *tick.summary : m_run->summary();
    m_run.reset();
    m_drainTimer.stop();
    setState(State::Idle);
    emit runFinished(summary);
  }
}

void RunController::setState(State state) {
  if (state == m_state) return;
  m_state = state;
  emit stateChanged(state);
}

}  // namespace wb::gui
