#pragma once
// What the runs list shows of the model: runs whose name, model, data, optimizer, tags, notes or folder
// contain every word typed in the search box (case-insensitive; "tag:baseline" looks in tags only), with one
// of the ticked statuses, of one sweep when one is picked; sorted by the clicked column's value (numbers as
// numbers). A run's compressed models stay under it, in their order.

#include <QSet>
#include <QSortFilterProxyModel>
#include <QStringList>

namespace wb::gui {

class RunsFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit RunsFilterProxy(QObject* parent = nullptr);

  void setSearchText(const QString& text);
  QString searchText() const { return m_text; }
  // Index status words ("finished", "running", …) to show; empty shows every status.
  void setStatuses(const QSet<QString>& statuses);
  QSet<QString> statuses() const { return m_statuses; }
  // Only the trials of this sweep (runs tagged "sweep:NAME"); empty shows every run.
  void setSweep(const QString& name);
  QString sweep() const { return m_sweep; }

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  QString m_text;
  QStringList m_words;     // lower case
  QStringList m_tagWords;  // "tag:x" words, lower case
  QSet<QString> m_statuses;
  QString m_sweep;
};

}  // namespace wb::gui
