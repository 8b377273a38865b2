#pragma once
// Runs the engine's evaluateRunDetailed for the window on a worker thread (a PoolJob): one evaluation at a
// time, its progress read by a timer (the worker only stores two numbers; no signal per batch), Cancel
// honoured between batches, and the report or the error handed back on the UI thread.

#include <QObject>
#include <QString>
#include <atomic>
#include <optional>

#include "app/pool_job.h"
#include "workbench/evaluation_report.h"

namespace wb::gui {

struct EvaluationOutcome {
  QString runDir;
  QString model;  // "" for the run's model.pt, else an artifact ("compressed/02-quantize")
  std::optional<EvaluationReport> report;  // set when it succeeded
  bool cancelled = false;
  QString error;  // what went wrong, when neither
  QString hint;   // what to do about it
};

class EvaluationController : public QObject {
  Q_OBJECT

 public:
  explicit EvaluationController(QObject* parent = nullptr);
  // Cancels an evaluation in flight and waits for it to notice (at most one batch, or the data load in
  // flight): it reads the run folder and holds the model's memory until then.
  ~EvaluationController() override;

  // False while another evaluation runs.
  bool start(const QString& runDir, const QString& model = QString(), int maxMisclassified = 48);
  void cancel();
  bool isActive() const { return m_job.isRunning(); }
  QString runDir() const { return m_runDir; }

 signals:
  void progress(qint64 done, qint64 total);  // test samples evaluated (0 of 0 while the data load)
  void finished(const wb::gui::EvaluationOutcome& outcome);

 private:
  struct Progress : JobState {
    std::atomic<int64_t> done{0};
    std::atomic<int64_t> total{0};
  };
  void poll(const Progress& progress);

  PoolJob<Progress, EvaluationOutcome> m_job;
  QString m_runDir;
  int64_t m_lastDone = -1;
};

}  // namespace wb::gui
