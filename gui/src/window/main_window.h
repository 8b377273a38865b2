#pragma once
// The workbench window: the experiment editor (left), the live charts (centre), the runs browser and the log
// (bottom), run controls and progress (top). It adapts the engine's events to widgets; it never waits on the
// training thread.

#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>
#include <QStringList>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "compression_view/compress_dialog.h"
#include "run/run_controller.h"
#include "run/run_lifecycle.h"
#include "workbench/events.h"

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QTabWidget;

namespace wb::gui {

class LiveControlActions;

class ChartsPanel;
class CompressionController;
class CompressionView;
class EvaluationView;
class DataPreviewView;
class ModelSummaryView;
class ExperimentEditor;
class ExportMenu;
class LogPanel;
class QueueActions;
class QueuePanel;
class RecentFiles;
class RunFollower;
class SweepView;
class RunProgress;
class RunsBrowser;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  struct Options {
    bool useSettings = true;  // restore and save layout (off for screenshots and tests)
  };
  // Shows a problem to the user: a dialog by default. Tests and the benchmark may replace it.
  using ErrorPresenter =
      std::function<void(const QString& title, const QString& message, const QString& hint)>;
  // Asks whether to resume a run whose experiment file changed since its checkpoint (the engine refused it,
  // naming the changes in `message`); calls `resumeAnyway` on yes. A dialog by default; tests may replace it.
  using ForceResumeAsker = std::function<void(const QString& message, std::function<void()> resumeAnyway)>;

  explicit MainWindow(Options options, QWidget* parent = nullptr);
  MainWindow() : MainWindow(Options{}) {}
  ~MainWindow() override;

  bool openFile(const QString& file);  // false (after telling the user) when unreadable
  bool saveFile(const QString& file);
  QString currentFile() const { return m_file; }

  // Run ▸ Start with what the editor holds. The form is parsed at once, then the engine's full checks
  // (checkExperiment: devices, data files, model shapes) run off the UI thread and the run starts once they
  // pass; when they find problems no run starts, the form marks them and startRefused is emitted. True while
  // those checks are under way; false at once when the form has issues or a run (or another Start's check) is
  // active.
  bool startRun();
  bool isCheckingStart() const { return m_lifecycle.phase() == RunLifecycle::Phase::Checking; }
  const RunLifecycle& lifecycle() const { return m_lifecycle; }
  // Starts a given experiment as-is (the editor's checks are skipped: the engine still checks it).
  bool startExperiment(const Experiment& experiment);
  // Continues an interrupted run in its folder; `force` resumes even though its experiment file changed.
  bool resumeRun(const QString& runDir, bool force = false);
  void openRuns(const QStringList& folders, bool replace);
  void cloneRun(const QString& folder);
  // Brings the runs browser to the front with these runs selected (after `workbench --open`).
  void showRunsPanel(const QStringList& selected);

  // Compress ▸ …: opens the dialog for a finished run (the one selected in the runs browser when `runDir` is
  // empty), window-modal and without a nested event loop; OK starts the pipeline. nullptr (after telling the
  // user) when there is no finished run to compress or a pipeline is already running.
  CompressDialog* openCompressDialog(CompressDialog::Kind kind, const QString& runDir = QString());
  // Starts compressing a finished run with these passes; false when a pipeline is already running.
  bool startCompression(const QString& runDir, const CompressConfig& config);
  // Shows a run's Compression view (its runs folder in the runs browser, the run selected).
  void showCompression(const QString& runDir);

  void setErrorPresenter(ErrorPresenter presenter) { m_presentError = std::move(presenter); }
  void setForceResumeAsker(ForceResumeAsker asker) { m_askForceResume = std::move(asker); }
  void showError(const QString& title, const QString& message, const QString& hint);

  ExperimentEditor* editor() const { return m_editor; }
  ChartsPanel* charts() const { return m_charts; }
  RunsBrowser* runsBrowser() const { return m_runs; }
  LogPanel* logPanel() const { return m_log; }
  RunProgress* progress() const { return m_progress; }
  RunController* controller() const { return m_controller; }
  CompressionController* compressor() const { return m_compressor; }
  CompressionView* compressionView() const { return m_compressionView; }
  // The Model tab (the editor's experiment, layer by layer) and the Evaluation tab (a finished run's test
  // figures).
  ModelSummaryView* modelView() const { return m_modelView; }
  DataPreviewView* dataView() const { return m_dataView; }
  EvaluationView* evaluationView() const { return m_evaluationView; }
  // Run ▸ Evaluate Run…: a finished run (the one selected in the runs browser when `runDir` is empty) on its
  // test split, in the Evaluation tab; false (after telling the user) when there is no finished run to
  // evaluate.
  bool evaluateRun(const QString& runDir = QString());
  QAction* evaluateAction() const { return m_evaluateAction; }
  QTabWidget* centralTabs() const { return m_centralTabs; }
  QMenu* compressMenu() const { return m_compressMenu; }
  // Export ▸ …: the selected run's or compressed model's files, its metrics, the charts.
  ExportMenu* exporter() const { return m_export; }
  QAction* startAction() const { return m_startAction; }
  // Run ▸ Change Learning Rate… and Stop After This Epoch.
  LiveControlActions* liveControl() const { return m_liveControl; }
  // The run queue (Run ▸ Queue, Queue Sweep…; the Queue dock), the Sweeps tab, and the runs this window
  // follows live from their folders because another process trains them.
  QueueActions* queueActions() const { return m_queueActions; }
  QueuePanel* queuePanel() const { return m_queue; }
  SweepView* sweepView() const { return m_sweepView; }
  RunFollower* follower() const { return m_follower; }
  int64_t lastStep() const { return m_lastStep; }
  int pendingHistoryLoads() const { return m_pendingLoads; }

