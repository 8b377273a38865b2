#pragma once
// Run ▸ Queue, Queue Sweep… and Start Queue Worker: the experiment in the editor, or a sweep's trials over it
// (built in the Sweep Builder, sweep_view/sweep_builder_dialog.h, or read from a sweep file), checked by the
// engine off the UI thread and added to the queue of its runs folder (wb::addToQueue, wb::queueSweep); a
// worker process is started unless this window's own is still working. Problems (a field the engine refuses,
// a sweep key that is not an experiment key) are shown naming the thing, and nothing is queued.

#include <QObject>
#include <QString>
#include <functional>

#include "window/error_presenter.h"
#include "workbench/sweep.h"

class QAction;
class QWidget;

namespace wb::gui {

class ExperimentEditor;
class QueuePanel;
class SweepBuilderDialog;
struct QueueOutcome;

class QueueActions : public QObject {
  Q_OBJECT

 public:
  QueueActions(ExperimentEditor* editor, QueuePanel* panel, QWidget* window, ErrorPresenter presentError);

  QAction* queueAction() const { return m_queue; }
  QAction* queueSweepAction() const { return m_queueSweep; }
  QAction* startWorkerAction() const { return m_startWorker; }

  // Adds the editor's experiment; false at once when the form has problems, else the checks run and queued or
  // refused follows.
  bool queueExperiment();
  // Plans `sweepFile` over the editor's experiment and queues its trials.
  bool queueSweep(const QString& sweepFile);
  // The same for a sweep the engine's parser has read (the Sweep Builder's).
  bool queueSweepSpec(const SweepSpec& spec);
  // Run ▸ Queue Sweep…: the Sweep Builder (it opens existing sweep files too), shown; deleted when closed.
  SweepBuilderDialog* openSweepBuilder();
  bool busy() const { return m_busy; }
  // Start a worker once something is queued (the default: yes).
  void setStartsWorker(bool starts) { m_startsWorker = starts; }

 signals:
  void queued(const QString& message);
  void sweepQueued(const QString& sweep, const QString& runsDir);
  void refused(const QString& problem);

 private:
  bool begin(const char* what);
  void finish(const QueueOutcome& out, const QString& refusedTitle);
  // Reads the sweep (a file, or one read already) and queues its trials, off the UI thread.
  bool queueSweepFrom(std::function<SweepSpec()> readSweep);

  ExperimentEditor* m_editor;
  QueuePanel* m_panel;
  QWidget* m_window;
  ErrorPresenter m_presentError;
  QAction* m_queue;
  QAction* m_queueSweep;
  QAction* m_startWorker;
  bool m_busy = false;
  bool m_startsWorker = true;
};

}  // namespace wb::gui
