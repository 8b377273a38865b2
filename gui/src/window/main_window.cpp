#include "window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <utility>

#include "app/action_icons.h"
#include "app/action_table.h"
#include "charts/charts_panel.h"
#include "compression_view/compression_actions.h"
#include "compression_view/compression_controller.h"
#include "compression_view/compression_view.h"
#include "data_view/data_preview_view.h"
#include "editor/experiment_editor.h"
#include "evaluate/evaluation_view.h"
#include "export_dialogs/export_menu.h"
#include "finder_dialogs/finders_menu.h"
#include "model_view/model_summary_view.h"
#include "profile_view/profile_actions.h"
#include "profile_view/profile_view.h"
#include "queue_view/queue_actions.h"
#include "queue_view/queue_panel.h"
#include "run/live_control_actions.h"
#include "run/lr_change_dialog.h"  // LiveControlActions::openDialog converts its QPointer: needs the whole type
#include "run/past_runs_on_charts.h"
#include "run/run_follower.h"
#include "runs_browser/finished_run.h"
#include "runs_browser/index_watch.h"
#include "runs_browser/runs_browser.h"
#include "runs_browser/runs_browser_actions.h"
#include "runs_browser/runs_filters.h"
#include "sweep_view/sweep_view.h"
#include "widgets/screen_fit.h"
#include "window/about_dialog.h"
#include "window/error_dialog.h"
#include "window/examples_menu.h"
#include "window/experiment_document.h"
#include "window/log_panel.h"
#include "window/run_progress.h"
#include "workbench/run_info.h"

