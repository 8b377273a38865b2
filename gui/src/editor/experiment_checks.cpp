#include "editor/experiment_checks.h"

#include <QtConcurrent/QtConcurrent>
#include <exception>

namespace wb::gui {

ExperimentChecks::ExperimentChecks(std::function<void(const Result&)> onChecked, QObject* parent)
    : QObject(parent), m_onChecked(std::move(onChecked)) {
  connect(&m_watcher, &QFutureWatcher<Run>::finished, this, &ExperimentChecks::onFinished);
}

ExperimentChecks::~ExperimentChecks() {
  m_watcher.waitForFinished();
}

void ExperimentChecks::start(const Experiment& experiment) {
  if (m_running) {
    m_next = experiment;
    m_queued = true;
    return;
  }
  const int generation = ++m_generation;
  m_running = true;
  m_watcher.setFuture(QtConcurrent::run([experiment, generation] {
    Run run;
    run.generation = generation;
    try {
      run.result.issues = checkExperiment(experiment);
    } catch (const std::exception& e) {
      run.result.issues.push_back({"", e.what()});
    }
    try {
      run.result.curve = learningRateCurve(experiment);
    } catch (const std::exception& e) {
      run.result.curveError = QString::fromUtf8(e.what());
    }
    return run;
  }));
}

void ExperimentChecks::drop() {
  ++m_generation;  // a check still running describes an older form
  m_queued = false;
}

void ExperimentChecks::onFinished() {
  m_running = false;
  const Run run = m_watcher.result();
  if (m_queued) {
    m_queued = false;
    const Experiment next = *m_next;
    start(next);
    return;
  }
  if (run.generation == m_generation) m_onChecked(run.result);
}

}  // namespace wb::gui
