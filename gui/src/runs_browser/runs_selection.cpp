#include "runs_browser/runs_selection.h"

#include <QItemSelectionModel>
#include <QTreeView>
#include <algorithm>

#include "runs_browser/runs_filter_proxy.h"
#include "runs_browser/runs_table_model.h"

namespace wb::gui {

RunsSelection::RunsSelection(RunsTableModel* model, RunsFilterProxy* proxy, QTreeView* view)
    : m_model(model), m_proxy(proxy), m_view(view) {}

int RunsSelection::rowCount() const {
  return static_cast<int>(m_view->selectionModel()->selectedRows().size());
}

QStringList RunsSelection::folders() const {
  QModelIndexList rows = m_view->selectionModel()->selectedRows();
  std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) {
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

void RunsSelection::select(const QStringList& folders) {
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

void RunsSelection::add(const QString& folder) {
  const int row = m_model->runRow(folder);
  if (row < 0) return;
  const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
  m_view->selectionModel()->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
}

std::optional<RunRecord> RunsSelection::run() const {
  const QStringList selected = folders();
  if (selected.size() != 1) return std::nullopt;
  const RunRecord* r = m_model->record(selected.front());
  return r ? std::optional<RunRecord>(*r) : std::nullopt;
}

QString RunsSelection::artifact() const {
  const QModelIndexList rows = m_view->selectionModel()->selectedRows();
  if (rows.size() != 1 || !rows.front().parent().isValid()) return {};
  return rows.front().data(RunsTableModel::kArtifactRole).toString();
}

bool RunsSelection::selectArtifact(const QString& folder, const QString& artifact) {
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

}  // namespace wb::gui
