#include "app/screenshot_driver.h"

#include <QApplication>
#include <QPixmap>
#include <cstdio>

#include "charts/charts_panel.h"
#include "run/past_runs_on_charts.h"
#include "window/main_window.h"

namespace wb::gui {
namespace {

constexpr int kSettleMs = 400;              // a drain tick and a replot tick after the last event
constexpr int kTimeoutMs = 30 * 60 * 1000;  // a screenshot that takes longer than this is stuck

}  // namespace

ScreenshotDriver::ScreenshotDriver(MainWindow* window, QString file, long long afterSteps, QObject* parent)
    : QObject(parent), m_window(window), m_file(std::move(file)), m_afterSteps(afterSteps) {
  m_window->setErrorPresenter([this](const QString& title, const QString& message, const QString& hint) {
    std::fprintf(stderr, "error: %s: %s\n  what to do: %s\n", qPrintable(title), qPrintable(message),
                 qPrintable(hint));
    m_failed = true;
  });
  // The engine's checks refused the experiment (the error presenter printed why): nothing will train.
  connect(m_window, &MainWindow::startRefused, this, [] {
    std::fprintf(stderr, "error: the experiment could not start (see above)\n");
    QApplication::exit(2);
  });
  connect(m_window, &MainWindow::stepReported, this, [this](qint64 step) {
    if (!m_captured && step >= m_afterSteps) {
      m_captured = true;
      QTimer::singleShot(kSettleMs, this, &ScreenshotDriver::capture);
    }
  });
  connect(m_window, &MainWindow::runEnded, this, [this](const RunSummary& summary) {
    if (!m_captured) {
      // The run ended before N steps (a short experiment, or a failure): the window as it is now.
      m_captured = true;
      m_failed = m_failed || summary.status == RunStatus::Failed;
      QTimer::singleShot(kSettleMs, this, [this] { capture(); });
      return;
    }
    // A run that ends while its capture waits to settle (a short one) is closed by the capture.
    m_failed = m_failed || summary.status == RunStatus::Failed;
    if (m_saved) finish(m_exitCode);
  });
  m_timeout.setSingleShot(true);
  m_timeout.setInterval(kTimeoutMs);
  connect(&m_timeout, &QTimer::timeout, this, [this] {
    std::fprintf(stderr, "error: no screenshot after %d minutes\n", kTimeoutMs / 60000);
    QApplication::exit(1);
  });
}

void ScreenshotDriver::start() {
  m_timeout.start();
  if (!m_window->runActions()->startRun()) {
    std::fprintf(stderr, "error: the experiment could not start (see above)\n");
    QTimer::singleShot(0, this, [] { QApplication::exit(2); });
  }
}

void ScreenshotDriver::startWithoutTraining() {
  m_timeout.start();
  m_captured = true;
  auto* poll = new QTimer(this);
  poll->setInterval(100);
  connect(poll, &QTimer::timeout, this, [this, poll] {
    if (m_window->pastRuns()->pendingLoads() > 0) return;
    poll->stop();
    QTimer::singleShot(kSettleMs, this, &ScreenshotDriver::capture);
  });
  poll->start();
}

void ScreenshotDriver::capture() {
  m_window->charts()->replotAllNow();
  const QPixmap shot = m_target ? m_target->grab() : m_window->grab();
  if (shot.isNull() || !shot.save(m_file, "PNG")) {
    std::fprintf(stderr, "error: could not write %s\n", qPrintable(m_file));
    m_exitCode = 1;
  } else {
    std::printf("Saved %s (%dx%d) at step %lld\n", qPrintable(m_file), shot.width(), shot.height(),
                static_cast<long long>(m_window->runActions()->lastStep()));
    m_exitCode = m_failed ? 1 : 0;
  }
  m_saved = true;
  if (m_window->runActions()->controller()->isActive()) {
    m_window->runActions()
        ->controller()
        ->stop();  // runEnded then finishes; the run folder keeps a resumable checkpoint
  } else {
    finish(m_exitCode);
  }
}

void ScreenshotDriver::finish(int code) {
  QApplication::exit(code);
}

}  // namespace wb::gui
