#pragma once
// The runs of a runs folder (its SQLite index, via wb::listRuns, read off the UI thread): a sortable table
// with what each run trained (model, data, optimizer, learning rate, batch, AMP, devices), its duration,
// metrics, tags and notes; under each run, the compressed models of its compress.json. A search box and a
// status filter narrow it. From here runs open on the charts (one, or overlaid), are compared side by side,
// renamed, tagged, annotated, deleted with their folder, their experiment cloned into the editor, and an
// interrupted run resumed.

#include <QPointer>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <optional>

#include "workbench/run_index.h"

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QModelIndex;
class QPushButton;
class QTreeView;

namespace wb::gui {

class IndexWatch;
class RunCompareView;
class RunsFilterProxy;
class RunsTableModel;
struct RunRow;

class RunsBrowser : public QWidget {
  Q_OBJECT

 public:
  // Asks a yes/no question without a nested event loop; `yes` runs when the user agrees.
  using Confirm = std::function<void(const QString& title, const QString& text, std::function<void()> yes)>;
  using ErrorPresenter = std::function<void(const QString& title, const QString& message)>;

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
  QLineEdit* searchBox() const { return m_search; }
  QComboBox* statusFilter() const { return m_status; }
  // "All runs" or one sweep's trials (shown once the runs folder has sweeps).
  QComboBox* sweepFilter() const { return m_sweep; }
  void showSweep(const QString& name);  // filters to that sweep's trials ("" for every run)
  QStringList sweepNames() const;       // of the runs loaded, by their sweep:NAME tags
  // Notices changes to the runs folder's index made by anyone (this window, the CLI, a queue worker): the
  // list reloads by itself; the queue and sweep views follow it too.
  IndexWatch* indexWatch() const { return m_watch; }
  QAction* action(const QString& objectName) const;
  // Menus whose items act on the selected run (Compress, Export): the right-click menu offers them too, after
  // the browser's own items. Their owners keep them enabled from the selection.
  void addContextSubmenu(QMenu* menu);
  // The right-click menu for the current selection (what a right-click pops up); null when nothing is
  // selected.
  QMenu* contextMenu();

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

  // While this window trains a run and past runs are on the charts (setPastRunsShown), "Back to Live Run"
  // is offered. (A run training is refused by delete in any case: the index knows its process is alive.)
  void setLiveRunActive(bool active);
  void setPastRunsShown(bool shown);

  void openSelected();     // replaces the past runs on the charts with the selection
  void overlaySelected();  // adds the selection to what the charts show
  void compareSelected();  // the settings of the selected runs side by side
  void cloneSelected();
  void resumeSelected();
  void evaluateSelected();  // the one selected finished run, in the window's Evaluation tab
  void renameSelected();    // starts editing the Name cell
  void editNotesSelected();
  void deleteSelected();  // asks, then deletes the runs' folders

  // What the actions do, without dialogs; each returns an error message, empty when it worked.
  QString renameRun(const QString& folder, const QString& name);
  QString setTagsAndNotes(const QString& folder, const std::vector<std::string>& tags, const QString& notes);
  QString deleteRuns(const QStringList& folders);

  RunCompareView* compareView() const;  // the last Compare window's view, null before the first
  void setConfirm(Confirm confirm) { m_confirm = std::move(confirm); }
  void setErrorPresenter(ErrorPresenter present) { m_presentError = std::move(present); }

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
  void buildActions();
  void connectControls(QPushButton* refresh);
  void useDialogs();
  void showColumnMenu(const QPoint& at);
  void onRowsLoaded(std::vector<RunRow> rows, const QString& problem, int generation);
  void updateHeader();
  void updateButtons();
  void showContextMenu(const QPoint& at);
  void showError(const QString& title, const QString& message);
  QModelIndex sourceIndex(const QModelIndex& proxyIndex) const;

  QString m_dir;
  QString m_problem;  // why the index could not be read, shown in the header
  bool m_liveActive = false;
  bool m_pastRunsShown = false;
  bool m_loading = false;
  bool m_sized = false;
  bool m_reloadPending = false;
  int m_generation = 0;
  QStringList m_wantedSelection;
  bool m_hasWantedSelection = false;

  RunsTableModel* m_model;
  RunsFilterProxy* m_proxy;
  QTreeView* m_view;
  QLabel* m_header;
  QLineEdit* m_search;
  QComboBox* m_status;
  QComboBox* m_sweep;
  IndexWatch* m_watch;
  QPushButton* m_open;
  QPushButton* m_overlay;
  QPushButton* m_compare;
  QPushButton* m_resume;
  QPushButton* m_backToLive;
  QList<QAction*> m_actions;
  QList<QPointer<QMenu>> m_contextSubmenus;
  QPointer<QWidget> m_compareWindow;
  // Guarded (nulled when the compare window closes): a lambda on destroyed() ran while this browser was
  // itself being destroyed (its children go last), touching a member of a half-destroyed object (UBSan).
  QPointer<RunCompareView> m_compareView;
  Confirm m_confirm;
  ErrorPresenter m_presentError;
};

}  // namespace wb::gui
