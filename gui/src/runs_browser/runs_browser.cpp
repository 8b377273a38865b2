#include "runs_browser/runs_browser.h"

#include <QAction>
#include <QComboBox>
#include <QDesktopServices>
#include <QDialog>
#include <QDir>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>

#include "app/off_thread.h"
#include "run/run_status_words.h"
#include "runs_browser/index_watch.h"
#include "runs_browser/run_compare_view.h"
#include "runs_browser/run_notes_dialog.h"
#include "runs_browser/runs_filter_proxy.h"
#include "runs_browser/runs_table_model.h"
#include "widgets/eliding_label.h"
#include "widgets/screen_fit.h"
#include "workbench/errors.h"
#include "workbench/run_info.h"

namespace wb::gui {
namespace {

struct LoadedRows {
  std::vector<RunRow> rows;
  QString problem;
};

LoadedRows loadRows(const QString& dir) {
  LoadedRows loaded;
  try {
    loaded.rows = loadRunRows(dir);
  } catch (const std::exception& e) {
    loaded.problem = QString::fromUtf8(e.what());
  }
  return loaded;
}

// Columns hidden until asked for (right-click the header): the rest fit a 1,500-pixel-wide window.
constexpr RunsTableModel::Column kHiddenAtFirst[] = {RunsTableModel::kSteps, RunsTableModel::kSize};

}  // namespace

RunsBrowser::RunsBrowser(QWidget* parent) : QWidget(parent) {
  m_model = new RunsTableModel(this);
  m_model->setRenameHandler(
      [this](const QString& folder, const QString& name) { return renameRun(folder, name); });
  m_proxy = new RunsFilterProxy(this);
  m_proxy->setSourceModel(m_model);

  m_header = new ElidingLabel(this);
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_search = new QLineEdit(this);
  m_search->setObjectName(QStringLiteral("runsSearch"));
  m_search->setPlaceholderText(tr("Search name, model, data, tags, notes…"));
  m_search->setToolTip(
      tr("Every word must match (case-insensitive); \"tag:baseline\" looks in the tags only"));
  m_search->setClearButtonEnabled(true);
  m_search->setMinimumWidth(160);
  m_status = new QComboBox(this);
  m_status->setObjectName(QStringLiteral("runsStatusFilter"));
  m_status->addItem(tr("All statuses"), QString());
  for (const RunIndexStatus status : {RunIndexStatus::Running, RunIndexStatus::Finished,
                                      RunIndexStatus::Interrupted, RunIndexStatus::Failed}) {
    m_status->addItem(runStatusWord(status), QString::fromStdString(wordString(status)));
  }

  m_sweep = new QComboBox(this);
  m_sweep->setObjectName(QStringLiteral("runsSweepFilter"));
  m_sweep->setToolTip(tr("Only the trials of one sweep"));
  m_sweep->addItem(tr("All runs"), QString());
  m_sweep->setVisible(false);
  m_watch = new IndexWatch(this);
  connect(m_watch, &IndexWatch::changed, this, &RunsBrowser::refresh);

  auto* refresh = new QPushButton(tr("Refresh"), this);
  refresh->setObjectName(QStringLiteral("refreshRuns"));
  m_open = new QPushButton(tr("Open"), this);
  m_open->setObjectName(QStringLiteral("openRun"));
  m_open->setToolTip(
      tr("Show the selected runs' plots instead of the past runs shown now (also: double-click)"));
  m_overlay = new QPushButton(tr("Overlay"), this);
  m_overlay->setObjectName(QStringLiteral("overlayRuns"));
  m_overlay->setToolTip(tr("Add the selected runs to the charts, each in its own colour"));
  m_compare = new QPushButton(tr("Compare"), this);
  m_compare->setObjectName(QStringLiteral("compareRuns"));
  m_compare->setToolTip(tr("The selected runs' settings and results side by side, differences marked"));
  m_resume = new QPushButton(tr("Resume"), this);
  m_resume->setObjectName(QStringLiteral("resumeRun"));
  m_resume->setToolTip(tr("Continue an interrupted run from its latest checkpoint"));
  m_backToLive = new QPushButton(tr("Back to Live Run"), this);
  m_backToLive->setObjectName(QStringLiteral("backToLiveRun"));
  m_backToLive->setToolTip(tr("Remove the past runs from the charts and show the run training now"));
  m_backToLive->setVisible(false);

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(m_search);
  bar->addWidget(m_status);
  bar->addWidget(m_sweep);
  bar->addWidget(m_header, 1);
  for (QPushButton* b : {m_backToLive, m_open, m_overlay, m_compare, m_resume, refresh}) bar->addWidget(b);

  buildView();

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(m_view, 1);

  buildActions();

  connectControls(refresh);

  useDialogs();
  updateHeader();
  updateButtons();
}

RunsBrowser::~RunsBrowser() = default;

// The runs list: a tree (a run's compressed models under it), sortable, its columns movable and hideable.
void RunsBrowser::buildView() {
  m_view = new QTreeView(this);
  m_view->setObjectName(QStringLiteral("runsView"));
  m_view->setModel(m_proxy);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_view->setEditTriggers(QAbstractItemView::EditKeyPressed);  // F2; or the menu's Rename
  m_view->setRootIsDecorated(true);
  m_view->setUniformRowHeights(true);  // 500 rows lay out without measuring each
  m_view->setAlternatingRowColors(true);
  m_view->setSortingEnabled(true);
  m_view->sortByColumn(RunsTableModel::kStarted, Qt::DescendingOrder);
  m_view->setWordWrap(false);
  m_view->setContextMenuPolicy(Qt::CustomContextMenu);
  m_view->header()->setStretchLastSection(true);
  m_view->header()->setSectionsMovable(true);
  m_view->header()->setContextMenuPolicy(Qt::CustomContextMenu);
  for (RunsTableModel::Column c : kHiddenAtFirst) m_view->setColumnHidden(c, true);
}

void RunsBrowser::connectControls(QPushButton* refresh) {
  connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
    m_proxy->setSearchText(text);
    updateHeader();
  });
  connect(m_status, &QComboBox::currentIndexChanged, this, [this] {
    const QString status = m_status->currentData().toString();
    m_proxy->setStatuses(status.isEmpty() ? QSet<QString>() : QSet<QString>{status});
    updateHeader();
  });
  connect(m_sweep, &QComboBox::currentIndexChanged, this, [this] {
    m_proxy->setSweep(m_sweep->currentData().toString());
    updateHeader();
  });
  connect(refresh, &QPushButton::clicked, this, &RunsBrowser::refresh);
  connect(m_open, &QPushButton::clicked, this, &RunsBrowser::openSelected);
  connect(m_overlay, &QPushButton::clicked, this, &RunsBrowser::overlaySelected);
  connect(m_compare, &QPushButton::clicked, this, &RunsBrowser::compareSelected);
  connect(m_resume, &QPushButton::clicked, this, &RunsBrowser::resumeSelected);
  connect(m_backToLive, &QPushButton::clicked, this, &RunsBrowser::backToLiveRequested);
  connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    updateButtons();
    emit selectionChanged();
  });
  connect(m_view, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) {
    if (!index.parent().isValid()) openSelected();  // a compressed model: its row expands or collapses
  });
  connect(m_view, &QTreeView::customContextMenuRequested, this, &RunsBrowser::showContextMenu);
  connect(m_view->header(), &QHeaderView::customContextMenuRequested, this, &RunsBrowser::showColumnMenu);
  connect(m_model, &RunsTableModel::renameFailed, this,
          [this](const QString& message) { showError(tr("The run was not renamed"), message); });
}

