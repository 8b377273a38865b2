#pragma once
// What narrows the runs list: a search box, a status chooser and, once the runs folder has sweeps, a sweep
// chooser. Each sets its part of the filter (runs_filter_proxy.h) as it changes. The widgets sit in the
// browser's bar among its own.

#include <QObject>
#include <QString>
#include <QStringList>
#include <vector>

class QComboBox;
class QLineEdit;
class QWidget;

namespace wb::gui {

class RunsFilterProxy;
struct RunRow;

// The sweeps of these runs, by their sweep:NAME tags, sorted.
QStringList sweepNamesOf(const std::vector<RunRow>& rows);

class RunsFilters : public QObject {
  Q_OBJECT

 public:
  RunsFilters(RunsFilterProxy* proxy, QWidget* browser);

  QLineEdit* searchBox() const { return m_search; }
  QComboBox* statusFilter() const { return m_status; }
  QComboBox* sweepFilter() const { return m_sweep; }
  // Filters to that sweep's trials ("" for every run), offered even before its first trial is listed.
  void showSweep(const QString& name);
  // The sweeps of the runs listed, in the sweep chooser (the one picked stays); it shows once there are any.
  void offerSweeps(const QStringList& sweeps);

 signals:
  void changed();  // the list shows other runs

 private:
  RunsFilterProxy* m_proxy;
  QLineEdit* m_search;
  QComboBox* m_status;
  QComboBox* m_sweep;
};

}  // namespace wb::gui
