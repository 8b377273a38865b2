#pragma once
// Tools ▸ Find Learning Rate: the learning-rate range test (workbench/finders.h) on the experiment in the
// form, run on a worker thread with progress and Cancel; the loss against the learning rate on a logarithmic
// axis (raw and smoothed), the suggested rate marked with the rule that chose it, and "Apply to Experiment"
// to put it into the form's optimizer.lr.

#include <QDialog>
#include <functional>
#include <memory>
#include <optional>

#include "finder_dialogs/finder_job.h"
#include "workbench/experiment.h"
#include "workbench/finders.h"

class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace wb::gui {

class LrFinderDialog : public QDialog {
  Q_OBJECT

 public:
  // `apply` puts a learning rate into the experiment's form; false when the form takes no edits now.
  LrFinderDialog(const Experiment& experiment, std::function<bool(double)> apply, QWidget* parent = nullptr);
  ~LrFinderDialog() override;  // cancels a test in flight without waiting for it

  void start();
  void cancel();
  bool isRunning() const { return m_job.isRunning(); }
  const std::optional<LrFinderResult>& result() const { return m_result; }

  QCustomPlot* plot() const { return m_plot; }
  QSpinBox* stepsBox() const { return m_steps; }
  QPushButton* runButton() const { return m_run; }
  QPushButton* applyButton() const { return m_apply; }
  QLabel* summaryLabel() const { return m_summary; }

 signals:
  void finderFinished();

 private:
  void buildPlot();
  void applySuggestion();
  void onStaged(const std::vector<LrFinderPoint>& points, const std::vector<std::string>& log);
  void onFinished(FinderOutcome<LrFinderResult> outcome);
  void onRunningChanged(bool running);
  void addPoints(const std::vector<LrFinderPoint>& points);
  void showSuggestion();
  void rescale();

  Experiment m_experiment;
  std::function<bool(double)> m_applyLr;
  QSpinBox* m_steps = nullptr;
  QLineEdit* m_start = nullptr;
  QLineEdit* m_end = nullptr;
  QPushButton* m_run = nullptr;
  QPushButton* m_cancel = nullptr;
  QPushButton* m_apply = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_summary = nullptr;
  QPlainTextEdit* m_log = nullptr;
  QCustomPlot* m_plot = nullptr;
  QCPGraph* m_raw = nullptr;
  QCPGraph* m_smoothed = nullptr;
  QCPGraph* m_marker = nullptr;
  QCPItemStraightLine* m_markerLine = nullptr;
  QCPItemText* m_markerText = nullptr;

  FinderJob<LrFinderPoint, LrFinderResult> m_job;
  int64_t m_planned = 0;
  std::vector<LrFinderPoint> m_points;
  std::optional<LrFinderResult> m_result;
};

}  // namespace wb::gui