// The header's menu: which columns show (the name always does).
void RunsBrowser::showColumnMenu(const QPoint& at) {
  QMenu menu(this);
  for (int c = 0; c < RunsTableModel::kColumnCount; ++c) {
    if (c == RunsTableModel::kName) continue;
    QAction* a = menu.addAction(m_model->headerData(c, Qt::Horizontal).toString());
    a->setCheckable(true);
    a->setChecked(!m_view->isColumnHidden(c));
    connect(a, &QAction::toggled, this, [this, c](bool on) { m_view->setColumnHidden(c, !on); });
  }
  menu.exec(m_view->header()->mapToGlobal(at));
}

// Deleting asks first, and problems are told, in window-modal boxes (open(), no nested event loop); tests
// replace both.
void RunsBrowser::useDialogs() {
  m_confirm = [this](const QString& title, const QString& text, std::function<void()> yes) {
    auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("deleteRunsDialog"));
    QPushButton* agree = box->addButton(tr("Delete"), QMessageBox::DestructiveRole);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    connect(box, &QMessageBox::buttonClicked, this, [agree, yes](QAbstractButton* clicked) {
      if (clicked == agree) yes();
    });
    box->open();
  };
  m_presentError = [this](const QString& title, const QString& message) {
    auto* box = new QMessageBox(QMessageBox::Critical, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    box->open();
  };
}

