#pragma once
// The engine's checks of a parsed experiment (checkExperiment) and its learning-rate curve, on a worker
// thread: they read dataset headers and build the model to check shapes, which is not for the UI thread. One
// check runs at a time; an experiment asked for meanwhile waits (the last one asked for), and a result that
// describes an older form than the last one asked for is dropped.

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

#include "workbench/experiment.h"
#include "workbench/lr_preview.h"

namespace wb::gui {

class ExperimentChecks : public QObject {
  Q_OBJECT

 public:
  struct Result {
    std::vector<ValidationIssue> issues;
    std::optional<LrCurve> curve;
    QString curveError;  // why there is no curve
  };

  // `onChecked` gets the result of the last experiment started, on the UI thread.
  explicit ExperimentChecks(std::function<void(const Result&)> onChecked, QObject* parent = nullptr);
  // Waits for the check running: it holds only copies, but must not write to a dead watcher.
  ~ExperimentChecks() override;

  void start(const Experiment& experiment);
  // The form changed and cannot be checked (it has issues of its own): what runs or waits is of an older
  // form.
  void drop();
  bool pending() const { return m_running || m_queued; }

 private:
  struct Run {
    int generation = 0;
    Result result;
  };

  void onFinished();

  std::function<void(const Result&)> m_onChecked;
  QFutureWatcher<Run> m_watcher;
  int m_generation = 0;
  bool m_running = false;
  bool m_queued = false;
  std::optional<Experiment> m_next;
};

}  // namespace wb::gui
