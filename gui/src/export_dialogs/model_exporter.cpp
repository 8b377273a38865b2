#include "export_dialogs/model_exporter.h"

#include <algorithm>

#include <QtConcurrent/QtConcurrent>

#include "workbench/errors.h"

namespace wb::gui {
namespace {

constexpr int kPollIntervalMs = 50;  // the progress bar moves smoothly; the worker never signals per call

}  // namespace

ExportOutcome runExport(const ExportRequest& request, const std::function<void(double)>& progress) {
  ExportOutcome out;
  out.request = request;
  try {
    out.result = exportModel(request, progress);
    out.ok = true;
  } catch (const UserError& e) {
    out.error = QString::fromUtf8(e.what());
    out.hint = QString::fromStdString(e.hint());
  } catch (const std::exception& e) {
    out.error = QString::fromUtf8(e.what());
  } catch (...) {
    out.error = QObject::tr("An unknown error stopped the export.");
  }
  return out;
}

ModelExporter::ModelExporter(QObject* parent)
    : QObject(parent), m_watcher(new QFutureWatcher<ExportOutcome>(this)),
      m_permille(std::make_shared<std::atomic<int>>(0)) {
  m_poll.setInterval(kPollIntervalMs);
  connect(&m_poll, &QTimer::timeout, this, &ModelExporter::poll);
  connect(m_watcher, &QFutureWatcher<ExportOutcome>::finished, this, [this] {
    m_poll.stop();
    m_active = false;
    const ExportOutcome outcome = m_watcher->result();
    emit finished(outcome);
  });
}

// An export still in flight finishes on its pool thread and only writes the shared counter: nothing to join.
ModelExporter::~ModelExporter() = default;

bool ModelExporter::start(const ExportRequest& request) {
  if (m_active) return false;
  m_active = true;
  m_permille = std::make_shared<std::atomic<int>>(0);  // a fresh one: an earlier worker may still hold the last
  m_shownPermille = -1;
  std::shared_ptr<std::atomic<int>> permille = m_permille;
  m_watcher->setFuture(QtConcurrent::run([request, permille] {
    return runExport(request, [permille](double fraction) {
      permille->store(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000), std::memory_order_relaxed);
    });
  }));
  m_poll.start();
  poll();
  return true;
}

double ModelExporter::progress() const { return m_permille->load(std::memory_order_relaxed) / 1000.0; }

void ModelExporter::poll() {
  const int now = m_permille->load(std::memory_order_relaxed);
  if (now == m_shownPermille) return;
  m_shownPermille = now;
  emit progressChanged(now / 1000.0);
}

}  // namespace wb::gui