void RunsBrowser::buildActions() {
  struct Spec {
    const char* name;
    QString text;
    QKeySequence key;
    void (RunsBrowser::*slot)();
  };
  const Spec specs[] = {
      {"runOpen", tr("&Open"), QKeySequence(), &RunsBrowser::openSelected},  // also: double-click
      {"runOverlay", tr("O&verlay on the Charts"), QKeySequence(), &RunsBrowser::overlaySelected},
      {"runCompare", tr("&Compare Settings…"), QKeySequence(), &RunsBrowser::compareSelected},
      {"runEvaluate", tr("&Evaluate…"), QKeySequence(), &RunsBrowser::evaluateSelected},
      {"runRename", tr("&Rename"), QKeySequence(Qt::Key_F2), &RunsBrowser::renameSelected},
      {"runNotes", tr("&Tags and Notes…"), QKeySequence(), &RunsBrowser::editNotesSelected},
      {"runClone", tr("C&lone into Editor"), QKeySequence(), &RunsBrowser::cloneSelected},
      {"runResume", tr("Res&ume"), QKeySequence(), &RunsBrowser::resumeSelected},
      {"runReveal", tr("Reveal &Folder"), QKeySequence(), nullptr},
      {"runDelete", tr("&Delete…"), QKeySequence(QKeySequence::Delete), &RunsBrowser::deleteSelected},
  };
  for (const Spec& spec : specs) {
    auto* a = new QAction(spec.text, this);
    a->setObjectName(QLatin1String(spec.name));
    if (!spec.key.isEmpty()) {
      a->setShortcut(spec.key);
      a->setShortcutContext(Qt::WidgetWithChildrenShortcut);  // the list's keys, not the window's
      m_view->addAction(a);
    }
    if (spec.slot) {
      connect(a, &QAction::triggered, this, spec.slot);
    } else {
      connect(a, &QAction::triggered, this, [this] {
        for (const QString& folder : selectedFolders())
          QDesktopServices::openUrl(QUrl::fromLocalFile(folder));
      });
    }
    m_actions << a;
  }
}

QAction* RunsBrowser::action(const QString& objectName) const {
  for (QAction* a : m_actions) {
    if (a->objectName() == objectName) return a;
  }
  return nullptr;
}

void RunsBrowser::setRunsDir(const QString& dir) {
  if (dir == m_dir) return;
  m_dir = dir;
  m_watch->setRunsDir(dir);
  refresh();
  emit runsDirChanged(dir);
}

QStringList RunsBrowser::sweepNames() const {
  QStringList names;
  for (const RunRow& row : m_model->rows()) {
    for (const std::string& tag : row.record.tags) {
      const QString t = QString::fromStdString(tag);
      if (t.startsWith(QLatin1String("sweep:")) && !names.contains(t.mid(6))) names << t.mid(6);
    }
  }
  names.sort();
  return names;
}

void RunsBrowser::showSweep(const QString& name) {
  const int at = m_sweep->findData(name);
  if (at < 0 && !name.isEmpty()) {
    m_sweep->addItem(tr("Sweep %1").arg(name), name);  // its first trial is not listed yet
    m_sweep->setVisible(true);
  }
  m_sweep->setCurrentIndex(qMax(0, m_sweep->findData(name)));
}

void RunsBrowser::refresh() {
  if (m_loading) {
    m_reloadPending = true;  // the folder's state after this moment: read again when the load in flight ends
    return;
  }
  m_loading = true;
  const int generation = ++m_generation;
  runOffThread(
      this, [dir = m_dir] { return loadRows(dir); },
      [this, generation](LoadedRows loaded) {
        onRowsLoaded(std::move(loaded.rows), loaded.problem, generation);
      });
}

