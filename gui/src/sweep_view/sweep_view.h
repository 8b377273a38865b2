#pragma once
// A sweep of the runs folder shown (wb::readSweepResults, read off the UI thread whenever the index changes):
// its trials table (values, metric, status, duration, why a trial failed or stopped), a parallel-coordinates
// chart of the keys to the metric (one line per trial, the best drawn thick), the metric against one key, and
// the best trial marked everywhere. "Clone Best into Editor" puts the best trial's experiment in the editor;
// "Show in Runs List" filters the runs list to the sweep's trials; "Overlay Trials" puts them on the charts.

#include <QString>
#include <QWidget>
#include <optional>

#include "app/serial_reload.h"
#include "workbench/sweep_runs.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

namespace wb::gui {

class SweepView : public QWidget {
  Q_OBJECT

 public:
  explicit SweepView(QWidget* parent = nullptr);

  void setRunsDir(const QString& dir);
  void showSweep(const QString& name);  // picks it (once listed) and loads it
  void reload();                        // the sweep names and the picked sweep's results, off the UI thread
  QString currentSweep() const;
  const std::optional<SweepResults>& results() const { return m_results; }
  QString bestFolder() const;  // the best trial's run folder, empty when none finished

  QComboBox* sweepPicker() const { return m_sweeps; }
  QComboBox* keyPicker() const { return m_key; }
  QTableWidget* table() const { return m_table; }
  QCustomPlot* parallelChart() const { return m_parallel; }
  QCustomPlot* keyChart() const { return m_keyChart; }
  QLabel* summary() const { return m_summary; }
  QPushButton* cloneBestButton() const { return m_cloneBest; }
  int loads() const { return m_loads; }

 signals:
  void cloneRequested(const QString& folder);
  void showTrialsRequested(const QString& sweep);
  void overlayRequested(const QStringList& folders);
  void loaded();

 private:
  void onLoaded(QStringList names, std::optional<SweepResults> results, const QString& problem,
                int generation);
  void layOut();
  void fillTable();
  void drawParallel();
  void drawKeyChart();

  QString m_dir;
  QString m_wanted;  // a sweep asked for before it was listed
  std::optional<SweepResults> m_results;
  SerialReload m_reload;
  int m_loads = 0;
  QComboBox* m_sweeps;
  QComboBox* m_key;
  QLabel* m_summary;
  QTableWidget* m_table;
  QCustomPlot* m_parallel;
  QCustomPlot* m_keyChart;
  QPushButton* m_cloneBest;
  QPushButton* m_showTrials;
  QPushButton* m_overlay;
};

}  // namespace wb::gui
