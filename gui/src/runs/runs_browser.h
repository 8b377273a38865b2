#pragma once
// The runs the engine knows under a runs folder (its SQLite index, via wb::listRuns): name, status, best
// metrics, date. From here a past run's plots open, several runs overlay on the charts, a run's experiment is
// cloned into the editor, and an interrupted run is resumed.

#include <QStringList>
#include <QWidget>

#include "workbench/run_index.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace wb::gui {

class RunsBrowser : public QWidget {
  Q_OBJECT

 public:
  explicit RunsBrowser(QWidget* parent = nullptr);

  void setRunsDir(const QString& dir);
  QString runsDir() const { return m_dir; }
  void refresh();

  QTableWidget* table() const { return m_table; }
  int rowCount() const;
  QStringList selectedFolders() const;
  void selectFolders(const QStringList& folders);

  void openSelected();     // replaces the past runs on the charts with the selection
  void overlaySelected();  // adds the selection to what the charts show
  void cloneSelected();
  void resumeSelected();

 signals:
  void openRequested(const QStringList& folders, bool replace);
  void cloneRequested(const QString& folder);
  void resumeRequested(const QString& folder);

 private:
  void updateButtons();

  QString m_dir;
  std::vector<RunRecord> m_records;
  QLabel* m_header;
  QTableWidget* m_table;
  QPushButton* m_open;
  QPushButton* m_overlay;
  QPushButton* m_clone;
  QPushButton* m_resume;
  QPushButton* m_showFolder;
};

}  // namespace wb::gui