void RunsBrowser::onRowsLoaded(std::vector<RunRow> rows, const QString& problem, int generation) {
  m_loading = false;
  if (generation != m_generation) return;
  const QStringList keep = m_hasWantedSelection ? m_wantedSelection : selectedFolders();
  const QSignalBlocker block(m_view->selectionModel());  // one selectionChanged after the reload, not per row
  m_problem = problem;
  m_model->setRows(std::move(rows));
  m_view->expandAll();
  if (!m_sized && m_model->rowCount() > 0) {  // once: later loads keep the widths the user set
    m_sized = true;
    // The contents of the rows laid out so far, but at least what typical values need (a hidden dock lays out
    // none).
    const QFontMetrics fm(m_view->font());
    const std::pair<int, const char*> typical[] = {{RunsTableModel::kName, "resnet-fashion-mnist-0000"},
                                                   {RunsTableModel::kLr, "0.0003"},
                                                   {RunsTableModel::kTags, "baseline, lr-sweep"},
                                                   {RunsTableModel::kDevices, "cuda:0, cuda:1"},
                                                   {RunsTableModel::kDuration, "1 min 00 s"},
                                                   {RunsTableModel::kData, "fashion-mnist"}};
    for (int c = 0; c < RunsTableModel::kColumnCount - 1; ++c) {
      if (!m_view->isColumnHidden(c)) m_view->resizeColumnToContents(c);
    }
    for (const auto& [column, text] : typical) {
      const int needed = fm.horizontalAdvance(QLatin1String(text)) + 24;
      if (m_view->columnWidth(column) < needed) m_view->setColumnWidth(column, needed);
    }
    m_view->setColumnWidth(RunsTableModel::kName, qMin(m_view->columnWidth(RunsTableModel::kName), 280));
  }
  // The sweeps of the runs listed, for the sweep filter (the one picked stays).
  const QString picked = m_sweep->currentData().toString();
  const QStringList sweeps = sweepNames();
  QStringList listed;
  for (int i = 1; i < m_sweep->count(); ++i) listed << m_sweep->itemData(i).toString();
  if (listed != sweeps) {
    const QSignalBlocker blockSweep(m_sweep);
    m_sweep->clear();
    m_sweep->addItem(tr("All runs"), QString());
    for (const QString& name : sweeps) m_sweep->addItem(tr("Sweep %1").arg(name), name);
    if (!picked.isEmpty() && !sweeps.contains(picked)) m_sweep->addItem(tr("Sweep %1").arg(picked), picked);
    m_sweep->setCurrentIndex(qMax(0, m_sweep->findData(picked)));
  }
  m_sweep->setVisible(m_sweep->count() > 1);
  m_hasWantedSelection = false;
  selectFolders(keep);
  updateHeader();
  updateButtons();
  emit selectionChanged();
  emit rowsLoaded();
  if (m_reloadPending) {
    m_reloadPending = false;
    refresh();
  }
}

void RunsBrowser::updateHeader() {
  const QString shown = QDir::toNativeSeparators(QDir(m_dir).absolutePath());
  const int total = rowCount();
  if (!m_problem.isEmpty()) {
    m_header->setText(tr("Runs in %1: %2").arg(shown, m_problem));
  } else if (total == 0) {
    m_header->setText(m_loading ? tr("Reading the runs of %1…").arg(shown)
                                : tr("No runs in %1 yet: start one with Run ▸ Start (F5).").arg(shown));
  } else if (visibleRowCount() == total) {
    m_header->setText(tr("%n run(s) in %1", nullptr, total).arg(shown));
  } else {
    m_header->setText(tr("%1 of %n run(s) shown", nullptr, total).arg(visibleRowCount()));
  }
  m_header->setToolTip(shown);
}

int RunsBrowser::rowCount() const {
  return m_model->rowCount();
}

int RunsBrowser::visibleRowCount() const {
  return m_proxy->rowCount();
}

