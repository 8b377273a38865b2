#pragma once
// Runs one wb::exportModel on a pool thread for the window. The engine's progress callback only stores a number
// (per mille) that a UI-thread timer reads, so the worker never touches a QObject; the outcome comes back through
// a QFutureWatcher on the UI thread. Nothing here waits on the worker.

#include <atomic>
#include <memory>

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>

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
  bool isActive() const { return m_active; }
  double progress() const;  // 0..1, of the export in flight

 signals:
  void progressChanged(double fraction);
  void finished(const wb::gui::ExportOutcome& outcome);

 private:
  void poll();

  QFutureWatcher<ExportOutcome>* m_watcher = nullptr;
  // Shared with the worker: it outlives this object when the window closes mid-export.
  std::shared_ptr<std::atomic<int>> m_permille;
  int m_shownPermille = -1;
  QTimer m_poll;
  bool m_active = false;
};

// Runs the export on the calling thread, turning every exception into an outcome (used by the worker).
ExportOutcome runExport(const ExportRequest& request, const std::function<void(double)>& progress);

}  // namespace wb::gui
