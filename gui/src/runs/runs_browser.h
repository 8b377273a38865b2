#pragma once
// The runs the engine knows under a runs folder (its SQLite index, via wb::listRuns): name, status, best
// metrics, date; under each run, the compressed models of its compress.json. From here a past run's plots
// open, several runs overlay on the charts, a run's experiment is cloned into the editor, and an interrupted
// run is resumed.

#include <optional>

#include <QSet>
#include <QStringList>
#include <QWidget>

#include "workbench/run_index.h"

class QLabel;
class QPushButton;
class QTreeWidget;

namespace wb::gui {

class RunsBrowser : public QWidget {
  Q_OBJECT

 public:
  explicit RunsBrowser(QWidget* parent = nullptr);

  void setRunsDir(const QString& dir);
  QString runsDir() const { return m_dir; }
  void refresh();

  // One top-level row per run; a run's compressed models are its child rows.
  QTreeWidget* tree() const { return m_table; }
  int rowCount() const;  // runs
  // The run folders of the selected rows (a selected compressed model stands for its run).
  QStringList selectedFolders() const;
  void selectFolders(const QStringList& folders);
  // The one selected run, when exactly one is.
  std::optional<RunRecord> selectedRun() const;
  // When exactly one row is selected and it is a compressed model: its folder relative to the run folder
  // ("compressed/02-quantize"); empty otherwise.
  QString selectedArtifact() const;
  // Selects one compressed model row ("compressed/02-quantize") under a run; false when it is not listed.
  bool selectArtifact(const QString& folder, const QString& artifact);
  // The compressed models listed under a run ("01-prune", …).
  QStringList artifactNames(const QString& folder) const;

  void openSelected();     // replaces the past runs on the charts with the selection
  void overlaySelected();  // adds the selection to what the charts show
  void cloneSelected();
  void resumeSelected();

 signals:
  void openRequested(const QStringList& folders, bool replace);
  void cloneRequested(const QString& folder);
  void resumeRequested(const QString& folder);
  void selectionChanged();

 private:
  void updateButtons();

  QString m_dir;
  std::vector<RunRecord> m_records;
  QLabel* m_header;
  QTreeWidget* m_table;
  QPushButton* m_open;
  QPushButton* m_overlay;
  QPushButton* m_clone;
  QPushButton* m_resume;
  QPushButton* m_showFolder;
  QSet<QString> m_collapsed;  // runs whose compressed models the user folded away
};

}  // namespace wb::gui