 signals:
  void stepReported(qint64 step);
  // Start was refused by the engine's checks: `problems` is their text as the CLI prints it.
  void startRefused(const QString& problems);
  void runEnded(const wb::RunSummary& summary);
  // The queue has nothing left to train ("3 done, 1 failed"), told in the status bar, the log and the
  // taskbar.
  void queueFinished(const QString& summary);
  void compressionEnded(const wb::RunSummary& summary);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  // runDir, or the finished run selected in the runs browser; an empty string (after telling the user why the
  // command needs one) when there is none.
  QString finishedRunFolder(const QString& runDir, const QString& why, const QString& command);
  void buildActions();
  void buildMenus();
  void buildToolbar();
  void buildDocks();
  void restoreSettings();
  void saveSettings();

  void newExperiment();
  void openDialog();
  bool save();
  bool saveAs();
  bool confirmDiscard();
  void resumeDialog();
  void togglePause();
  void stopRun();
  void checkpointNow();
  void askToStopAndQuit();
  void withdrawQuitQuestion();
  void onJobEnded(bool close);

  void onEvents(const EventBatch& batch);
  void onStateChanged(RunController::State state);
  void onRunFinished(const RunSummary& summary);
  void updateTitle();
  void updateActions();
  void beginLiveTrace(const QString& label);
  void onStartChecked(const Experiment& experiment, const std::vector<ValidationIssue>& issues);
  void onCompressionEvents(const EventBatch& batch);
  void onCompressionFinished(const RunSummary& summary);
  void onRunSelectionChanged();
  bool showsCompressionOf(const QString& runDir) const;

  Options m_options;
  RunController* m_controller;
  LiveControlActions* m_liveControl = nullptr;
  CompressionController* m_compressor;
  QTabWidget* m_centralTabs = nullptr;
  CompressionView* m_compressionView = nullptr;
  QString m_compressionTrace;  // the Training charts' trace of the pass being fine-tuned
  ExperimentEditor* m_editor = nullptr;
  ChartsPanel* m_charts = nullptr;
  RunsBrowser* m_runs = nullptr;
  LogPanel* m_log = nullptr;
  RunProgress* m_progress = nullptr;
  QLabel* m_stateLabel = nullptr;
  QDockWidget* m_editorDock = nullptr;
  QDockWidget* m_runsDock = nullptr;
  QDockWidget* m_logDock = nullptr;
  QDockWidget* m_queueDock = nullptr;
  QueuePanel* m_queue = nullptr;
  QueueActions* m_queueActions = nullptr;
  SweepView* m_sweepView = nullptr;
  RunFollower* m_follower = nullptr;
  RecentFiles* m_recent = nullptr;
  QByteArray m_defaultState;

  QAction* m_newAction = nullptr;
  QAction* m_openAction = nullptr;
  QAction* m_saveAction = nullptr;
  QAction* m_saveAsAction = nullptr;
  QAction* m_quitAction = nullptr;
  QAction* m_startAction = nullptr;
  QAction* m_pauseAction = nullptr;
  QAction* m_stopAction = nullptr;
  QAction* m_checkpointAction = nullptr;
  QAction* m_resumeAction = nullptr;
  QAction* m_pruneAction = nullptr;
  QAction* m_quantizeAction = nullptr;
  QAction* m_distillAction = nullptr;
  QAction* m_pipelineAction = nullptr;
  QAction* m_evaluateAction = nullptr;
  ModelSummaryView* m_modelView = nullptr;
  DataPreviewView* m_dataView = nullptr;
  EvaluationView* m_evaluationView = nullptr;
  QMenu* m_recentMenu = nullptr;
  QMenu* m_compressMenu = nullptr;
  ExportMenu* m_export = nullptr;

  QString m_file;
  ErrorPresenter m_presentError;
  ForceResumeAsker m_askForceResume;
  int64_t m_lastStep = 0;
  int m_pendingLoads = 0;
  QPointer<QMessageBox> m_quitQuestion;  // "Stop the run and quit?" while it is open
  RunLifecycle
      m_lifecycle;  // checking, starting, resuming, running, paused, stopping; Resume Anyway; quitting
};

}  // namespace wb::gui
