#pragma once
// The Profile tab: what a profile of a few training steps found (Run ▸ Profile Steps…, or one a finished run
// folder holds). The step's phases as a bar (data, forward, backward, optimizer, allreduce, in milliseconds),
// the operator table (self and total CPU and CUDA time, calls, input shapes, memory), sortable by any column
// and filtered by operator name or shapes, and the trace the engine wrote, with a button to its folder and
// where to open it (Perfetto, chrome://tracing). Before any profile it says how to get one.

#include <QString>
#include <QWidget>

#include "profile_view/phase_bar.h"
#include "workbench/profile_report.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace wb::gui {

class ElidingLabel;
class PhaseBar;
class ProfileTableModel;

// The bar's segments for a report: its phases in StepPhase order, the colours fixed per phase; a phase this
// run's step does not have (allreduce with one device) kept with no time ("allreduce —"); and "other", the
// step's time outside every phase (logging, host syncs), when there is a noticeable amount of it.
std::vector<PhaseSegment> phaseSegments(const ProfileReport& report);

class ProfileView : public QWidget {
  Q_OBJECT

 public:
  explicit ProfileView(QWidget* parent = nullptr);

  // Shows a report; `run` names the run it profiled (the header line says it).
  void showReport(const ProfileReport& report, const QString& run);
  // Back to the empty state (a new run starts: the old run's profile is not this one's).
  void clear();
  // The latest profile a run folder holds (RUN/profile/*.json), read off the UI thread; a folder without one
  // (or whose report cannot be read: `loaded` says why) leaves the tab as it is.
  void loadRunFolder(const QString& runDir);

  bool hasReport() const { return m_hasReport; }
  const ProfileReport& report() const;
  QString headerText() const;
  QString emptyText() const;
  ProfileTableModel* tableModel() const { return m_model; }
  QSortFilterProxyModel* proxy() const { return m_proxy; }
  QTableView* table() const { return m_table; }
  PhaseBar* phaseBar() const { return m_phases; }
  QLineEdit* filterEdit() const { return m_filter; }
  QString tracePath() const;
  QPushButton* openFolderButton() const { return m_openFolder; }

 signals:
  // A loadRunFolder came back: whether the folder had a profile (now shown), and what was wrong with it.
  void loaded(const QString& runDir, bool found, const QString& problem);

 private:
  QWidget* buildEmptyPage();
  QWidget* buildReportPage();
  void showColumns();

  QStackedWidget* m_pages = nullptr;
  QLabel* m_empty = nullptr;
  ElidingLabel* m_header = nullptr;
  PhaseBar* m_phases = nullptr;
  ElidingLabel* m_trace = nullptr;
  QPushButton* m_openFolder = nullptr;
  QLineEdit* m_filter = nullptr;
  QTableView* m_table = nullptr;
  ProfileTableModel* m_model = nullptr;
  QSortFilterProxyModel* m_proxy = nullptr;
  bool m_hasReport = false;
  int m_loadGeneration = 0;  // a folder load that comes back after another was asked for is dropped
};

}  // namespace wb::gui
