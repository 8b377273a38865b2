#pragma once
// Follows runs that another process trains (the CLI, a queue worker, torchrun on shared storage) from their
// run folders: twice a second the lines each one's metrics.jsonl gained are read off the UI thread
// (wb::readRunHistoryTail) and handed over as they are; a run is let go once its summary.json exists (after
// its last lines) or when unfollowed. The window reads such runs only through the folder and the index.

#include <QObject>
#include <QString>
#include <QTimer>
#include <map>

#include "workbench/run_history.h"

namespace wb::gui {

class RunFollower : public QObject {
  Q_OBJECT

 public:
  explicit RunFollower(QObject* parent = nullptr);

  // Follows `folder` from byte `offset` of its metrics.jsonl (what loadRunHistory already read).
  void follow(const QString& folder, quint64 offset);
  void unfollow(const QString& folder);
  bool follows(const QString& folder) const { return m_runs.count(folder) > 0; }
  int followedCount() const { return static_cast<int>(m_runs.size()); }
  void setInterval(int ms) { m_timer.setInterval(ms); }

 signals:
  // New lines of a followed run, in file order.
  void appended(const QString& folder, const wb::RunHistoryTail& tail);
  // The run ended (its summary is written); it is no longer followed.
  void ended(const QString& folder);
  // Its metrics.jsonl was cut back (the run resumed from a checkpoint): no longer followed; open it again.
  void rewound(const QString& folder);

 private:
  void poll();

  struct Followed {
    quint64 offset = 0;
    bool inFlight = false;
    int generation = 0;  // a folder unfollowed and followed again ignores the older read
  };
  std::map<QString, Followed> m_runs;
  int m_generation = 0;
  QTimer m_timer;
};

}  // namespace wb::gui
