#pragma once
// The settings of several runs side by side — the CLI's `runs compare` in the window: a column per run, at
// the top their results (status, best validation and test metrics, throughput, duration), below every key of
// their experiment files, one row each. Keys whose values differ between the runs are marked (a highlighted
// row, "≠" before the key); "Only differences" hides the others.

#include <QSet>
#include <QStringList>
#include <QWidget>

#include "workbench/run_index.h"

class QCheckBox;
class QLabel;
class QTableWidget;

namespace wb::gui {

class RunCompareView : public QWidget {
  Q_OBJECT

 public:
  explicit RunCompareView(QWidget* parent = nullptr);

  // Reads each run's experiment.json and summary.json (small files) and fills the table. A run whose
  // experiment cannot be read gets a column that says so.
  void setRuns(const std::vector<RunRecord>& runs);

  QTableWidget* table() const { return m_table; }
  QStringList experimentKeys() const { return m_keys; }
  QStringList differingKeys() const;
  bool isDifferent(const QString& key) const { return m_differing.contains(key); }
  void setOnlyDifferences(bool on);
  bool onlyDifferences() const;
  // The row of an experiment key, or -1.
  int rowOf(const QString& key) const;

 private:
  void applyFilter();

  QLabel* m_header;
  QCheckBox* m_onlyDifferences;
  QTableWidget* m_table;
  QStringList m_keys;
  QSet<QString> m_differing;
  int m_firstKeyRow = 0;
};

}  // namespace wb::gui
