#include "evaluate/evaluation_controller.h"

#include "workbench/errors.h"

namespace wb::gui {
namespace {

constexpr int kPollMs = 100;

}  // namespace

EvaluationController::EvaluationController(QObject* parent)
    : QObject(parent),
      m_job(this, kPollMs,
            {[this](const Progress& progress) { poll(progress); },
             [this](EvaluationOutcome outcome) { emit finished(outcome); },
             {}}) {}

EvaluationController::~EvaluationController() {
  m_job.cancelAndWait();
}

bool EvaluationController::start(const QString& runDir, const QString& model, int maxMisclassified) {
  if (m_job.isRunning()) return false;
  m_runDir = runDir;
  m_lastDone = -1;  // the job's first poll says 0 of 0 (the data loading)
  return m_job.start([runDir, model, maxMisclassified](Progress& shared) {
    EvaluationOutcome outcome;
    outcome.runDir = runDir;
    outcome.model = model;
    EvaluationOptions options;
    options.model = model.toStdString();
    options.max_misclassified = maxMisclassified;
    options.cancel = &shared.cancel_requested;
    options.progress = [&shared](int64_t done, int64_t total) {
      shared.total = total;
      shared.done = done;
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
    } catch (...) {
      outcome.error = tr("An unknown error stopped the evaluation.");
    }
    return outcome;
  });
}

void EvaluationController::cancel() {
  m_job.cancel();
}

void EvaluationController::poll(const Progress& progress) {
  const int64_t done = progress.done;
  if (done == m_lastDone) return;
  m_lastDone = done;
  emit this->progress(done, progress.total);
}

}  // namespace wb::gui
