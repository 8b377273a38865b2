#include "evaluate/evaluation_controller.h"

#include <QtConcurrent/QtConcurrent>

#include "workbench/errors.h"

namespace wb::gui {
namespace {

constexpr int kPollMs = 100;

}  // namespace

EvaluationController::EvaluationController(QObject* parent) : QObject(parent) {
  m_poll.setInterval(kPollMs);
  connect(&m_poll, &QTimer::timeout, this, &EvaluationController::poll);
  connect(&m_watcher, &QFutureWatcher<EvaluationOutcome>::finished, this, &EvaluationController::onFinished);
}

EvaluationController::~EvaluationController() {
  if (m_active) {
    m_progress->cancel = true;
    m_watcher.waitForFinished();
  }
}

bool EvaluationController::start(const QString& runDir, const QString& model, int maxMisclassified) {
  if (m_active) return false;
  m_active = true;
  m_runDir = runDir;
  m_lastDone = -1;
  m_progress = std::make_shared<Progress>();
  std::shared_ptr<Progress> shared = m_progress;
  m_watcher.setFuture(QtConcurrent::run([shared, runDir, model, maxMisclassified] {
    EvaluationOutcome outcome;
    outcome.runDir = runDir;
    outcome.model = model;
    EvaluationOptions options;
    options.model = model.toStdString();
    options.max_misclassified = maxMisclassified;
    options.cancel = &shared->cancel;
    options.progress = [shared](int64_t done, int64_t total) {
      shared->total = total;
      shared->done = done;
    };
    // Caught here, at the thread's edge: the UI thread gets words, never an exception.
    try {
      outcome.report = evaluateRunDetailed(runDir.toStdString(), options);
    } catch (const EvaluationCancelled&) {
      outcome.cancelled = true;
    } catch (const UserError& e) {
      outcome.error = QString::fromUtf8(e.what());
      outcome.hint = QString::fromStdString(e.hint());
    } catch (const std::exception& e) {
      outcome.error = QString::fromUtf8(e.what());
    }
    return outcome;
  }));
  m_poll.start();
  emit progress(0, 0);
  return true;
}

void EvaluationController::cancel() {
  if (m_active) m_progress->cancel = true;
}

void EvaluationController::poll() {
  if (!m_progress) return;
  const int64_t done = m_progress->done;
  if (done == m_lastDone) return;
  m_lastDone = done;
  emit progress(done, m_progress->total);
}

void EvaluationController::onFinished() {
  m_poll.stop();
  poll();
  m_active = false;
  emit finished(m_watcher.result());
}

}  // namespace wb::gui
