#include "compression_view/compression_controller.h"

#include <optional>
#include <variant>

namespace wb::gui {
namespace {

constexpr int kCompressionDrainIntervalMs = 33;  // as RunController: live enough, one UI update per tick

}  // namespace

CompressionController::CompressionController(QObject* parent)
    : QObject(parent), m_buffer(std::make_shared<EventBuffer>()) {
  m_drainTimer.setInterval(kCompressionDrainIntervalMs);
  connect(&m_drainTimer, &QTimer::timeout, this, &CompressionController::drain);
}

CompressionController::~CompressionController() {
  // Reached at exit only after the window has stopped the pipeline and seen it end, so the join is immediate;
  // CompressionRun's destructor requests a stop before joining in any case.
  m_drainTimer.stop();
  m_run.reset();
}

bool CompressionController::start(const CompressRequest& request) {
  if (isActive()) return false;
  m_buffer->take();  // nothing of an earlier pipeline may leak into this one
  m_drain.restart();
  m_runDir = QString::fromStdString(request.run_dir);
  std::shared_ptr<EventBuffer> buffer = m_buffer;
  m_run = std::make_unique<CompressionRun>(request,
                                           [buffer](EventBatch&& batch) { buffer->push(std::move(batch)); });
  m_run->start();
  m_drainTimer.start();
  setState(State::Running);
  return true;
}

void CompressionController::stop() {
  if (m_state != State::Running) return;
  m_run->requestStop();
  setState(State::Stopping);
}

void CompressionController::drain() {
  const JobDrain::Tick tick = m_drain.take(*m_buffer, m_run && m_run->isRunning());
  if (!tick.batch.empty()) emit eventsArrived(tick.batch);
  if (tick.ended && m_run) {
    RunSummary summary;
    if (tick.summary) {
      summary = *tick.summary;
    } else {
      const CompressionReport report = m_run->report();
      summary.status = report.status;
      summary.run_dir = report.run_dir;
    }
    m_run.reset();
    m_drainTimer.stop();
    setState(State::Idle);
    emit finished(summary);
  }
}

void CompressionController::setState(State state) {
  if (state == m_state) return;
  m_state = state;
  emit stateChanged(state);
}

}  // namespace wb::gui
