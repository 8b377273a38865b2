#pragma once
// What the window's benchmarks report of a set of timings.

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <vector>

namespace wb::gui::bench {

// The p-th percentile (0..100) by the nearest-rank method; 0 for no values.
inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

// How busy the UI thread is: a 10 ms timer, and how late each of its ticks fires (ms) — the time the event
// loop spent on something else.
class LatenessProbe {
 public:
  LatenessProbe() {
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(10);
    QObject::connect(&m_timer, &QTimer::timeout, &m_timer, [this] {
      const qint64 now = m_clock.nsecsElapsed();
      if (m_last > 0) m_lateness.push_back(std::max(0.0, (now - m_last) / 1e6 - 10.0));
      m_last = now;
    });
  }
  void start() {
    m_clock.start();
    m_timer.start();
  }
  void stop() { m_timer.stop(); }
  double seconds() const { return m_clock.nsecsElapsed() / 1e9; }
  const std::vector<double>& lateness() const { return m_lateness; }

 private:
  QTimer m_timer;
  QElapsedTimer m_clock;
  qint64 m_last = 0;
  std::vector<double> m_lateness;
};

}  // namespace wb::gui::bench
