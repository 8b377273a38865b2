#pragma once
// The Evaluation view of a finished run: its model (or a compressed artifact) on the run's test split — test
// accuracy and loss, precision, recall and F1 per class, the confusion matrix as a heatmap, and the most
// confident mistakes as a grid of test images. The same figures as `workbench-cli eval`; computed on a worker
// thread with progress and Cancel.

#include <QString>
#include <QWidget>
#include <optional>

#include "evaluate/evaluation_controller.h"
#include "workbench/evaluation_report.h"

class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTableWidget;

namespace wb::gui {

class ConfusionMatrixWidget;
class MisclassifiedGrid;

// Per-class table columns, in order.
enum ClassColumn {
  kEvalClassColumn,
  kEvalPrecisionColumn,
  kEvalRecallColumn,
  kEvalF1Column,
  kEvalSupportColumn,
  kEvalColumns
};

class EvaluationView : public QWidget {
  Q_OBJECT

 public:
  explicit EvaluationView(QWidget* parent = nullptr);

  // Evaluates a run's model.pt (or `model`, an artifact such as "compressed/02-quantize"). False when an
  // evaluation is already running (the user is told in the view).
  bool evaluate(const QString& runDir, const QString& model = QString());
  void cancel();
  bool isEvaluating() const { return m_controller->isActive(); }
  QString runDir() const { return m_runDir; }
  // The last finished evaluation's report (nullopt before one, or after one failed).
  const std::optional<EvaluationReport>& report() const { return m_report; }

  QLabel* summaryLabel() const { return m_summary; }
  QTableWidget* classTable() const { return m_classes; }
  ConfusionMatrixWidget* matrix() const { return m_matrix; }
  MisclassifiedGrid* grid() const { return m_grid; }
  QProgressBar* progressBar() const { return m_progress; }
  EvaluationController* controller() const { return m_controller; }

 signals:
  void evaluationStarted(const QString& runDir);
  // ok: a report is shown; else it failed (error and hint say why; empty for a cancel).
  void evaluationFinished(bool ok, const QString& error, const QString& hint);

 private:
  QHBoxLayout* buildHeader();
  QSplitter* buildReport();
  void onProgress(qint64 done, qint64 total);
  void onFinished(const EvaluationOutcome& outcome);
  // The report as its task's view shows it (EvaluationReport::task).
  void showReport(const EvaluationReport& report);
  // Classification's: the summary line, the per-class table, the confusion matrix, the mistakes' grid.
  void showClassificationReport(const EvaluationReport& report);
  void showEmpty(const QString& text);

  EvaluationController* m_controller;
  QString m_runDir;
  std::optional<EvaluationReport> m_report;
  QLabel* m_title;
  QLabel* m_summary;
  QProgressBar* m_progress;
  QPushButton* m_cancel;
  QTableWidget* m_classes;
  ConfusionMatrixWidget* m_matrix;
  QLabel* m_gridTitle;
  MisclassifiedGrid* m_grid;
};

}  // namespace wb::gui
