#pragma once
// Compress ▸ Prune…, Quantize to int8…, Distill… and Pipeline…: a finished run compressed, from the dialog to
// the pipeline's end. Owns the engine's pipeline on its thread (CompressionController) and shows what it
// reports: stages and figures in the Compression view, each pass's fine-tuning as a trace of its own on the
// Training charts, log lines and errors; the view's Cancel stops it with a checkpoint. The items are enabled
// for one finished run selected and no pipeline running. The window adds the menu to its menu bar; tests
// drive it with the views alone.

#include <QObject>
#include <QString>
#include <functional>

#include "compression_view/compress_dialog.h"
#include "window/error_presenter.h"
#include "workbench/events.h"

class QAction;
class QMenu;
class QWidget;

namespace wb::gui {

class ChartsPanel;
class CompressionController;
class CompressionView;
class LogPanel;
class RunsBrowser;

class CompressionActions : public QObject {
  Q_OBJECT

 public:
  // `window` parents the dialogs and the menu.
  CompressionActions(RunsBrowser* runs, ChartsPanel* charts, CompressionView* view, LogPanel* log,
                     QWidget* window, ErrorPresenter presentError);

  QMenu* menu() const { return m_menu; }
  CompressionController* controller() const { return m_controller; }

  // Opens the dialog for a finished run (the one selected in the runs browser when `runDir` is empty),
  // window-modal and without a nested event loop; OK starts the pipeline. nullptr (after telling the user)
  // when there is no finished run to compress or a pipeline is already running.
  CompressDialog* openDialog(CompressDialog::Kind kind, const QString& runDir = QString());
  // Starts compressing a finished run with these passes; false when a pipeline is already running.
  bool start(const QString& runDir, const CompressConfig& config);
  // The Compression view shows this run's compressions.
  bool shows(const QString& runDir) const;
  // The view follows the runs browser's selection (one run selected).
  void followSelection();
  // Enables the items from the selection and the pipeline.
  void updateActions();
  // Takes the fine-tuning curves of finished pipelines off the Training charts (a pass still being
  // fine-tuned keeps its own): a new run is drawn on charts of its own, its axes fitted to it alone.
  void clearFinishedTraces();

 signals:
  // The Compression view wants to be in front (a pipeline started).
  void viewWanted();
  void statusMessage(const QString& text);
  // A pipeline started or ended: what depends on it follows.
  void changed();
  void finished(const wb::RunSummary& summary);

 private:
  void onEvents(const EventBatch& batch);
  void onFinished(const RunSummary& summary);
  void cancel();

  RunsBrowser* m_runs;
  ChartsPanel* m_charts;
  CompressionView* m_view;
  LogPanel* m_log;
  QWidget* m_window;
  ErrorPresenter m_presentError;
  CompressionController* m_controller;
  QString m_trace;  // the Training charts' trace of the pass being fine-tuned
  QMenu* m_menu;
  QAction* m_prune = nullptr;
  QAction* m_quantize = nullptr;
  QAction* m_distill = nullptr;
  QAction* m_pipeline = nullptr;
};

}  // namespace wb::gui
