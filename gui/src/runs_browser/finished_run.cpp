#include "runs_browser/finished_run.h"

#include <QObject>
#include <optional>

#include "runs_browser/runs_browser.h"

namespace wb::gui {

QString finishedRunFolder(const RunsBrowser* runs, const QString& runDir, const QString& why,
                          const QString& command, const ErrorPresenter& presentError) {
  if (!runDir.isEmpty()) return runDir;
  const std::optional<RunRecord> selected = runs->selectedRun();
  if (!selected || selected->status != RunIndexStatus::Finished) {
    // A window whose presenter was taken away (tests) says nothing, as MainWindow::showError does.
    if (!presentError) return QString();
    presentError(QObject::tr("No finished run selected"), why,
                 QObject::tr("Select a finished run in the Runs panel (View ▸ Runs), then choose %1 again.")
                     .arg(command));
    return QString();
  }
  return QString::fromStdString(selected->folder);
}

}  // namespace wb::gui
