#include "export_dialogs/model_exporter.h"

#include <algorithm>

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
    : QObject(parent),
      m_job(this, kPollIntervalMs,
            {[this](const Progress& progress) { poll(progress); },
             [this](ExportOutcome outcome) { emit finished(outcome); },
             {}}) {}

// An export still in flight finishes on its pool thread and only writes its own share of the counter.
ModelExporter::~ModelExporter() = default;

bool ModelExporter::start(const ExportRequest& request) {
  if (m_job.isRunning()) return false;
  m_shownPermille = -1;
  return m_job.start([request](Progress& progress) {
    return runExport(request, [&progress](double fraction) {
      progress.permille.store(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000),
                              std::memory_order_relaxed);
    });
  });
}

double ModelExporter::progress() const {
  const Progress* progress = m_job.state();
  return progress ? progress->permille.load(std::memory_order_relaxed) / 1000.0 : 0.0;
}

void ModelExporter::poll(const Progress& progress) {
  const int now = progress.permille.load(std::memory_order_relaxed);
  if (now == m_shownPermille) return;
  m_shownPermille = now;
  emit progressChanged(now / 1000.0);
}

}  // namespace wb::gui
