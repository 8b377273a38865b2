#pragma once
// Tools ▸ Find Batch Size: the batch-size finder (workbench/finders.h) on the experiment in the form, on a
// worker thread with progress and Cancel: each size tried with its outcome, peak memory and samples/s as it
// completes, the largest that fits and the suggestion, and "Apply" to put the suggestion (or the selected
// size that fits) into the form's train.batch_size.

#include <QDialog>
#include <functional>
#include <memory>
#include <optional>

#include "finder_dialogs/finder_job.h"
#include "workbench/experiment.h"
#include "workbench/finders.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace wb::gui {

class BatchSizeFinderDialog : public QDialog {
  Q_OBJECT

 public:
  // `apply` puts a batch size into the experiment's form; false when the form takes no edits now.
  BatchSizeFinderDialog(const Experiment& experiment, std::function<bool(int64_t)> apply,
                        QWidget* parent = nullptr);
  ~BatchSizeFinderDialog() override;  // cancels a search in flight without waiting for it

  void start();
  void cancel();
  bool isRunning() const { return m_job.isRunning(); }
  const std::optional<BatchFinderResult>& result() const { return m_result; }
  // The size Apply sets: the selected row's when it fits, else the suggestion (0: none).
  int64_t batchToApply() const;

  QLineEdit* maxMemoryEdit() const { return m_maxMemory; }
  QSpinBox* maxBatchBox() const { return m_maxBatch; }
  QTableWidget* table() const { return m_table; }
  QPushButton* applyButton() const { return m_apply; }
  QLabel* summaryLabel() const { return m_summary; }

 signals:
  void finderFinished();

 private:
  void onStaged(const std::vector<BatchTrial>& trials, const std::vector<std::string>& log);
  void onFinished(FinderOutcome<BatchFinderResult> outcome);
  void onRunningChanged(bool running);
  void addRow(const BatchTrial& trial);
  void updateApply();
  void applyBatch();  // the chosen size into the form, or why not now

  Experiment m_experiment;
  std::function<bool(int64_t)> m_applyBatch;
  QLineEdit* m_maxMemory = nullptr;
  QSpinBox* m_maxBatch = nullptr;
  QPushButton* m_run = nullptr;
  QPushButton* m_cancel = nullptr;
  QPushButton* m_apply = nullptr;
  QProgressBar* m_progress = nullptr;
  QTableWidget* m_table = nullptr;
  QLabel* m_summary = nullptr;
  QPlainTextEdit* m_log = nullptr;

  FinderJob<BatchTrial, BatchFinderResult> m_job;
  std::optional<BatchFinderResult> m_result;
};

}  // namespace wb::gui
