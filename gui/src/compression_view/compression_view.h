#pragma once
// The Compression view of one run: test accuracy against size on disk and against batch-64 latency, with the
// original and every compressed model as labelled points and the Pareto front as a line, over a table of each
// model's figures beside the original's. It reads the run folder's compress.json, takes ArtifactFigures
// events live while a pipeline runs, and shows that pipeline's progress (pass i of n, the fine-tuning's
// steps) with a Cancel button.

#include <QString>
#include <QWidget>
#include <vector>

#include "workbench/events.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace wb::gui {

class ParetoChart;

// Table columns, in order.
enum CompressionColumn {
  kArtifactColumn,
  kPassColumn,
  kAccuracyColumn,
  kAccuracyChangeColumn,
  kParametersColumn,
  kNonzeroColumn,
  kSizeColumn,
  kSizeRatioColumn,
  kFlopsColumn,
  kLatency1Column,
  kLatency64Column,
  kSpeedupColumn,
  kDtypeColumn,
  kFloatLayersColumn,
  kCompressionColumns
};

class CompressionView : public QWidget {
  Q_OBJECT

 public:
  explicit CompressionView(QWidget* parent = nullptr);

  // Shows a run (its compress.json, read now; small). Empty: no run.
  void setRunDir(const QString& runDir);
  QString runDir() const { return m_runDir; }
  void reload();
  // One model's figures as the pipeline reports them: added, or replacing the one of the same name.
  void applyFigures(const ArtifactFigures& figures);
  const std::vector<ArtifactFigures>& artifacts() const { return m_artifacts; }

  ParetoChart* sizeChart() const { return m_sizeChart; }
  ParetoChart* latencyChart() const { return m_latencyChart; }
  QTableWidget* table() const { return m_table; }

  // The pipeline in progress (on any run, named in the text).
  void beginProgress(const QString& runDir, int passCount);
  void updateStage(const CompressionStage& stage);
  void updateStep(const StepMetrics& step);
  void endProgress(const QString& text);
  QString progressText() const;
  int progressValue() const;  // per mille of the pipeline
  QPushButton* cancelButton() const { return m_cancel; }

 signals:
  void cancelRequested();

 private:
  void rebuild();
  void fillRow(int row, const ArtifactFigures& a, const ArtifactFigures* original);

  QString m_runDir;
  std::vector<ArtifactFigures> m_artifacts;
  QLabel* m_title;
  QLabel* m_stage;
  QProgressBar* m_progress;
  QPushButton* m_cancel;
  ParetoChart* m_sizeChart;
  ParetoChart* m_latencyChart;
  QTableWidget* m_table;
  QString m_progressRun;
  int m_passCount = 0;
  int m_passIndex = 0;
  QString m_passText;
};

// Shared by the view and the runs browser.
QString formatMiB(int64_t bytes);
QString formatAccuracy(double accuracy);  // "87.42 %", "—" when not measured

}  // namespace wb::gui
