#pragma once
// Runs one wb::exportModel on a pool thread for the window (a PoolJob). The engine's progress callback only
// stores a number (per mille) that a UI-thread timer reads, so the worker never touches a QObject; the
// outcome comes back on the UI thread. Nothing here waits on the worker.

#include <QObject>
#include <QString>
#include <atomic>
#include <functional>

#include "app/pool_job.h"
#include "workbench/export.h"

namespace wb::gui {

// What an export came to: the engine's result, or its error in words a user can act on.
struct ExportOutcome {
  ExportRequest request;
  bool ok = false;
  ExportResult result;
  QString error;  // when !ok: what went wrong
  QString hint;   // ... and what to do (may be empty)
};

class ModelExporter : public QObject {
  Q_OBJECT

 public:
  explicit ModelExporter(QObject* parent = nullptr);
  ~ModelExporter() override;

  // False (and nothing starts) while an export is in flight.
  bool start(const ExportRequest& request);
  bool isActive() const { return m_job.isRunning(); }
  double progress() const;  // 0..1, of the export in flight

 signals:
  void progressChanged(double fraction);
  void finished(const wb::gui::ExportOutcome& outcome);

 private:
  struct Progress : JobState {
    std::atomic<int> permille{0};
  };
  void poll(const Progress& progress);

  PoolJob<Progress, ExportOutcome> m_job;
  int m_shownPermille = -1;
};

// Runs the export on the calling thread, turning every exception into an outcome (used by the worker).
ExportOutcome runExport(const ExportRequest& request, const std::function<void(double)>& progress);

}  // namespace wb::gui
