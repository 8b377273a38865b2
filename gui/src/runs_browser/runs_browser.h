#pragma once
// The runs of a runs folder (its SQLite index, via wb::listRuns, read off the UI thread): a sortable table
// with what each run trained (model, data, optimizer, learning rate, batch, AMP, devices), its duration,
// metrics, tags and notes; under each run, the compressed models of its compress.json. A search box and a
// status filter narrow it. From here runs open on the charts (one, or overlaid), are compared side by side,
// renamed, tagged, annotated, deleted with their folder, their experiment cloned into the editor, and an
// interrupted run resumed.
//
// The browser reads the list and keeps what is selected; its parts do the rest: the filters (runs_filters.h),
// the columns (runs_columns.h), what can be done to the selection (runs_browser_actions.h) and the changes it
// makes to the runs folder (run_folder_edits.h).

#include <QStringList>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "workbench/run_index.h"

class QLabel;
class QPushButton;
class QTreeView;

namespace wb::gui {

class IndexWatch;
class RunFolderEdits;
class RunsBrowserActions;
class RunsColumns;
class RunsFilterProxy;
class RunsFilters;
class RunsSelection;
class RunsTableModel;
struct RunRow;

class RunsBrowser : public QWidget {
  Q_OBJECT

 public:
  explicit RunsBrowser(QWidget* parent = nullptr);
  ~RunsBrowser() override;

  void setRunsDir(const QString& dir);
  QString runsDir() const { return m_dir; }
  // Reloads the list off the UI thread; the rows are replaced when it is read (rowsLoaded).
  void refresh();
  bool isLoading() const { return m_loading; }

  QTreeView* view() const { return m_view; }
  RunsTableModel* model() const { return m_model; }
  RunsFilterProxy* proxy() const { return m_proxy; }
  // The search box, the status and sweep choosers.
  RunsFilters* filters() const { return m_filters; }
  // The buttons and menu items that act on the selection, and what they do.
  RunsBrowserActions* actions() const { return m_actions; }
  // Renaming, tags and notes, deleting: the runs folder changed, without dialogs where a test needs none.
  RunFolderEdits* edits() const { return m_edits; }
  // Notices changes to the runs folder's index made by anyone (this window, the CLI, a queue worker): the
  // list reloads by itself; the queue and sweep views follow it too.
  IndexWatch* indexWatch() const { return m_watch; }

  int rowCount() const;                  // runs loaded (whatever the filter shows)
  int visibleRowCount() const;           // runs the filter shows
  QString visibleFolder(int row) const;  // of the row-th run as shown (sorted and filtered)
  int selectedRowCount() const;          // rows, compressed models included
  // The run folders of the selected rows (a selected compressed model stands for its run), in shown order.
  QStringList selectedFolders() const;
  // Selects these runs (applied again once a load in flight ends).
  void selectFolders(const QStringList& folders);
  void addToSelection(const QString& folder);
  // The one selected run, when exactly one is.
  std::optional<RunRecord> selectedRun() const;
  std::optional<RunRecord> run(const QString& folder) const;
  // When exactly one row is selected and it is a compressed model: its folder relative to the run folder
  // ("compressed/02-quantize"); empty otherwise.
  QString selectedArtifact() const;
  // Selects one compressed model row ("compressed/02-quantize") under a run; false when it is not listed.
  bool selectArtifact(const QString& folder, const QString& artifact);
  // The compressed models listed under a run ("01-prune", …).
  QStringList artifactNames(const QString& folder) const;

 signals:
  void openRequested(const QStringList& folders, bool replace);
  void cloneRequested(const QString& folder);
  void resumeRequested(const QString& folder);
  void evaluateRequested(const QString& folder);
  void backToLiveRequested();
  // A run was renamed (its charts' legends follow).
  void runRenamed(const QString& folder, const QString& name);
  void runsDeleted(const QStringList& folders);
  void selectionChanged();
  void rowsLoaded();
  void runsDirChanged(const QString& dir);

 private:
  void buildView();
  void layOut(QPushButton* refresh);
  void connectParts();
  void onRowsLoaded(std::vector<RunRow> rows, const QString& problem, int generation);
  void updateHeader();

  QString m_dir;
  QString m_problem;  // why the index could not be read, shown in the header
  bool m_loading = false;
  bool m_reloadPending = false;
  int m_generation = 0;
  QStringList m_wantedSelection;  // asked for while a load was in flight: applied when it ends
  bool m_hasWantedSelection = false;

  RunsTableModel* m_model;
  RunsFilterProxy* m_proxy;
  QTreeView* m_view;
  QLabel* m_header;
  RunsFilters* m_filters;
  IndexWatch* m_watch;
  RunsColumns* m_columns;
  std::unique_ptr<RunsSelection> m_selection;
  RunsBrowserActions* m_actions;
  RunFolderEdits* m_edits;
};

}  // namespace wb::gui
