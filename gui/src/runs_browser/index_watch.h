#pragma once
// Notices when a runs folder's index changes, whoever wrote it — this window, the CLI, a queue worker,
// torchrun on shared storage: every second the size and time of runs.sqlite and its write-ahead log
// (runs.sqlite-wal) are read off the UI thread, and `changed` is emitted when they differ from the last look.
// SQLite writes one of them on every commit, so a run registered, a step count updated or a queue entry
// claimed shows up within a second, without a query per tick.

#include <QObject>
#include <QString>
#include <QTimer>

namespace wb::gui {

class IndexWatch : public QObject {
  Q_OBJECT

 public:
  explicit IndexWatch(QObject* parent = nullptr);

  void setRunsDir(const QString& dir);  // the first look after it counts as a change
  void setInterval(int ms) { m_timer.setInterval(ms); }
  int looks() const { return m_looks; }  // completed looks (tests wait on them)

 signals:
  void changed();

 private:
  void look();

  QTimer m_timer;
  QString m_dir;
  QString m_stamp;  // "size:mtime-ns" of both files; empty before the first look
  bool m_inFlight = false;
  int m_generation = 0;
  int m_looks = 0;
};

}  // namespace wb::gui
