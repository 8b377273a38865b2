#include "workbench/training_run.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include "control/training_control.h"
#include "run_folder/event_stream.h"
#include "train/run_session.h"
#include "util/atomic_file.h"
#include "workbench/errors.h"
#include "workbench/process_launch.h"
#include "workbench/run_control.h"

namespace wb {

struct TrainingRun::Impl {
  Experiment experiment;
  std::optional<ResumeRequest> resume;
  std::optional<ProcessLaunch> launch;  // one rank of a job started by torchrun / Slurm
  EventSink sink;
  TrainingControl control;
  std::thread worker;
  std::atomic<bool> running{false};
  mutable std::mutex summary_mutex;
  RunSummary summary;

  void run();
};

void TrainingRun::Impl::run() {
  {
    RunSession session(experiment, resume, launch, control, sink);
    const RunSummary result = session.run();
    {
      std::lock_guard<std::mutex> lock(summary_mutex);
      summary = result;
    }
    // The end must reach the subscriber whatever the disk does: a failure to record it (EventStream::flush)
    // has already reached the subscriber as an error line.
    EventStream& events = session.eventStream();
    try {
      events.post(RunFinished{result});
    } catch (const FileWriteError&) {
    }
    try {
      events.flush();
    } catch (const FileWriteError&) {
    }
  }
  // Only now, with the session closed (its folder, index entry, request watcher and data let go), does the
  // worker say it has ended: a window that sees RunFinished and this then joins the thread at once, and its
  // UI thread never waits on the session's last disk writes or threads.
  running = false;
}

TrainingRun::TrainingRun(Experiment experiment, EventSink sink) : m_impl(std::make_unique<Impl>()) {
  m_impl->experiment = std::move(experiment);
  m_impl->sink = std::move(sink);
}

TrainingRun::TrainingRun(ResumeRequest request, EventSink sink) : m_impl(std::make_unique<Impl>()) {
  m_impl->resume = std::move(request);
  m_impl->sink = std::move(sink);
}

TrainingRun::~TrainingRun() {
  m_impl->control.requestStop();
  if (m_impl->worker.joinable()) m_impl->worker.join();
}

void TrainingRun::start() {
  if (m_impl->worker.joinable()) return;
  m_impl->running = true;
  m_impl->worker = std::thread([impl = m_impl.get()] {
    // GradMode, autocast and the CUDA device are per thread: everything the run sets up, it sets up here.
    impl->run();
  });
}

void TrainingRun::setProcessLaunch(const ProcessLaunch& launch) {
  m_impl->launch = launch;
}
void TrainingRun::setValidationJudge(ValidationJudge judge) {
  m_impl->control.setValidationJudge(std::move(judge));
}
void TrainingRun::setRunTags(std::vector<std::string> tags) {
  m_impl->control.setRunTags(std::move(tags));
}
void TrainingRun::pause() {
  m_impl->control.pause();
}
void TrainingRun::resume() {
  m_impl->control.resume();
}
void TrainingRun::requestStop() {
  m_impl->control.requestStop();
}
void TrainingRun::requestCheckpoint() {
  m_impl->control.requestCheckpoint();
}
void TrainingRun::setLearningRate(const LrChange& change) {
  const std::string problem = checkLrChange(change);
  if (!problem.empty())
    throw UserError("Cannot change the learning rate: " + problem + ".", "Give a positive number.");
  m_impl->control.requestLrChange(change);
}
void TrainingRun::requestProfile(const ProfileRequest& request) {
  const std::string bad = checkProfileRequest(request);
  if (!bad.empty()) throw UserError("Cannot profile: " + bad, "Ask for 1 or more steps.");
  m_impl->control.requestProfile(request);
}
void TrainingRun::stopAfterEpoch(const std::string& source) {
  m_impl->control.requestStopAfterEpoch(source);
}
bool TrainingRun::isRunning() const {
  return m_impl->running.load();
}
bool TrainingRun::isPaused() const {
  return m_impl->control.paused();
}

void TrainingRun::wait() {
  if (m_impl->worker.joinable()) m_impl->worker.join();
}

RunSummary TrainingRun::summary() const {
  std::lock_guard<std::mutex> lock(m_impl->summary_mutex);
  return m_impl->summary;
}

RunSummary trainBlocking(const Experiment& experiment, const TrainingRun::EventSink& sink) {
  TrainingRun run(experiment, sink);
  run.start();
  run.wait();
  return run.summary();
}

RunSummary resumeBlocking(const ResumeRequest& request, const TrainingRun::EventSink& sink) {
  TrainingRun run(request, sink);
  run.start();
  run.wait();
  return run.summary();
}

}  // namespace wb
