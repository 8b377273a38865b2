#pragma once
// The run queue of the runs folder shown (wb::listQueue, read off the UI thread whenever the index changes):
// its entries in order with their state, sweep, attempts and run or reason; the selected ones held or
// released, moved up or down, removed. "Start Worker" trains the queue in a workbench-cli process of its own
// (`queue run
// --until-empty`, its output in DIR/queue-worker.log), so the queue goes on when the window closes and a
// window opened later shows where it is; with several devices listed for it, it trains one entry per device
// at once. When the last entry ends, `queueFinished` says how it went.

#include <QString>
#include <QWidget>
#include <functional>
#include <vector>

#include "app/serial_reload.h"
#include "window/error_presenter.h"
#include "workbench/run_queue.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTreeWidget;

namespace wb::gui {

class QueuePanel : public QWidget {
  Q_OBJECT

 public:
  explicit QueuePanel(QWidget* parent = nullptr);

  void setRunsDir(const QString& dir);
  QString runsDir() const { return m_dir; }
  void reload();  // off the UI thread; entriesLoaded when read
  const std::vector<QueueEntry>& entries() const { return m_entries; }
  QTreeWidget* view() const { return m_view; }
  QLabel* summary() const { return m_summary; }
  // For the window's status bar: what the queue is doing (queueActivityText), hidden while it does nothing.
  QLabel* activityLabel() const { return m_activity; }
  int loads() const { return m_loads; }

  // Starts a worker process on the queue; false (after telling the user why) when there is none to start or
  // it could not start. A worker of this window still alive is not started twice.
  bool startWorker();
  // The worker's slots (`queue run --devices`): "cuda:0,cuda:1" trains one entry per GPU at once, "cpu,cpu"
  // two on half the cores each; empty, one entry at a time.
  QLineEdit* workerDevices() const { return m_devices; }
  bool workerAlive() const;
  qint64 workerPid() const { return m_workerPid; }

  // What the buttons do, on the selected entries (ids), off the UI thread; reload follows.
  void holdSelected(bool hold);
  void moveSelected(int by);  // -1 up, +1 down
  void removeSelected();
  void selectEntry(qint64 id);
  QList<qint64> selectedIds() const;

  void setErrorPresenter(ErrorPresenter present) { m_presentError = std::move(present); }

 signals:
  void entriesLoaded();
  // Nothing waits or runs any more, after something ran while this window watched: "3 done, 1 failed".
  void queueFinished(const QString& summary);

 private:
  void onLoaded(std::vector<QueueEntry> entries, const QString& problem, int generation);
  void changeOffThread(std::function<void()> change, const QString& what);
  void updateButtons();

  QString m_dir;
  std::vector<QueueEntry> m_entries;
  QString m_problem;
  SerialReload m_reload;
  int m_loads = 0;
  bool m_wasActive = false;  // something queued (not held) or running at the last load
  qint64 m_workerPid = 0;
  QTreeWidget* m_view;
  QLabel* m_summary;
  QLabel* m_activity;
  QPushButton* m_start;
  QLineEdit* m_devices;
  QPushButton* m_hold;
  QPushButton* m_up;
  QPushButton* m_down;
  QPushButton* m_remove;
  ErrorPresenter m_presentError;
};

}  // namespace wb::gui