QString RunsBrowser::visibleFolder(int row) const {
  return m_proxy->index(row, 0).data(RunsTableModel::kFolderRole).toString();
}

QModelIndex RunsBrowser::sourceIndex(const QModelIndex& proxyIndex) const {
  return m_proxy->mapToSource(proxyIndex);
}

int RunsBrowser::selectedRowCount() const {
  return static_cast<int>(m_view->selectionModel()->selectedRows().size());
}

QStringList RunsBrowser::selectedFolders() const {
  QModelIndexList rows = m_view->selectionModel()->selectedRows();
  std::sort(rows.begin(), rows.end(), [this](const QModelIndex& a, const QModelIndex& b) {
    const QModelIndex ra = a.parent().isValid() ? a.parent() : a;
    const QModelIndex rb = b.parent().isValid() ? b.parent() : b;
    return ra.row() < rb.row();
  });
  QStringList folders;
  for (const QModelIndex& index : rows) {
    const QString folder = index.data(RunsTableModel::kFolderRole).toString();
    if (!folders.contains(folder)) folders << folder;
  }
  return folders;
}

void RunsBrowser::selectFolders(const QStringList& folders) {
  if (m_loading) {
    m_wantedSelection = folders;
    m_hasWantedSelection = true;
  }
  QItemSelection selection;
  for (const QString& folder : folders) {
    const int row = m_model->runRow(folder);
    if (row < 0) continue;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    if (index.isValid()) selection.select(index, index);
  }
  m_view->selectionModel()->select(selection,
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  if (!selection.isEmpty()) m_view->scrollTo(selection.indexes().front());
}

void RunsBrowser::addToSelection(const QString& folder) {
  const int row = m_model->runRow(folder);
  if (row < 0) return;
  const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
  m_view->selectionModel()->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
}

std::optional<RunRecord> RunsBrowser::run(const QString& folder) const {
  const RunRecord* r = m_model->record(folder);
  return r ? std::optional<RunRecord>(*r) : std::nullopt;
}

std::optional<RunRecord> RunsBrowser::selectedRun() const {
  const QStringList folders = selectedFolders();
  if (folders.size() != 1) return std::nullopt;
  return run(folders.front());
}

QString RunsBrowser::selectedArtifact() const {
  const QModelIndexList rows = m_view->selectionModel()->selectedRows();
  if (rows.size() != 1 || !rows.front().parent().isValid()) return {};
  return rows.front().data(RunsTableModel::kArtifactRole).toString();
}

bool RunsBrowser::selectArtifact(const QString& folder, const QString& artifact) {
  const int row = m_model->runRow(folder);
  if (row < 0) return false;
  const QModelIndex runIndex = m_model->index(row, 0);
  for (int i = 0; i < m_model->rowCount(runIndex); ++i) {
    const QModelIndex child = m_model->index(i, 0, runIndex);
    if (child.data(RunsTableModel::kArtifactRole).toString() != artifact) continue;
    const QModelIndex shown = m_proxy->mapFromSource(child);
    if (!shown.isValid()) return false;
    m_view->selectionModel()->select(shown, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    return true;
  }
  return false;
}

QStringList RunsBrowser::artifactNames(const QString& folder) const {
  QStringList names;
  const int row = m_model->runRow(folder);
  if (row < 0) return names;
  const QModelIndex runIndex = m_model->index(row, 0);
  for (int i = 0; i < m_model->rowCount(runIndex); ++i)
    names << m_model->index(i, 0, runIndex).data().toString();
  return names;
}

void RunsBrowser::setLiveRunActive(bool active) {
  m_liveActive = active;
  updateButtons();
}

void RunsBrowser::setPastRunsShown(bool shown) {
  m_pastRunsShown = shown;
  updateButtons();
}

void RunsBrowser::updateButtons() {
  const QStringList folders = selectedFolders();
  const bool any = !folders.isEmpty();
  const bool one = folders.size() == 1;
  const std::optional<RunRecord> r = one ? run(folders.front()) : std::nullopt;
  const bool interrupted = r && r->status == RunIndexStatus::Interrupted;
  m_open->setEnabled(any);
  m_overlay->setEnabled(any);
  m_compare->setEnabled(folders.size() >= 2);
  m_compare->setToolTip(folders.size() >= 2 ? tr("The selected runs' settings and results side by side, "
                                                 "differences marked")
                                            : tr("Select two or more runs (Ctrl+click) to compare them"));
  m_resume->setEnabled(interrupted);
  m_backToLive->setVisible(m_liveActive && m_pastRunsShown);
  action(QStringLiteral("runOpen"))->setEnabled(any);
  action(QStringLiteral("runOverlay"))->setEnabled(any);
  action(QStringLiteral("runCompare"))->setEnabled(folders.size() >= 2);
  action(QStringLiteral("runRename"))->setEnabled(one && selectedArtifact().isEmpty());
  action(QStringLiteral("runNotes"))->setEnabled(one);
  action(QStringLiteral("runClone"))->setEnabled(one);
  action(QStringLiteral("runResume"))->setEnabled(interrupted);
  action(QStringLiteral("runEvaluate"))->setEnabled(r && r->status == RunIndexStatus::Finished);
  action(QStringLiteral("runReveal"))->setEnabled(any);
  action(QStringLiteral("runDelete"))->setEnabled(any);
}

void RunsBrowser::addContextSubmenu(QMenu* menu) {
  m_contextSubmenus.append(menu);
}

void RunsBrowser::showContextMenu(const QPoint& at) {
  const QModelIndex index = m_view->indexAt(at);
  if (index.isValid() && !m_view->selectionModel()->isRowSelected(index.row(), index.parent())) {
    m_view->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  }
  if (QMenu* menu = contextMenu()) menu->popup(m_view->viewport()->mapToGlobal(at));
}

QMenu* RunsBrowser::contextMenu() {
  if (selectedFolders().isEmpty()) return nullptr;
  auto* menu = new QMenu(this);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  int i = 0;
  for (QAction* a : m_actions) {
    if (a->objectName() == QLatin1String("runResume") && !a->isEnabled())
      continue;  // only for interrupted runs
    menu->addAction(a);
    if (++i == 3 || a->objectName() == QLatin1String("runReveal")) menu->addSeparator();
  }
  for (const QPointer<QMenu>& submenu : m_contextSubmenus) {
    if (submenu) menu->insertMenu(action(QStringLiteral("runReveal")), submenu);
  }
  if (!m_contextSubmenus.isEmpty()) menu->insertSeparator(action(QStringLiteral("runReveal")));
  return menu;
}

void RunsBrowser::showError(const QString& title, const QString& message) {
  if (m_presentError) m_presentError(title, message);
}

void RunsBrowser::openSelected() {
  const QStringList folders = selectedFolders();
  if (!folders.isEmpty()) emit openRequested(folders, true);
}

void RunsBrowser::overlaySelected() {
  const QStringList folders = selectedFolders();
  if (!folders.isEmpty()) emit openRequested(folders, false);
}

void RunsBrowser::compareSelected() {
  const QStringList folders = selectedFolders();
  if (folders.size() < 2) return;
  std::vector<RunRecord> runs;
  for (const QString& folder : folders) {
    if (std::optional<RunRecord> r = run(folder)) runs.push_back(*r);
  }
  if (!m_compareWindow) {
    auto* dialog = new QDialog(this, Qt::Window);
    dialog->setObjectName(QStringLiteral("compareRunsWindow"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_compareView = new RunCompareView(dialog);
    auto* layout = new QVBoxLayout(dialog);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_compareView);
    fitDialogToScreen(dialog, QSize(420 + 180 * static_cast<int>(std::min<size_t>(runs.size(), 5)), 720));
    m_compareWindow = dialog;
  }
  m_compareWindow->setWindowTitle(tr("Compare %n run(s)", nullptr, static_cast<int>(runs.size())));
  m_compareView->setRuns(runs);
  m_compareWindow->show();
  m_compareWindow->raise();
}

RunCompareView* RunsBrowser::compareView() const {
  return m_compareView;
}

void RunsBrowser::cloneSelected() {
  const QStringList folders = selectedFolders();
  if (folders.size() == 1) emit cloneRequested(folders.front());
}

void RunsBrowser::resumeSelected() {
  const QStringList folders = selectedFolders();
  if (folders.size() == 1) emit resumeRequested(folders.front());
}

void RunsBrowser::evaluateSelected() {
  const QStringList folders = selectedFolders();
  if (folders.size() == 1) emit evaluateRequested(folders.front());
}

void RunsBrowser::renameSelected() {
  const QModelIndexList rows = m_view->selectionModel()->selectedRows(RunsTableModel::kName);
  if (rows.size() != 1 || rows.front().parent().isValid()) return;
  m_view->setCurrentIndex(rows.front());
  m_view->edit(rows.front());
}

void RunsBrowser::editNotesSelected() {
  const std::optional<RunRecord> r = selectedRun();
  if (!r) return;
  auto* dialog =
      new RunNotesDialog(QString::fromStdString(r->name), r->tags, QString::fromStdString(r->notes), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  const QString folder = QString::fromStdString(r->folder);
  connect(dialog, &QDialog::accepted, this, [this, dialog, folder] {
    const QString problem = setTagsAndNotes(folder, dialog->tags(), dialog->notes());
    if (!problem.isEmpty()) showError(tr("The tags and notes were not saved"), problem);
  });
  dialog->open();
}

void RunsBrowser::deleteSelected() {
  const QStringList folders = selectedFolders();
  if (folders.isEmpty()) return;
  QStringList names;
  for (const QString& folder : folders) {
    const std::optional<RunRecord> r = run(folder);
    names << QStringLiteral("%1  (%2)")
                 .arg(r ? QString::fromStdString(r->name) : QString(), QDir::toNativeSeparators(folder));
  }
  const QString text = tr("Delete %n run(s) with their folders — checkpoints, model, metrics and logs? This "
                          "cannot be undone.\n\n%1",
                          nullptr, static_cast<int>(folders.size()))
                           .arg(names.join(QLatin1Char('\n')));
  if (m_confirm) {
    m_confirm(tr("Delete runs"), text, [this, folders] {
      const QString problem = deleteRuns(folders);
      if (!problem.isEmpty()) showError(tr("Not every run was deleted"), problem);
    });
  }
}

QString RunsBrowser::renameRun(const QString& folder, const QString& name) {
  const std::optional<RunRecord> r = run(folder);
  if (!r)
    return tr("The run %1 is no longer listed; refresh the list.").arg(QDir::toNativeSeparators(folder));
  try {
    updateRunInfo(m_dir.toStdString(), folder.toStdString(), RunInfo{name.toStdString(), r->tags, r->notes});
  } catch (const UserError& e) {
    return QString::fromUtf8(e.what()) +
           (e.hint().empty() ? QString() : QLatin1Char('\n') + QString::fromStdString(e.hint()));
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  m_model->setRunInfo(folder, name.trimmed(), r->tags, QString::fromStdString(r->notes));
  emit runRenamed(folder, name.trimmed());
  return {};
}

QString RunsBrowser::setTagsAndNotes(const QString& folder, const std::vector<std::string>& tags,
                                     const QString& notes) {
  const std::optional<RunRecord> r = run(folder);
  if (!r)
    return tr("The run %1 is no longer listed; refresh the list.").arg(QDir::toNativeSeparators(folder));
  try {
    updateRunInfo(m_dir.toStdString(), folder.toStdString(), RunInfo{r->name, tags, notes.toStdString()});
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  const std::optional<RunInfo> stored = readRunInfo(folder.toStdString());
  m_model->setRunInfo(folder, QString::fromStdString(r->name), stored ? stored->tags : tags, notes);
  updateButtons();
  return {};
}

QString RunsBrowser::deleteRuns(const QStringList& folders) {
  QStringList problems;
  QStringList deleted;
  for (const QString& folder : folders) {
    try {
      deleteRun(m_dir.toStdString(), folder.toStdString());
    } catch (const UserError& e) {
      problems << QString::fromUtf8(e.what()) + QLatin1Char(' ') + QString::fromStdString(e.hint());
    } catch (const std::exception& e) {
      problems << QString::fromUtf8(e.what());
      continue;
    }
    deleted << folder;
  }
  if (!deleted.isEmpty()) emit runsDeleted(deleted);
  refresh();
  return problems.join(QLatin1Char('\n'));
}

}  // namespace wb::gui
