#include "runs_browser/runs_browser.h"

#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

#include "app/off_thread.h"
#include "runs_browser/index_watch.h"
#include "runs_browser/run_folder_edits.h"
#include "runs_browser/runs_browser_actions.h"
#include "runs_browser/runs_columns.h"
#include "runs_browser/runs_filter_proxy.h"
#include "runs_browser/runs_filters.h"
#include "runs_browser/runs_selection.h"
#include "runs_browser/runs_table_model.h"
#include "widgets/eliding_label.h"

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

}  // namespace

RunsBrowser::RunsBrowser(QWidget* parent) : QWidget(parent) {
  m_model = new RunsTableModel(this);
  m_model->setRenameHandler(
      [this](const QString& folder, const QString& name) { return m_edits->rename(folder, name); });
  m_proxy = new RunsFilterProxy(this);
  m_proxy->setSourceModel(m_model);

  m_header = new ElidingLabel(this);
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_filters = new RunsFilters(m_proxy, this);
  m_watch = new IndexWatch(this);
  auto* refresh = new QPushButton(tr("Refresh"), this);
  refresh->setObjectName(QStringLiteral("refreshRuns"));
  connect(refresh, &QPushButton::clicked, this, &RunsBrowser::refresh);

  buildView();
  m_selection = std::make_unique<RunsSelection>(m_model, m_proxy, m_view);
  m_actions = new RunsBrowserActions(this, m_view);
  m_edits = new RunFolderEdits(this, m_model);
  layOut(refresh);
  connectParts();
  updateHeader();
  m_actions->update();
}

RunsBrowser::~RunsBrowser() = default;

// The runs list: a tree (a run's compressed models under it), sortable, its columns movable and hideable. It
// joins the browser under the bar (layOut): after the bar's buttons in the tab order.
void RunsBrowser::buildView() {
  m_view = new QTreeView;
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
  m_columns = new RunsColumns(m_view, m_model);
}

// The bar: the filters, the header saying how many runs show, the buttons; the list under it.
void RunsBrowser::layOut(QPushButton* refresh) {
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(m_filters->searchBox());
  bar->addWidget(m_filters->statusFilter());
  bar->addWidget(m_filters->sweepFilter());
  bar->addWidget(m_header, 1);
  for (QPushButton* b : m_actions->buttons()) bar->addWidget(b);
  bar->addWidget(refresh);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(m_view, 1);
}

void RunsBrowser::connectParts() {
  connect(m_filters, &RunsFilters::changed, this, &RunsBrowser::updateHeader);
  connect(m_watch, &IndexWatch::changed, this, &RunsBrowser::refresh);
  connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    m_actions->update();
    emit selectionChanged();
  });
  connect(m_view, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) {
    if (!index.parent().isValid())
      m_actions->openSelected();  // a compressed model: its row expands or collapses
  });
  connect(m_actions, &RunsBrowserActions::openRequested, this, &RunsBrowser::openRequested);
  connect(m_actions, &RunsBrowserActions::cloneRequested, this, &RunsBrowser::cloneRequested);
  connect(m_actions, &RunsBrowserActions::resumeRequested, this, &RunsBrowser::resumeRequested);
  connect(m_actions, &RunsBrowserActions::evaluateRequested, this, &RunsBrowser::evaluateRequested);
  connect(m_actions, &RunsBrowserActions::backToLiveRequested, this, &RunsBrowser::backToLiveRequested);
  connect(m_model, &RunsTableModel::renameFailed, m_edits,
          [this](const QString& message) { m_edits->showError(tr("The run was not renamed"), message); });
  connect(m_edits, &RunFolderEdits::renamed, this, &RunsBrowser::runRenamed);
  connect(m_edits, &RunFolderEdits::tagsAndNotesChanged, m_actions, &RunsBrowserActions::update);
  connect(m_edits, &RunFolderEdits::removed, this, &RunsBrowser::runsDeleted);
  connect(m_edits, &RunFolderEdits::folderChanged, this, &RunsBrowser::refresh);
}

void RunsBrowser::setRunsDir(const QString& dir) {
  if (dir == m_dir) return;
  m_dir = dir;
  m_watch->setRunsDir(dir);
  refresh();
  emit runsDirChanged(dir);
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
  m_columns->fitOnce();
  m_filters->offerSweeps(sweepNamesOf(m_model->rows()));
  m_hasWantedSelection = false;
  selectFolders(keep);
  updateHeader();
  m_actions->update();
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

int RunsBrowser::selectedRowCount() const {
  return m_selection->rowCount();
}

QStringList RunsBrowser::selectedFolders() const {
  return m_selection->folders();
}

void RunsBrowser::selectFolders(const QStringList& folders) {
  if (m_loading) {
    m_wantedSelection = folders;
    m_hasWantedSelection = true;
  }
  m_selection->select(folders);
}

void RunsBrowser::addToSelection(const QString& folder) {
  m_selection->add(folder);
}

std::optional<RunRecord> RunsBrowser::run(const QString& folder) const {
  const RunRecord* r = m_model->record(folder);
  return r ? std::optional<RunRecord>(*r) : std::nullopt;
}

std::optional<RunRecord> RunsBrowser::selectedRun() const {
  return m_selection->run();
}

QString RunsBrowser::selectedArtifact() const {
  return m_selection->artifact();
}

bool RunsBrowser::selectArtifact(const QString& folder, const QString& artifact) {
  return m_selection->selectArtifact(folder, artifact);
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

}  // namespace wb::gui
