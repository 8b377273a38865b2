#pragma once
// The workbench window: the experiment editor (left), the live charts and the other tabs (centre), the runs
// browser, the log and the queue (bottom), run controls and progress (top). It composes the objects that own
// the behaviour — the experiment file (ExperimentDocument), the run (RunActions), compression
// (CompressionActions), past runs on the charts (PastRunsOnCharts), the queue (QueueActions), live control,
// the profiler (ProfileActions), export and the finders — into menus, docks and tabs, keeps the layout's
// settings, and closes only once the jobs it runs have ended (the close protocol). It never waits on the
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
#include "run/run_actions.h"
#include "run/run_controller.h"
#include "run/run_lifecycle.h"
#include "window/error_presenter.h"
#include "workbench/events.h"

class QAction;
class QDockWidget;
class QMenu;
class QTabWidget;

namespace wb::gui {

class ChartsPanel;
class CompressionActions;
class CompressionController;
class CompressionView;
class DataPreviewView;
class EvaluationView;
class ExperimentDocument;
class ExperimentEditor;
class ExportMenu;
class LiveControlActions;
class LogPanel;
class ModelSummaryView;
class PastRunsOnCharts;
class ProfileActions;
class ProfileView;
class QueueActions;
class QueuePanel;
class RunFollower;
class RunProgress;
class RunsBrowser;
class SweepView;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  struct Options {
    bool useSettings = true;  // restore and save layout (off for screenshots and tests)
  };
  // Shows a problem to the user: a dialog by default. Tests and the benchmark may replace it.
  using ForceResumeAsker = RunActions::ForceResumeAsker;

  explicit MainWindow(Options options, QWidget* parent = nullptr);
  MainWindow() : MainWindow(Options{}) {}
  ~MainWindow() override;

  // The objects the window composes, each with its own actions and behaviour: the experiment file as a
  // document (File ▸ …), the run this window trains (Run ▸ Start, Pause, Stop, Checkpoint, Resume…), past
  // runs on the charts, and compression (Compress ▸ …).
  ExperimentDocument* document() const { return m_document; }
  RunActions* runActions() const { return m_run; }
  PastRunsOnCharts* pastRuns() const { return m_pastRuns; }
  CompressionActions* compression() const { return m_compression; }

  // Brings the runs browser to the front with these runs selected (after `workbench --open`).
  void showRunsPanel(const QStringList& selected);

  // Shows a run's Compression view (its runs folder in the runs browser, the run selected).
  void showCompression(const QString& runDir);

  void setErrorPresenter(ErrorPresenter presenter) { m_presentError = std::move(presenter); }
  void showError(const QString& title, const QString& message, const QString& hint);

  ExperimentEditor* editor() const { return m_editor; }
  ChartsPanel* charts() const { return m_charts; }
  RunsBrowser* runsBrowser() const { return m_runs; }
  LogPanel* logPanel() const { return m_log; }
  RunProgress* progress() const { return m_progress; }
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
  // Export ▸ …: the selected run's or compressed model's files, its metrics, the charts.
  ExportMenu* exporter() const { return m_export; }
  // Run ▸ Change Learning Rate… and Stop After This Epoch.
  LiveControlActions* liveControl() const { return m_liveControl; }
  // The run queue (Run ▸ Queue, Queue Sweep…; the Queue dock) and the Sweeps tab.
  QueueActions* queueActions() const { return m_queueActions; }
  QueuePanel* queuePanel() const { return m_queue; }
  SweepView* sweepView() const { return m_sweepView; }
  // Run ▸ Profile Steps… and the Profile tab (the operator table and the step's phases of a profile).
  ProfileActions* profile() const { return m_profile; }
  ProfileView* profileView() const { return m_profileView; }

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
  void buildViews();
  void buildBehaviour();
  void buildFileMenu();
  void buildRunMenu();
  void buildHelpMenu();
  void buildToolbar();
  void buildDocks();
  void buildViewMenu(QMenu* view);
  void wireRuns();
  void wireQueueAndSweeps();
  void wireCompression();
  void wireProfile();
  void restoreSettings();
  void saveSettings();
  void showStatus(const QString& text, int timeoutMs);
  void showAndRaise(QDockWidget* dock);
  void updateActions();

  // The close protocol: "Stop the run and quit?" while a job runs, and the close once the jobs have ended.
  void askToStopAndQuit();
  void withdrawQuitQuestion();
  void onJobEnded(bool close);

  Options m_options;
  ErrorPresenter m_presentError;

  QTabWidget* m_centralTabs = nullptr;
  ExperimentEditor* m_editor = nullptr;
  ChartsPanel* m_charts = nullptr;
  CompressionView* m_compressionView = nullptr;
  DataPreviewView* m_dataView = nullptr;
  ModelSummaryView* m_modelView = nullptr;
  EvaluationView* m_evaluationView = nullptr;
  SweepView* m_sweepView = nullptr;
  ProfileView* m_profileView = nullptr;
  RunsBrowser* m_runs = nullptr;
  QueuePanel* m_queue = nullptr;
  LogPanel* m_log = nullptr;
  RunProgress* m_progress = nullptr;

  ExperimentDocument* m_document = nullptr;
  RunActions* m_run = nullptr;
  PastRunsOnCharts* m_pastRuns = nullptr;
  CompressionActions* m_compression = nullptr;
  QueueActions* m_queueActions = nullptr;
  LiveControlActions* m_liveControl = nullptr;
  ProfileActions* m_profile = nullptr;
  ExportMenu* m_export = nullptr;
  QAction* m_evaluateAction = nullptr;

  QDockWidget* m_editorDock = nullptr;
  QDockWidget* m_runsDock = nullptr;
  QDockWidget* m_logDock = nullptr;
  QDockWidget* m_queueDock = nullptr;
  QByteArray m_defaultState;
  QPointer<QMessageBox> m_quitQuestion;  // "Stop the run and quit?" while it is open
};

}  // namespace wb::gui