namespace wb::gui {

MainWindow::MainWindow(Options options, QWidget* parent) : QMainWindow(parent), m_options(options) {
  setObjectName(QStringLiteral("mainWindow"));
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
  m_presentError = [this](const QString& title, const QString& message, const QString& hint) {
    showErrorDialog(this, title, message, hint, {m_editor, [this] { m_run->startRun(); }});
  };
  buildViews();
  buildBehaviour();
  buildFileMenu();
  buildRunMenu();
  menuBar()->addMenu(m_compression->menu());
  menuBar()->addMenu(m_export->menu());
  QMenu* view = menuBar()->addMenu(tr("&View"));  // filled once the docks exist
  menuBar()->addMenu(new FindersMenu(this, m_editor, [this] { return m_run->controller()->isActive(); }));
  buildHelpMenu();
  buildToolbar();
  buildDocks();
  buildViewMenu(view);
  statusBar()->addPermanentWidget(m_run->stateLabel());
  wireRuns();
  wireQueueAndSweeps();
  wireCompression();
  wireProfile();

  // 1560×980 where the screen has room; on a laptop screen (down to 1280×720) its available area, centred.
  fitToScreen(this, QSize(1560, 980), false);
  keepInsideScreen(this);
  m_defaultState = saveState();
  if (m_options.useSettings) restoreSettings();
  m_runs->setRunsDir(m_editor->runsDir());
  updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildViews() {
  m_charts = new ChartsPanel;
  m_compressionView = new CompressionView;
  m_centralTabs = new QTabWidget(this);
  m_centralTabs->setObjectName(QStringLiteral("centralTabs"));
  m_centralTabs->setDocumentMode(true);
  m_centralTabs->addTab(m_charts, tr("Training"));
  m_centralTabs->addTab(m_compressionView, tr("Compression"));
  setCentralWidget(m_centralTabs);
  m_editor = new ExperimentEditor;
  m_modelView = new ModelSummaryView(m_editor);
  m_evaluationView = new EvaluationView;
  m_dataView = new DataPreviewView(m_editor);
  m_centralTabs->addTab(m_dataView, tr("Data"));
  m_centralTabs->addTab(m_modelView, tr("Model"));
  m_centralTabs->addTab(m_evaluationView, tr("Evaluation"));
  m_sweepView = new SweepView;
  m_centralTabs->addTab(m_sweepView, tr("Sweeps"));
  m_profileView = new ProfileView;
  m_centralTabs->addTab(m_profileView, tr("Profile"));
  m_runs = new RunsBrowser;
  m_queue = new QueuePanel;
  m_log = new LogPanel;
  m_progress = new RunProgress;
}

void MainWindow::buildBehaviour() {
  // Each object tells the user of a problem through the window, so a presenter set later (tests) reaches all.
  auto present = [this](const QString& title, const QString& message, const QString& hint) {
    showError(title, message, hint);
  };
  m_document = new ExperimentDocument(m_editor, this, present);
  m_run = new RunActions({m_editor, m_charts, m_runs, m_log, m_progress}, this, present,
                         [this] { return m_compression->controller()->isActive(); });
  m_pastRuns = new PastRunsOnCharts(
      m_charts, m_runs, m_progress, [this] { return m_run->lifecycle().busy(); }, present, this);
  m_compression = new CompressionActions(m_runs, m_charts, m_compressionView, m_log, this, present);
  m_queueActions = new QueueActions(m_editor, m_queue, this, present);
  m_liveControl = new LiveControlActions(m_run->controller(), this);
  m_profile = new ProfileActions(m_run->controller(), m_profileView, this);
  m_export = new ExportMenu(this, m_runs, m_charts, present);
  m_runs->actions()->addContextSubmenu(m_compression->menu());
  m_runs->actions()->addContextSubmenu(m_export->menu());
}

void MainWindow::buildFileMenu() {
  QAction* quit = nullptr;
  makeActions(
      this,
      {{&quit, "quit", tr("&Quit"), {QKeySequence::Quit}, {}, [this] { close(); }, {}, QAction::QuitRole}});
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(m_document->newAction());
  file->addMenu(m_document->examplesMenu());
  file->addAction(m_document->newFromPretrainedAction());
  file->addAction(m_document->openAction());
  file->addMenu(m_document->recentMenu());
  file->addSeparator();
  file->addAction(m_document->saveAction());
  file->addAction(m_document->saveAsAction());
  file->addSeparator();
  file->addAction(quit);
}

void MainWindow::buildRunMenu() {
  makeActions(this, {{&m_evaluateAction,
                      {},
                      tr("E&valuate Run…"),
                      {QKeySequence(Qt::CTRL | Qt::Key_E)},
                      tr("The selected run's model on its test split: accuracy, per-class figures, confusion "
                         "matrix and mistakes (Ctrl+E)"),
                      [this] { evaluateRun(); },
                      QStringLiteral("evaluateRun")}});
  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->setToolTipsVisible(true);  // a disabled Profile Steps… says why
  run->addAction(m_run->startAction());
  run->addAction(m_run->pauseAction());
  run->addAction(m_run->stopAction());
  run->addAction(m_run->checkpointAction());
  run->addSeparator();
  run->addAction(m_liveControl->changeLearningRateAction());
  run->addAction(m_liveControl->stopAfterEpochAction());
  run->addAction(m_profile->profileAction());
  run->addSeparator();
  run->addAction(m_run->resumeAction());
  run->addSeparator();
  run->addAction(m_queueActions->queueAction());
  run->addAction(m_queueActions->queueSweepAction());
  run->addAction(m_queueActions->startWorkerAction());
  run->addSeparator();
  run->addAction(m_evaluateAction);
}

void MainWindow::buildHelpMenu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* about = help->addAction(actionIcon(QStringLiteral("about")), tr("&About Torch Workbench"));
  about->setMenuRole(QAction::AboutRole);
  connect(about, &QAction::triggered, this, [this] { showAbout(this); });
  QAction* aboutQt = help->addAction(tr("About &Qt"));
  aboutQt->setMenuRole(QAction::AboutQtRole);
  connect(aboutQt, &QAction::triggered, qApp, &QApplication::aboutQt);
}

void MainWindow::buildToolbar() {
  QToolBar* bar = addToolBar(tr("Run"));
  bar->setObjectName(QStringLiteral("runToolbar"));
  bar->setMovable(false);
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  bar->addAction(m_run->startAction());
  bar->addAction(m_run->pauseAction());
  bar->addAction(m_run->stopAction());
  bar->addAction(m_run->checkpointAction());
  bar->addSeparator();
  bar->addWidget(m_progress);
  m_progress->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void MainWindow::buildDocks() {
  m_editorDock = new QDockWidget(tr("Experiment"), this);
  m_editorDock->setObjectName(QStringLiteral("experimentDock"));
  m_editorDock->setWidget(m_editor);
  m_editorDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                            QDockWidget::DockWidgetClosable);
  m_editor->setMinimumWidth(300);
  addDockWidget(Qt::LeftDockWidgetArea, m_editorDock);

  m_runsDock = new QDockWidget(tr("Runs"), this);
  m_runsDock->setObjectName(QStringLiteral("runsDock"));
  m_runsDock->setWidget(m_runs);
  addDockWidget(Qt::BottomDockWidgetArea, m_runsDock);
  m_logDock = new QDockWidget(tr("Log"), this);
  m_logDock->setObjectName(QStringLiteral("logDock"));
  m_logDock->setWidget(m_log);
  addDockWidget(Qt::BottomDockWidgetArea, m_logDock);
  m_queueDock = new QDockWidget(tr("Queue"), this);
  m_queueDock->setObjectName(QStringLiteral("queueDock"));
  m_queueDock->setWidget(m_queue);
  addDockWidget(Qt::BottomDockWidgetArea, m_queueDock);
  tabifyDockWidget(m_runsDock, m_logDock);
  tabifyDockWidget(m_logDock, m_queueDock);
  m_logDock->raise();
  // The form runs the window's full height (the Runs, Log and Queue tabs sit under the charts only): it is
  // where a user spends their time, and on a 1366x768 screen the bottom docks under it left it 2.5 rows.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
  const bool shortScreen = screen && screen->availableGeometry().height() < 900;
  resizeDocks({m_runsDock}, {shortScreen ? 150 : 230}, Qt::Vertical);
  resizeDocks({m_editorDock}, {440}, Qt::Horizontal);
}

void MainWindow::buildViewMenu(QMenu* view) {
  view->setObjectName(QStringLiteral("viewMenu"));
  const std::pair<QDockWidget*, Qt::Key> docks[] = {
      {m_editorDock, Qt::Key_1}, {m_runsDock, Qt::Key_2}, {m_logDock, Qt::Key_3}, {m_queueDock, Qt::Key_4}};
  for (const auto& [dock, key] : docks) {
    QAction* toggle = dock->toggleViewAction();
    toggle->setShortcut(QKeySequence(Qt::CTRL | key));
    view->addAction(toggle);
  }
  view->addSeparator();
  QAction* autoscale = view->addAction(tr("&Autoscale All Charts"));
  autoscale->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  connect(autoscale, &QAction::triggered, m_charts, &ChartsPanel::autoscaleAll);
  QAction* clearPast = view->addAction(tr("&Remove Past Runs from Charts"));
  clearPast->setToolTip(tr("Keep only the live run on the charts"));
  connect(clearPast, &QAction::triggered, m_pastRuns, &PastRunsOnCharts::clear);
  view->addSeparator();
  QAction* reset = view->addAction(tr("Reset &Layout"));
  connect(reset, &QAction::triggered, this, [this] {
    restoreState(m_defaultState);
    m_editorDock->show();
    m_runsDock->show();
    m_logDock->show();
  });
  QAction* fullScreen = view->addAction(tr("&Full Screen"));
  fullScreen->setCheckable(true);
  fullScreen->setShortcut(QKeySequence::FullScreen);
  connect(fullScreen, &QAction::toggled, this, [this](bool on) {
    setWindowState(on ? windowState() | Qt::WindowFullScreen : windowState() & ~Qt::WindowFullScreen);
  });
}

void MainWindow::wireRuns() {
  connect(m_document, &ExperimentDocument::statusMessage, this, &MainWindow::showStatus);
  connect(m_document, &ExperimentDocument::broughtIn, this, [this](const QString& message) {
    showAndRaise(m_editorDock);
    showStatus(message, 6000);
  });
  connect(m_document, &ExperimentDocument::savedWithUnknownKeys, this, [this](const QString& message) {
    showStatus(message, 10000);
    m_log->append(LogLevel::Warning, message);
  });
  connect(m_run, &RunActions::changed, this, &MainWindow::updateActions);
  connect(m_run, &RunActions::stepReported, this, &MainWindow::stepReported);
  connect(m_run, &RunActions::startRefused, this, &MainWindow::startRefused);
  connect(m_run, &RunActions::runEnded, this, &MainWindow::runEnded);
  connect(m_run, &RunActions::quitReady, this, [this] { onJobEnded(true); });
  connect(m_pastRuns, &PastRunsOnCharts::changed, this, &MainWindow::updateActions);
  connect(m_pastRuns, &PastRunsOnCharts::statusMessage, this, &MainWindow::showStatus);
  connect(m_editor, &ExperimentEditor::validated, this, [this] {
    if (!m_run->controller()->isActive()) m_runs->setRunsDir(m_editor->runsDir());
  });
  connect(m_runs, &RunsBrowser::cloneRequested, m_document, &ExperimentDocument::cloneRun);
  connect(m_run, &RunActions::resumeStarting, m_document, &ExperimentDocument::showResumedRun);
  connect(m_runs, &RunsBrowser::resumeRequested, this, [this](const QString& dir) { m_run->resumeRun(dir); });
  connect(m_runs, &RunsBrowser::evaluateRequested, this, [this](const QString& dir) { evaluateRun(dir); });
  connect(m_runs, &RunsBrowser::selectionChanged, this, [this] {
    updateActions();
    m_compression->followSelection();
  });
  connect(m_evaluationView, &EvaluationView::evaluationFinished, this,
          [this](bool ok, const QString& error, const QString& hint) {
            if (!ok && !error.isEmpty()) showError(tr("The run could not be evaluated"), error, hint);
          });
  connect(m_export, &ExportMenu::statusMessage, this, [this](const QString& text) {
    showStatus(text, 6000);
    m_log->appendNote(text);
  });
}

void MainWindow::wireQueueAndSweeps() {
  // The queue, the sweeps and the followed runs keep up with the runs folder's index, whoever writes it.
  connect(m_runs, &RunsBrowser::runsDirChanged, this, [this](const QString& dir) {
    m_queue->setRunsDir(QDir(dir).absolutePath());
    m_sweepView->setRunsDir(QDir(dir).absolutePath());
  });
  connect(m_runs->indexWatch(), &IndexWatch::changed, m_queue, &QueuePanel::reload);
  connect(m_runs->indexWatch(), &IndexWatch::changed, m_sweepView, &SweepView::reload);
  connect(m_queueActions, &QueueActions::queued, this, [this](const QString& message) {
    showStatus(message, 6000);
    m_log->appendNote(message);
    showAndRaise(m_queueDock);
  });
  connect(m_queueActions, &QueueActions::sweepQueued, this,
          [this](const QString& sweep, const QString& runs) {
            m_sweepView->setRunsDir(runs);
            m_sweepView->showSweep(sweep);
            m_centralTabs->setCurrentWidget(m_sweepView);
          });
  connect(m_queue, &QueuePanel::queueFinished, this, [this](const QString& summary) {
    const QString text = tr("The queue is finished: %1").arg(summary);
    showStatus(text, 15000);
    m_log->appendNote(text);
    QApplication::alert(this);
    emit queueFinished(summary);
  });
  connect(m_sweepView, &SweepView::cloneRequested, m_document, &ExperimentDocument::cloneRun);
  connect(m_sweepView, &SweepView::overlayRequested, this, [this](const QStringList& folders) {
    m_pastRuns->open(folders, true);
    m_centralTabs->setCurrentWidget(m_charts);
  });
  connect(m_sweepView, &SweepView::showTrialsRequested, this, [this](const QString& sweep) {
    m_runs->filters()->showSweep(sweep);
    showAndRaise(m_runsDock);
  });
}

void MainWindow::wireCompression() {
  connect(m_run, &RunActions::runStarting, m_compression, &CompressionActions::clearFinishedTraces);
  connect(m_compression, &CompressionActions::changed, this, &MainWindow::updateActions);
  connect(m_compression, &CompressionActions::viewWanted, this,
          [this] { m_centralTabs->setCurrentWidget(m_compressionView); });
  connect(m_compression, &CompressionActions::statusMessage, this,
          [this](const QString& text) { showStatus(text, 6000); });
  connect(m_compression, &CompressionActions::finished, this, [this](const RunSummary& summary) {
    emit compressionEnded(summary);
    // Closes once the training run has ended too, when the user asked to quit.
    onJobEnded(m_run->lifecycle().jobEnded(m_run->controller()->isActive()));
  });
}

void MainWindow::wireProfile() {
  connect(m_profile, &ProfileActions::statusMessage, this,
          [this](const QString& text) { showStatus(text, 8000); });
  connect(m_profile, &ProfileActions::problem, this,
          [this](const QString& text) { m_log->append(LogLevel::Warning, text); });
  connect(m_profile, &ProfileActions::viewWanted, this,
          [this] { m_centralTabs->setCurrentWidget(m_profileView); });
  // A run opened from the runs browser shows its profile, when it has one.
  connect(m_runs, &RunsBrowser::openRequested, this, [this](const QStringList& folders) {
    if (folders.size() == 1) m_profile->openRunFolder(folders.front());
  });
}

void MainWindow::restoreSettings() {
  QSettings settings;
  // A layout saved on a bigger screen (or another monitor) is brought inside this one.
  if (restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
    fitToScreen(this, size(), true);
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  if (settings.contains(QStringLiteral("charts/smoothing"))) {
    m_charts->setSmoothing(settings.value(QStringLiteral("charts/smoothing")).toDouble());
  }
}

void MainWindow::saveSettings() {
  if (!m_options.useSettings) return;
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  settings.setValue(QStringLiteral("charts/smoothing"), m_charts->smoothing());
}

void MainWindow::showStatus(const QString& text, int timeoutMs) {
  statusBar()->showMessage(text, timeoutMs);
}

void MainWindow::showAndRaise(QDockWidget* dock) {
  dock->show();
  dock->raise();
}

void MainWindow::showError(const QString& title, const QString& message, const QString& hint) {
  if (m_presentError) m_presentError(title, message, hint);
}

void MainWindow::showRunsPanel(const QStringList& selected) {
  showAndRaise(m_runsDock);
  QStringList absolute;
  for (const QString& folder : selected) absolute << QDir(folder).absolutePath();
  m_runs->selectFolders(absolute);
}

bool MainWindow::evaluateRun(const QString& runDir) {
  const QString dir = finishedRunFolder(m_runs, runDir, tr("Evaluation needs a trained model."),
                                        tr("Run ▸ Evaluate Run"), m_presentError);
  if (dir.isEmpty()) return false;
  m_centralTabs->setCurrentWidget(m_evaluationView);
  if (!m_evaluationView->evaluate(dir)) return false;
  m_log->appendNote(tr("Evaluating %1 on its test split").arg(QDir(dir).dirName()));
  return true;
}

void MainWindow::showCompression(const QString& runDir) {
  const QString absolute = QDir(runDir).absolutePath();
  QDir parent(absolute);
  parent.cdUp();
  m_runs->setRunsDir(parent.absolutePath());
  m_runs->selectFolders({absolute});
  m_compressionView->setRunDir(absolute);
  m_centralTabs->setCurrentWidget(m_compressionView);
  showAndRaise(m_runsDock);  // its compressed models are listed under it there
}

void MainWindow::updateActions() {
  m_compression->updateActions();
  const std::optional<RunRecord> selected = m_runs->selectedRun();
  m_evaluateAction->setEnabled(selected && selected->status == RunIndexStatus::Finished);
  m_export->update();
  m_run->updateActions();
  // The form shows the experiment being trained while a run goes on (ExperimentEditor::setLocked).
  m_document->setChangeAllowed(m_run->lifecycle().actions().change_experiment);
  m_runs->actions()->setLiveRunActive(m_run->controller()->isActive());
  m_runs->actions()->setPastRunsShown(m_charts->traceCount() > (m_charts->hasTrace(kLiveTrace) ? 1 : 0));
}

// --- the close protocol

void MainWindow::closeEvent(QCloseEvent* event) {
  const bool jobs = m_run->controller()->isActive() || m_compression->controller()->isActive();
  switch (m_run->lifecycle().closeRequested(jobs)) {
    case RunLifecycle::CloseAnswer::Wait:  // stopping on the user's word: closes once the jobs have ended
      event->ignore();
      return;
    case RunLifecycle::CloseAnswer::Quit:
      saveSettings();
      event->accept();
      // The user asked to quit: a dialog still open elsewhere must not keep the process alive.
      QTimer::singleShot(0, qApp, &QCoreApplication::quit);
      return;
    case RunLifecycle::CloseAnswer::RaiseQuestion:  // asked already; the answer decides
      if (m_quitQuestion) m_quitQuestion->raise();
      event->ignore();
      return;
    case RunLifecycle::CloseAnswer::AskToStop:
    case RunLifecycle::CloseAnswer::Close:
      break;
  }
  if (!m_document->confirmDiscard()) {
    event->ignore();
    return;
  }
  if (jobs) {
    askToStopAndQuit();
    event->ignore();
    return;
  }
  saveSettings();
  event->accept();
}

void MainWindow::askToStopAndQuit() {
  // Not exec(): the run goes on while the question is open, its events keep arriving, and the question
  // withdraws itself if the run ends on its own meanwhile (onJobEnded).
  RunController* run = m_run->controller();
  CompressionController* compression = m_compression->controller();
  auto* box =
      new QMessageBox(QMessageBox::Question,
                      run->isActive() ? tr("A run is in progress") : tr("A compression is in progress"),
                      run->isActive() ? tr("Stop the run and quit? The step in flight finishes and a "
                                           "checkpoint is written, so the run can be "
                                           "resumed later (Run ▸ Resume an Interrupted Run).")
                                      : tr("Stop the compression and quit? The pass in flight writes a "
                                           "checkpoint; running the same pipeline "
                                           "again continues it."),
                      QMessageBox::Yes | QMessageBox::Cancel, this);
  box->setObjectName(QStringLiteral("quitDuringRunDialog"));
  box->setDefaultButton(QMessageBox::Cancel);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setWindowModality(Qt::WindowModal);
  QAbstractButton* yes = box->button(QMessageBox::Yes);
  connect(box, &QMessageBox::buttonClicked, this, [this, yes, run, compression](QAbstractButton* clicked) {
    if (clicked != yes) return;
    // The window stays up, saying what it waits for; the jobs' ends close it and the process quits.
    const bool close_now = m_run->lifecycle().quitConfirmed(run->isActive() || compression->isActive());
    saveSettings();
    run->stop();
    compression->stop();
    m_run->stateLabel()->setText(tr("Stopping to quit…"));
    m_progress->setText(tr("Quitting once the checkpoint is written…"));
    m_log->appendNote(tr("Stopping after the step in flight to quit; a checkpoint is written"));
    if (close_now) close();  // it ended as the answer came
  });
  // Cancel, Escape or the box's own close button: not quitting.
  connect(box, &QDialog::finished, this, [this] { m_run->lifecycle().quitCancelled(); });
  m_quitQuestion = box;
  m_run->lifecycle().quitAsked();
  box->open();
}

void MainWindow::withdrawQuitQuestion() {
  // The jobs ended on their own while "Stop the run and quit?" was open: nothing is left to stop, so the
  // close the user asked for goes ahead instead of a question that no longer means anything.
  if (!m_quitQuestion) return;
  m_quitQuestion->disconnect(this);
  m_quitQuestion->close();
  m_quitQuestion = nullptr;
}

void MainWindow::onJobEnded(bool close_now) {
  if (!close_now) return;
  withdrawQuitQuestion();
  close();
}

}  // namespace wb::gui
