#include "runs_browser/runs_filter_proxy.h"

#include "runs_browser/runs_table_model.h"

namespace wb::gui {

RunsFilterProxy::RunsFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(RunsTableModel::kSortRole);
  setDynamicSortFilter(true);
}

void RunsFilterProxy::setSearchText(const QString& text) {
  if (text == m_text) return;
  m_text = text;
  m_words.clear();
  m_tagWords.clear();
  for (const QString& word : text.toLower().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    if (word.startsWith(QLatin1String("tag:")) && word.size() > 4) {
      m_tagWords << word.mid(4);
    } else {
      m_words << word;
    }
  }
  invalidateFilter();
}

void RunsFilterProxy::setStatuses(const QSet<QString>& statuses) {
  if (statuses == m_statuses) return;
  m_statuses = statuses;
  invalidateFilter();
}

void RunsFilterProxy::setSweep(const QString& name) {
  if (name == m_sweep) return;
  m_sweep = name;
  invalidateFilter();
}

bool RunsFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  if (sourceParent.isValid()) return true;  // a compressed model is shown with its run
  const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
  if (!m_statuses.isEmpty() && !m_statuses.contains(index.data(RunsTableModel::kStatusRole).toString())) {
    return false;
  }
  if (!m_sweep.isEmpty()) {
    if (!index.data(RunsTableModel::kTagsRole).toStringList().contains(QStringLiteral("sweep:") + m_sweep))
      return false;
  }
  if (m_words.isEmpty() && m_tagWords.isEmpty()) return true;
  const QString text = index.data(RunsTableModel::kSearchTextRole).toString().toLower();
  for (const QString& word : m_words) {
    if (!text.contains(word)) return false;
  }
  if (!m_tagWords.isEmpty()) {
    const QString tags = sourceModel()->index(sourceRow, RunsTableModel::kTags).data().toString().toLower();
    const QStringList each = tags.split(QStringLiteral(", "));
    for (const QString& word : m_tagWords) {
      bool found = false;
      for (const QString& tag : each) found = found || tag.trimmed().startsWith(word);
      if (!found) return false;
    }
  }
  return true;
}

bool RunsFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  if (left.parent().isValid()) {
    // Compressed models keep their pipeline order whichever way the runs are sorted.
    const bool ascending = sortOrder() == Qt::AscendingOrder;
    return ascending ? left.row() < right.row() : left.row() > right.row();
  }
  const QVariant a = left.data(RunsTableModel::kSortRole);
  const QVariant b = right.data(RunsTableModel::kSortRole);
  if (a.typeId() == QMetaType::Double && b.typeId() == QMetaType::Double) return a.toDouble() < b.toDouble();
  return QString::compare(a.toString(), b.toString(), Qt::CaseInsensitive) < 0;
}

}  // namespace wb::gui
