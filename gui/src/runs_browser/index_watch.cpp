#include "runs_browser/index_watch.h"

#include <sys/stat.h>

#include "app/off_thread.h"

namespace wb::gui {
namespace {

QString fileStamp(const QString& path) {
  struct stat st {};
  if (::stat(path.toLocal8Bit().constData(), &st) != 0) return QStringLiteral("-");
  return QStringLiteral("%1:%2.%3").arg(st.st_size).arg(st.st_mtim.tv_sec).arg(st.st_mtim.tv_nsec);
}

}  // namespace

IndexWatch::IndexWatch(QObject* parent) : QObject(parent) {
  m_timer.setInterval(1000);
  connect(&m_timer, &QTimer::timeout, this, &IndexWatch::look);
}

void IndexWatch::setRunsDir(const QString& dir) {
  m_dir = dir;
  m_stamp.clear();
  ++m_generation;
  if (m_dir.isEmpty()) {
    m_timer.stop();
    return;
  }
  m_timer.start();
}

void IndexWatch::look() {
  if (m_inFlight || m_dir.isEmpty()) return;
  m_inFlight = true;
  const QString index = m_dir + QStringLiteral("/runs.sqlite");
  runOffThread(
      this,
      [index] { return fileStamp(index) + QLatin1Char(' ') + fileStamp(index + QStringLiteral("-wal")); },
      [this, generation = m_generation](const QString& stamp) {
        m_inFlight = false;
        ++m_looks;
        if (generation != m_generation) return;
        // The first look too: the index may have changed between the reader's load and this look.
        const bool differs = stamp != m_stamp;
        m_stamp = stamp;
        if (differs) emit changed();
      });
}

}  // namespace wb::gui
