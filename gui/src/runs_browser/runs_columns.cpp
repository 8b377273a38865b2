#include "runs_browser/runs_columns.h"

#include <QAction>
#include <QFontMetrics>
#include <QHeaderView>
#include <QMenu>
#include <QTreeView>
#include <utility>

#include "runs_browser/runs_table_model.h"

namespace wb::gui {
namespace {

constexpr RunsTableModel::Column kHiddenAtFirst[] = {RunsTableModel::kSteps, RunsTableModel::kSize};

}  // namespace

RunsColumns::RunsColumns(QTreeView* view, RunsTableModel* model)
    : QObject(view), m_view(view), m_model(model) {
  m_view->header()->setContextMenuPolicy(Qt::CustomContextMenu);
  for (RunsTableModel::Column c : kHiddenAtFirst) m_view->setColumnHidden(c, true);
  connect(m_view->header(), &QHeaderView::customContextMenuRequested, this, &RunsColumns::showMenu);
}

void RunsColumns::showMenu(const QPoint& at) {
  QMenu menu(m_view);
  for (int c = 0; c < RunsTableModel::kColumnCount; ++c) {
    if (c == RunsTableModel::kName) continue;
    QAction* a = menu.addAction(m_model->headerData(c, Qt::Horizontal).toString());
    a->setCheckable(true);
    a->setChecked(!m_view->isColumnHidden(c));
    connect(a, &QAction::toggled, this, [this, c](bool on) { m_view->setColumnHidden(c, !on); });
  }
  menu.exec(m_view->header()->mapToGlobal(at));
}

void RunsColumns::fitOnce() {
  if (m_fitted || m_model->rowCount() == 0) return;
  m_fitted = true;
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

}  // namespace wb::gui
