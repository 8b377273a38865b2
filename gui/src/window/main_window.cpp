#include "window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <fstream>
#include <utility>
#include <variant>

#include "app/action_icons.h"
#include "app/action_table.h"
#include "app/off_thread.h"
#include "charts/charts_panel.h"
#include "compression_view/compression_controller.h"
#include "compression_view/compression_view.h"
#include "data_view/data_preview_view.h"
#include "editor/experiment_editor.h"
#include "evaluate/evaluation_view.h"
#include "export_dialogs/export_menu.h"
#include "finder_dialogs/finders_menu.h"
#include "model_view/model_summary_view.h"
#include "queue_view/queue_actions.h"
#include "queue_view/queue_panel.h"
#include "run/live_control_actions.h"
#include "run/lr_change_dialog.h"  // LiveControlActions::openDialog converts its QPointer: needs the whole type
#include "run/run_follower.h"
#include "run/run_status_words.h"
#include "runs_browser/index_watch.h"
#include "runs_browser/interrupted_runs_dialog.h"
#include "runs_browser/runs_browser.h"
#include "sweep_view/sweep_view.h"
#include "widgets/screen_fit.h"
#include "window/about_dialog.h"
#include "window/examples_menu.h"
#include "window/log_panel.h"
#include "window/recent_files.h"
#include "window/run_progress.h"
#include "workbench/errors.h"
#include "workbench/run_history.h"
#include "workbench/run_info.h"

namespace wb::gui {
namespace {

// "Epoch 3: train loss 0.4123, train accuracy 85.10 %, val loss ..., val accuracy ... %"
QString epochLine(const EpochMetrics& ep, const QString& what) {
  QString line = MainWindow::tr("%1 %2: train loss %3, train accuracy %4 %")
                     .arg(what)
                     .arg(ep.epoch)
                     .arg(ep.train_loss, 0, 'f', 4)
                     .arg(ep.train_accuracy * 100, 0, 'f', 2);
  if (ep.val_loss >= 0) {
    line += MainWindow::tr(", val loss %1, val accuracy %2 %")
                .arg(ep.val_loss, 0, 'f', 4)
                .arg(ep.val_accuracy * 100, 0, 'f', 2);
  }
  return line;
}

const QString kLiveTrace = QStringLiteral("live");
constexpr int kRunsRefreshDelayMs = 1500;  // the engine registers a new run in the index as it starts

QString errorTitle(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::BadInput:
      return QObject::tr("The experiment or its data has a problem");
    case ErrorKind::ExperimentChanged:
      return QObject::tr("The run's experiment was changed");
    case ErrorKind::OutOfMemory:
      return QObject::tr("Out of memory");
    case ErrorKind::NonFinite:
      return QObject::tr("The loss became NaN or infinite");
    case ErrorKind::Device:
      return QObject::tr("Device error");
    case ErrorKind::Internal:
      return QObject::tr("The run failed");
  }
  return QObject::tr("The run failed");
}

QString compressionErrorTitle(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::BadInput:
      return QObject::tr("The compression cannot run");
    case ErrorKind::OutOfMemory:
      return QObject::tr("Out of memory while compressing");
    case ErrorKind::NonFinite:
      return QObject::tr("The loss became NaN or infinite while compressing");
    case ErrorKind::Device:
      return QObject::tr("Device error while compressing");
    case ErrorKind::ExperimentChanged:
    case ErrorKind::Internal:
      return QObject::tr("The compression failed");
  }
  return QObject::tr("The compression failed");
}

bool sameFolder(const QString& a, const QString& b) {
  if (a.isEmpty() || b.isEmpty()) return false;
  const QString ca = QFileInfo(a).canonicalFilePath();
  const QString cb = QFileInfo(b).canonicalFilePath();
  return ca.isEmpty() || cb.isEmpty() ? QDir::cleanPath(a) == QDir::cleanPath(b) : ca == cb;
}

struct LoadedHistory {
  QString folder;
  std::optional<RunHistory> history;
  QString error;
  QString hint;
};

LoadedHistory loadHistory(const QString& folder) {
  LoadedHistory out;
  out.folder = folder;
  try {
    out.history = loadRunHistory(folder.toStdString());
  } catch (const UserError& e) {
    out.error = QString::fromUtf8(e.what());
    out.hint = QString::fromStdString(e.hint());
  } catch (const std::exception& e) {
    out.error = QString::fromUtf8(e.what());
  }
  return out;
}

// "\"trian\", \"train.epocs\"" for the save message.
QString unknownKeysText(const std::vector<UnknownKey>& keys) {
  QStringList quoted;
  for (const UnknownKey& key : keys) quoted << QStringLiteral("\"%1\"").arg(QString::fromStdString(key.path));
  return quoted.join(QStringLiteral(", "));
}

}  // namespace

MainWindow::MainWindow(Options options, QWidget* parent)
    : QMainWindow(parent),
      m_options(options),
      m_controller(new RunController(this)),
      m_compressor(new CompressionController(this)) {
  setObjectName(QStringLiteral("mainWindow"));
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
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
  m_runs = new RunsBrowser;
  m_queue = new QueuePanel;
  m_sweepView = new SweepView;
  m_centralTabs->addTab(m_sweepView, tr("Sweeps"));
  m_follower = new RunFollower(this);
  m_log = new LogPanel;
  m_progress = new RunProgress;

  m_queueActions = new QueueActions(
      m_editor, m_queue, this, [this](const QString& title, const QString& message, const QString& hint) {
        showError(title, message, hint);
      });
  buildActions();
  buildMenus();
  buildToolbar();
  buildDocks();
  m_stateLabel = new QLabel(tr("Idle"));
  m_stateLabel->setObjectName(QStringLiteral("runState"));
  statusBar()->addPermanentWidget(m_stateLabel);

  m_presentError = [this](const QString& title, const QString& message, const QString& hint) {
    auto* box = new QMessageBox(QMessageBox::Critical, title, message, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("errorDialog"));
    if (!hint.isEmpty()) box->setInformativeText(tr("What to do: %1").arg(hint));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    box->open();  // not exec(): no nested event loop inside an event handler
  };

  m_askForceResume = [this](const QString& message, std::function<void()> resumeAnyway) {
    auto* box = new QMessageBox(QMessageBox::Warning, tr("The run's experiment was changed"), message,
                                QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("forceResumeDialog"));
    box->setInformativeText(
        tr("Resume anyway? Training continues from the checkpoint's step with the experiment "
           "file as it is now; the run's log records the changes. Or cancel and undo them."));
    QPushButton* anyway = box->addButton(tr("Resume Anyway"), QMessageBox::AcceptRole);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    connect(box, &QMessageBox::buttonClicked, this, [anyway, resumeAnyway](QAbstractButton* clicked) {
      if (clicked == anyway) resumeAnyway();
    });
    box->open();
  };

  connect(m_controller, &RunController::eventsArrived, this, &MainWindow::onEvents);
  connect(m_controller, &RunController::stateChanged, this, &MainWindow::onStateChanged);
  connect(m_controller, &RunController::runFinished, this, &MainWindow::onRunFinished);
  connect(m_editor, &ExperimentEditor::modifiedChanged, this, &MainWindow::updateTitle);
  connect(m_editor, &ExperimentEditor::validated, this, [this] {
    updateTitle();
    if (!m_controller->isActive()) m_runs->setRunsDir(m_editor->runsDir());
  });
  connect(m_runs, &RunsBrowser::openRequested, this, &MainWindow::openRuns);
  connect(m_runs, &RunsBrowser::cloneRequested, this, &MainWindow::cloneRun);
  connect(m_runs, &RunsBrowser::resumeRequested, this, [this](const QString& dir) { resumeRun(dir); });
  connect(m_runs, &RunsBrowser::selectionChanged, this, &MainWindow::onRunSelectionChanged);
  connect(m_runs, &RunsBrowser::evaluateRequested, this, [this](const QString& dir) { evaluateRun(dir); });
  connect(m_runs, &RunsBrowser::backToLiveRequested, this, [this] {
    m_charts->clearTracesExcept(kLiveTrace);
    updateActions();
  });
  connect(m_runs, &RunsBrowser::runRenamed, m_charts, &ChartsPanel::setTraceLabel);
  // The queue, the sweeps and the followed runs keep up with the runs folder's index, whoever writes it.
  connect(m_runs, &RunsBrowser::runsDirChanged, this, [this](const QString& dir) {
    m_queue->setRunsDir(QDir(dir).absolutePath());
    m_sweepView->setRunsDir(QDir(dir).absolutePath());
  });
  connect(m_runs->indexWatch(), &IndexWatch::changed, m_queue, &QueuePanel::reload);
  connect(m_runs->indexWatch(), &IndexWatch::changed, m_sweepView, &SweepView::reload);
  connect(m_runs, &RunsBrowser::rowsLoaded, this, [this] {
    // A followed run the index no longer lists as training (killed, interrupted) is let go; one that ended
    // normally lets itself go once its summary is written (after its last lines).
    for (const QString& id : m_charts->traceIds()) {
      const std::optional<RunRecord> record = m_runs->run(id);
      if (m_follower->follows(id) && record && record->status == "interrupted") m_follower->unfollow(id);
    }
  });
  connect(m_follower, &RunFollower::appended, this,
          [this](const QString& folder, const RunHistoryTail& tail) {
            if (!m_charts->hasTrace(folder)) {
              m_follower->unfollow(folder);
              return;
            }
            m_charts->appendSteps(folder, tail.steps);
            m_charts->appendEpochs(folder, tail.epochs);
            m_charts->addControlMarks(folder, tail.controls);
          });
  connect(m_follower, &RunFollower::rewound, this, [this](const QString& folder) {
    if (m_charts->hasTrace(folder)) openRuns({folder}, false);  // read whole again, and followed from its end
  });
  connect(m_follower, &RunFollower::ended, this, [this](const QString& folder) {
    statusBar()->showMessage(tr("Run %1 ended").arg(QDir(folder).dirName()), 4000);
  });
  connect(m_queueActions, &QueueActions::queued, this, [this](const QString& message) {
    statusBar()->showMessage(message, 6000);
    m_log->appendNote(message);
    m_queueDock->show();
    m_queueDock->raise();
  });
  connect(m_queueActions, &QueueActions::sweepQueued, this,
          [this](const QString& sweep, const QString& runs) {
            m_sweepView->setRunsDir(runs);
            m_sweepView->showSweep(sweep);
            m_centralTabs->setCurrentWidget(m_sweepView);
          });
  connect(m_queue, &QueuePanel::queueFinished, this, [this](const QString& summary) {
    const QString text = tr("The queue is finished: %1").arg(summary);
    statusBar()->showMessage(text, 15000);
    m_log->appendNote(text);
    QApplication::alert(this);
    emit queueFinished(summary);
  });
  connect(m_sweepView, &SweepView::cloneRequested, this, &MainWindow::cloneRun);
  connect(m_sweepView, &SweepView::overlayRequested, this, [this](const QStringList& folders) {
    openRuns(folders, true);
    m_centralTabs->setCurrentWidget(m_charts);
  });
  connect(m_sweepView, &SweepView::showTrialsRequested, this, [this](const QString& sweep) {
    m_runs->showSweep(sweep);
    m_runsDock->show();
    m_runsDock->raise();
  });
  connect(m_runs, &RunsBrowser::runsDeleted, this, [this](const QStringList& folders) {
    for (const QString& folder : folders) m_charts->removeTrace(folder);
    updateActions();
  });
  connect(m_evaluationView, &EvaluationView::evaluationFinished, this,
          [this](bool ok, const QString& error, const QString& hint) {
            if (!ok && !error.isEmpty()) showError(tr("The run could not be evaluated"), error, hint);
          });
  connect(m_compressor, &CompressionController::eventsArrived, this, &MainWindow::onCompressionEvents);
  connect(m_compressor, &CompressionController::finished, this, &MainWindow::onCompressionFinished);
  connect(m_compressor, &CompressionController::stateChanged, this, &MainWindow::updateActions);
  connect(m_compressionView, &CompressionView::cancelRequested, this, [this] {
    if (!m_compressor->isActive()) return;
    m_compressor->stop();
    m_compressionView->cancelButton()->setEnabled(false);
    m_log->appendNote(tr("Stopping the compression after the step in flight; a checkpoint is written"));
  });

  // 1560×980 where the screen has room; on a laptop screen (down to 1280×720) its available area, centred.
  fitToScreen(this, QSize(1560, 980), false);
  keepInsideScreen(this);
  m_defaultState = saveState();
  if (m_options.useSettings) restoreSettings();
  m_runs->setRunsDir(m_editor->runsDir());
  updateTitle();
  updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions() {
  using K = QKeySequence;
  auto compress = [this](CompressDialog::Kind kind) { return [this, kind] { openCompressDialog(kind); }; };
  makeActions(
      this,
      {
          {&m_newAction,
           "new",
           tr("&New"),
           {K::New},
           tr("Start from the default experiment"),
           [this] { newExperiment(); }},
          {&m_openAction, "open", tr("&Open…"), {K::Open}, {}, [this] { openDialog(); }},
          {&m_saveAction, "save", tr("&Save"), {K::Save}, {}, [this] { save(); }},
          {&m_saveAsAction, "save-as", tr("Save &As…"), {K::SaveAs}, {}, [this] { saveAs(); }},
          {&m_quitAction, "quit", tr("&Quit"), {K::Quit}, {}, [this] { close(); }, {}, QAction::QuitRole},

          {&m_startAction,
           "start",
           tr("&Start"),
           {K(Qt::Key_F5), K(Qt::CTRL | Qt::Key_Return)},
           tr("Train the experiment in the editor (F5)"),
           [this] { startRun(); }},
          {&m_pauseAction,
           "pause",
           tr("&Pause"),
           {K(Qt::Key_F6)},
           tr("Pause after the step in flight, or resume (F6)"),
           [this] { togglePause(); }},
          {&m_stopAction,
           "stop",
           tr("S&top"),
           {K(Qt::SHIFT | Qt::Key_F5)},
           tr("Stop after the step in flight; a checkpoint is written so the run can be resumed (Shift+F5)"),
           [this] { stopRun(); }},
          {&m_checkpointAction,
           "checkpoint",
           tr("&Checkpoint now"),
           {K(Qt::CTRL | Qt::Key_K)},
           tr("Write a checkpoint after the step in flight (Ctrl+K)"),
           [this] { checkpointNow(); }},
          {&m_resumeAction,
           "resume-run",
           tr("&Resume an Interrupted Run…"),
           {K(Qt::CTRL | Qt::SHIFT | Qt::Key_R)},
           tr("Continue a stopped run from its latest checkpoint"),
           [this] { resumeDialog(); }},

          {&m_pruneAction,
           "prune",
           tr("&Prune…"),
           {},
           tr("Remove the smallest weights or whole channels of the selected run's model"),
           compress(CompressDialog::Kind::Prune),
           QStringLiteral("compressPrune")},
          {&m_quantizeAction,
           "quantize",
           tr("&Quantize to int8…"),
           {},
           tr("Store the selected run's weights as 8-bit integers"),
           compress(CompressDialog::Kind::Quantize),
           QStringLiteral("compressQuantize")},
          {&m_distillAction,
           "distill",
           tr("&Distill…"),
           {},
           tr("Train a model to copy the outputs of a teacher (by default the run's own model)"),
           compress(CompressDialog::Kind::Distill),
           QStringLiteral("compressDistill")},
          {&m_pipelineAction,
           "compress",
           tr("Pipe&line…"),
           {K(Qt::CTRL | Qt::SHIFT | Qt::Key_P)},
           tr("Several passes in order: prune, fine-tune, distill, quantize"),
           compress(CompressDialog::Kind::Pipeline),
           QStringLiteral("compressPipeline")},
          {&m_evaluateAction,
           {},
           tr("E&valuate Run…"),
           {K(Qt::CTRL | Qt::Key_E)},
           tr("The selected run's model on its test split: accuracy, per-class figures, confusion matrix and "
              "mistakes "
              "(Ctrl+E)"),
           [this] { evaluateRun(); },
           QStringLiteral("evaluateRun")},
      });
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(m_newAction);
  // New from Example: the example opens as a new, unsaved experiment (Save asks where; the installed file
  // stays).
  auto* examples = new ExamplesMenu(file);
  file->addMenu(examples);
  connect(examples, &ExamplesMenu::exampleFailed, this, [this](const QString& message, const QString& hint) {
    showError(tr("Could not open the example"), message, hint);
  });
  connect(examples, &ExamplesMenu::exampleChosen, this,
          [this](const QString& title, const nlohmann::json& doc) {
            if (!confirmDiscard()) return;
            m_editor->setDocument(doc);
            m_file.clear();
            updateTitle();
            m_editorDock->show();
            m_editorDock->raise();
            statusBar()->showMessage(
                tr("The example “%1” is in the editor, unsaved: File ▸ Save As… keeps your copy").arg(title),
                6000);
          });
  file->addAction(m_openAction);
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  m_recent = new RecentFiles(m_recentMenu, this);
  connect(m_recent, &RecentFiles::fileChosen, this, [this](const QString& f) {
    if (confirmDiscard()) openFile(f);
  });
  file->addSeparator();
  file->addAction(m_saveAction);
  file->addAction(m_saveAsAction);
  file->addSeparator();
  file->addAction(m_quitAction);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(m_startAction);
  run->addAction(m_pauseAction);
  run->addAction(m_stopAction);
  run->addAction(m_checkpointAction);
  run->addSeparator();
  m_liveControl = new LiveControlActions(m_controller, this);
  run->addAction(m_liveControl->changeLearningRateAction());
  run->addAction(m_liveControl->stopAfterEpochAction());
  run->addSeparator();
  run->addAction(m_resumeAction);
  run->addSeparator();
  run->addAction(m_queueActions->queueAction());
  run->addAction(m_queueActions->queueSweepAction());
  run->addAction(m_queueActions->startWorkerAction());
  run->addSeparator();
  run->addAction(m_evaluateAction);

  m_compressMenu = menuBar()->addMenu(tr("&Compress"));
  m_compressMenu->setObjectName(QStringLiteral("compressMenu"));
  m_compressMenu->setToolTipsVisible(true);
  m_compressMenu->addAction(m_pruneAction);
  m_compressMenu->addAction(m_quantizeAction);
  m_compressMenu->addAction(m_distillAction);
  m_compressMenu->addSeparator();
  m_compressMenu->addAction(m_pipelineAction);

  m_export = new ExportMenu(this, m_runs, m_charts,
                            [this](const QString& title, const QString& message, const QString& hint) {
                              showError(title, message, hint);
                            });
  menuBar()->addMenu(m_export->menu());
  connect(m_export, &ExportMenu::statusMessage, this, [this](const QString& text) {
    statusBar()->showMessage(text, 6000);
    m_log->appendNote(text);
  });

  // Filled in buildDocks, once the docks exist.
  menuBar()->addMenu(tr("&View"))->setObjectName(QStringLiteral("viewMenu"));

  menuBar()->addMenu(new FindersMenu(this, m_editor, [this] { return m_controller->isActive(); }));

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
  bar->addAction(m_startAction);
  bar->addAction(m_pauseAction);
  bar->addAction(m_stopAction);
  bar->addAction(m_checkpointAction);
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
  resizeDocks({m_runsDock}, {230}, Qt::Vertical);
  resizeDocks({m_editorDock}, {440}, Qt::Horizontal);

  QMenu* view = menuBar()->findChild<QMenu*>(QStringLiteral("viewMenu"));
  QAction* editorToggle = m_editorDock->toggleViewAction();
  editorToggle->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
  QAction* runsToggle = m_runsDock->toggleViewAction();
  runsToggle->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
  QAction* logToggle = m_logDock->toggleViewAction();
  logToggle->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_3));
  view->addAction(editorToggle);
  view->addAction(runsToggle);
  view->addAction(logToggle);
  QAction* queueToggle = m_queueDock->toggleViewAction();
  queueToggle->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_4));
  view->addAction(queueToggle);
  view->addSeparator();
  QAction* autoscale = view->addAction(tr("&Autoscale All Charts"));
  autoscale->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  connect(autoscale, &QAction::triggered, m_charts, &ChartsPanel::autoscaleAll);
  QAction* clearPast = view->addAction(tr("&Remove Past Runs from Charts"));
  clearPast->setToolTip(tr("Keep only the live run on the charts"));
  connect(clearPast, &QAction::triggered, this, [this] {
    m_charts->clearTracesExcept(kLiveTrace);
    updateActions();
  });
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

// --- files

void MainWindow::newExperiment() {
  if (!confirmDiscard()) return;
  m_editor->setDocument(experimentToJson(Experiment{}));
  m_file.clear();
  updateTitle();
}

void MainWindow::openDialog() {
  if (!confirmDiscard()) return;
  const QString file = QFileDialog::getOpenFileName(
      this, tr("Open experiment"), m_file.isEmpty() ? QDir::currentPath() : QFileInfo(m_file).path(),
      tr("Experiment files (*.json);;All files (*)"));
  if (!file.isEmpty()) openFile(file);
}

bool MainWindow::openFile(const QString& file) {
  std::ifstream in(file.toStdString());
  nlohmann::json doc = in ? nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false) : nlohmann::json();
  if (!in || doc.is_discarded()) {
    // The engine's own reader words what is wrong with the file (missing, not JSON, where).
    const ParseResult result = loadExperimentFile(file.toStdString());
    const QString why = result.issues.empty() ? tr("The file could not be read.")
                                              : QString::fromStdString(result.issues.front().message);
    showError(tr("Could not open %1").arg(QFileInfo(file).fileName()), why,
              tr("Check the path, or fix the JSON (no comments, no trailing commas)."));
    return false;
  }
  m_editor->setDocument(doc);
  m_file = QFileInfo(file).absoluteFilePath();
  m_recent->add(m_file);
  updateTitle();
  statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(m_file)), 4000);
  return true;
}

bool MainWindow::saveFile(const QString& file) {
  QSaveFile out(file);
  const std::string text = m_editor->document().dump(2) + "\n";
  if (!out.open(QIODevice::WriteOnly) || out.write(text.data(), static_cast<qint64>(text.size())) < 0 ||
      !out.commit()) {
    showError(tr("Could not save %1").arg(QFileInfo(file).fileName()), out.errorString(),
              tr("Choose a folder you can write to (File ▸ Save As…)."));
    return false;
  }
  m_file = QFileInfo(file).absoluteFilePath();
  m_editor->markSaved();
  m_recent->add(m_file);
  updateTitle();
  statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(m_file)), 4000);
  if (const QString unknown = unknownKeysText(m_editor->unknownKeys()); !unknown.isEmpty()) {
    // Saved as asked (work in progress is worth keeping), but never silently with keys the engine refuses.
    const QString told =
        tr("Saved %1 with unknown key(s) %2: the engine refuses the file until they are renamed or "
           "removed (the bar under the problem list does either).")
            .arg(QFileInfo(m_file).fileName(), unknown);
    statusBar()->showMessage(told, 10000);
    m_log->append(LogLevel::Warning, told);
  }
  return true;
}

bool MainWindow::save() {
  return m_file.isEmpty() ? saveAs() : saveFile(m_file);
}

bool MainWindow::saveAs() {
  QString suggested = m_file;
  if (suggested.isEmpty()) {
    const nlohmann::json doc = m_editor->document();
    const std::string name = doc.value("name", std::string("experiment"));
    suggested = QDir::current().filePath(QString::fromStdString(name) + QStringLiteral(".json"));
  }
  QString file = QFileDialog::getSaveFileName(this, tr("Save experiment"), suggested,
                                              tr("Experiment files (*.json);;All files (*)"));
  if (file.isEmpty()) return false;
  if (QFileInfo(file).suffix().isEmpty()) file += QStringLiteral(".json");
  return saveFile(file);
}

bool MainWindow::confirmDiscard() {
  if (!m_editor->isModified()) return true;
  const auto answer =
      QMessageBox::warning(this, tr("Unsaved changes"), tr("The experiment has changes that are not saved."),
                           QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::updateTitle() {
  const nlohmann::json doc = m_editor->document();
  const nlohmann::json name = doc.value("name", nlohmann::json());
  const QString shown = m_file.isEmpty() ? tr("Untitled") : QFileInfo(m_file).fileName();
  QString title = shown + QStringLiteral("[*]");
  if (name.is_string()) title += QStringLiteral(" (%1)").arg(QString::fromStdString(name.get<std::string>()));
  setWindowTitle(title + QStringLiteral(" — Torch Workbench"));
  setWindowModified(m_editor->isModified());
}

// --- runs

void MainWindow::beginLiveTrace(const QString& label) {
  m_charts->removeTrace(kLiveTrace);
  m_charts->addTrace(kLiveTrace, label);
}

bool MainWindow::startRun() {
  if (m_lifecycle.busy()) return false;
  m_editor->validateNow();
  const std::optional<Experiment> experiment = m_editor->experiment();
  if (!experiment) {
    const auto& issues = m_editor->issues();
    if (!issues.empty()) m_editor->focusIssue(issues.front().path);
    showError(
        tr("The experiment cannot start"),
        tr("%n field(s) in the editor are marked with a problem.", nullptr, static_cast<int>(issues.size())),
        tr("Fix the marked fields (the list under the form leads to each), then start again."));
    return false;
  }
  // The parse above needs neither data nor Torch; what the engine would refuse at start (a device this
  // machine lacks, fp16 on the CPU, a missing dataset) needs checkExperiment, which reads data headers: not
  // on this thread.
  m_lifecycle.beginCheck();
  m_stateLabel->setText(tr("Checking the experiment…"));
  m_progress->reset(tr("Checking the experiment…"), experiment->train.epochs);
  updateActions();
  runOffThread(
      this,
      [e = *experiment] {
        try {
          return checkExperiment(e);
        } catch (const std::exception& error) {
          return std::vector<ValidationIssue>{{"", error.what()}};
        }
      },
      [this, checked = *experiment](const std::vector<ValidationIssue>& issues) {
        onStartChecked(checked, issues);
      });
  return true;
}

void MainWindow::onStartChecked(const Experiment& experiment, const std::vector<ValidationIssue>& issues) {
  m_lifecycle.checkDone(issues.empty());
  m_stateLabel->setText(tr("Idle"));
  if (issues.empty()) {
    startExperiment(experiment);
    updateActions();
    return;
  }
  // The same words as `workbench-cli train` prints, marked at the fields like any other bad input.
  const QString problems = QString::fromStdString(formatIssues(issues)).trimmed();
  m_progress->reset(
      tr("Not started: the experiment has %n problem(s)", nullptr, static_cast<int>(issues.size())), 0);
  m_log->append(LogLevel::Error, tr("The experiment is not valid:\n%1").arg(problems));
  m_editor->showEngineIssues(issues);
  m_editor->focusIssue(issues.front().path);
  updateActions();
  showError(tr("The experiment cannot start"), tr("The engine's checks found:\n%1").arg(problems),
            tr("Fix the marked fields (the list under the form leads to each), then start again."));
  emit startRefused(problems);
}

bool MainWindow::startExperiment(const Experiment& experiment) {
  if (m_controller->isActive()) return false;
  const QString name =
      QString::fromStdString(experimentRunName(experiment));  // the experiment's, or model-data
  beginLiveTrace(name);
  m_lastStep = 0;
  m_log->appendNote(tr("Starting %1 on %2").arg(name, describeDevices(experiment.train.devices)));
  m_progress->reset(tr("Starting: loading the data and building the model…"), experiment.train.epochs);
  m_progress->setDevices(experiment.train.devices, tr("The devices of the run in progress (%1)").arg(name));
  m_controller->start(experiment);
  m_editor->setLocked(
      tr("Showing the experiment being trained (%1): the form is locked while the run goes on. "
         "Edits apply to the next run — stop this one or let it finish.")
          .arg(name));
  m_runs->setRunsDir(QString::fromStdString(experiment.output.runs_dir));
  QTimer::singleShot(kRunsRefreshDelayMs, m_runs, &RunsBrowser::refresh);
  return true;
}

bool MainWindow::resumeRun(const QString& runDir, bool force) {
  if (m_lifecycle.busy()) {
    const bool checking = m_lifecycle.phase() == RunLifecycle::Phase::Checking;
    showError(checking ? tr("A run is about to start") : tr("A run is in progress"),
              tr("Only one run trains at a time."),
              checking ? tr("Wait for the experiment's checks, then stop that run (Run ▸ Stop).")
                       : tr("Stop the current run first (Run ▸ Stop)."));
    return false;
  }
  if (const ResumeRefusal refusal = checkResumable(runDir); refusal.refused()) {
    showError(refusal.title, refusal.message, refusal.hint);
    return false;
  }
  // The run's curves so far come first, then the resumed run appends to them; loaded off the UI thread.
  m_lifecycle.beginResume(runDir);
  updateActions();
  runOffThread(
      this, [runDir] { return loadHistory(runDir); },
      [this, runDir, force](const LoadedHistory& loaded) {
        const std::optional<RunRecord> listed = m_runs->run(QDir(runDir).absolutePath());
        const QString label = listed ? QString::fromStdString(listed->name)
                              : loaded.history
                                  ? QString::fromStdString(experimentRunName(loaded.history->experiment))
                                  : QDir(runDir).dirName();
        beginLiveTrace(label);
        if (loaded.history) {
          m_charts->appendSteps(kLiveTrace, loaded.history->steps);
          m_charts->appendEpochs(kLiveTrace, loaded.history->epochs);
          m_charts->addControlMarks(kLiveTrace, loaded.history->controls);
        }
        m_lastStep = 0;
        m_log->appendNote(tr("Resuming %1").arg(QDir::toNativeSeparators(runDir)));
        m_controller->resumeInterrupted(ResumeRequest{runDir.toStdString(), force});
        m_editor->setLocked(
            tr("A resumed run is training %1 with its own experiment.json: the form is locked while it "
               "goes on, and edits apply to the next run.")
                .arg(QDir(runDir).dirName()));
        const auto& e = m_controller->experiment();
        m_progress->reset(tr("Resuming from the latest checkpoint…"), e ? e->train.epochs : 0);
        if (e) {
          m_progress->setDevices(e->train.devices,
                                 tr("The devices of the run in progress (%1)").arg(QDir(runDir).dirName()));
        }
        updateActions();
      });
  return true;
}

void MainWindow::resumeDialog() {
  const QString start = m_runs->runsDir();
  auto* dialog = new InterruptedRunsDialog(start, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowModality(Qt::WindowModal);
  connect(dialog, &InterruptedRunsDialog::resumeRequested, this,
          [this](const QString& dir) { resumeRun(dir); });
  connect(dialog, &InterruptedRunsDialog::otherFolderRequested, this, [this, start] {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Resume an interrupted run: choose its folder"),
                                          start.isEmpty() ? QDir::currentPath() : start);
    if (!dir.isEmpty()) resumeRun(dir);
  });
  dialog->open();
}

void MainWindow::togglePause() {
  if (m_controller->state() == RunController::State::Running) {
    m_controller->pause();
  } else if (m_controller->state() == RunController::State::Paused) {
    m_controller->resume();
  }
}

void MainWindow::stopRun() {
  if (m_controller->state() != RunController::State::Running &&
      m_controller->state() != RunController::State::Paused)
    return;
  m_controller->stop();
  m_log->appendNote(tr("Stopping after the step in flight; a checkpoint is written"));
}

void MainWindow::checkpointNow() {
  if (!m_controller->isActive()) return;
  m_controller->requestCheckpoint();
  m_log->appendNote(tr("Checkpoint requested: written after the step in flight"));
}

void MainWindow::openRuns(const QStringList& folders, bool replace) {
  if (replace) m_charts->clearTracesExcept(kLiveTrace);
  for (const QString& folder : folders) {
    ++m_pendingLoads;
    runOffThread(
        this, [folder] { return loadHistory(folder); },
        [this](const LoadedHistory& loaded) {
          --m_pendingLoads;
          if (!loaded.history) {
            showError(tr("Could not open the run %1").arg(QDir(loaded.folder).dirName()), loaded.error,
                      loaded.hint.isEmpty()
                          ? tr("Check that the folder is a run folder (it has experiment.json).")
                          : loaded.hint);
            return;
          }
          // The run's name (as listed, renamed or not) reads best in legends; the folder (its date) tells
          // apart runs of the same name.
          const std::optional<RunRecord> listed = m_runs->run(loaded.folder);
          QString label =
              QString::fromStdString(listed ? listed->name : experimentRunName(loaded.history->experiment));
          for (const QString& id : m_charts->traceIds()) {
            if (id != loaded.folder && m_charts->traceLabel(id) == label)
              label = QDir(loaded.folder).dirName();
          }
          m_charts->addTrace(loaded.folder, label);
          m_charts->appendSteps(loaded.folder, loaded.history->steps);
          // While a run trains, the header keeps its devices; else it shows those of the run just opened.
          if (!m_lifecycle.busy()) {
            m_progress->setDevices(
                loaded.history->experiment.train.devices,
                tr("The devices of %1 (its experiment.json)").arg(QDir(loaded.folder).dirName()));
          }
          m_charts->appendEpochs(loaded.folder, loaded.history->epochs);
          m_charts->addControlMarks(loaded.folder, loaded.history->controls);
          // Still training (no summary yet), by another process or this one: its new lines follow as they
          // come.
          if (!loaded.history->summary && !(listed && listed->status != "running")) {
            m_follower->follow(loaded.folder, loaded.history->metrics_bytes);
          }
          updateActions();  // "Back to Live Run" while a run trains
          statusBar()->showMessage(tr("Opened run %1").arg(QDir(loaded.folder).dirName()), 4000);
        });
  }
}

void MainWindow::cloneRun(const QString& folder) {
  if (m_editor->isLocked()) {
    showError(tr("A run is training"), tr("The form shows the experiment being trained until the run ends."),
              tr("Clone the run once this one has ended (or stop it with Run ▸ Stop)."));
    return;
  }
  const QString file = QDir(folder).filePath(QStringLiteral("experiment.json"));
  std::ifstream in(file.toStdString());
  nlohmann::json doc = in ? nlohmann::json::parse(in, nullptr, false) : nlohmann::json();
  if (!in || doc.is_discarded()) {
    showError(tr("Could not clone the run"),
              tr("%1 is missing or not valid JSON.").arg(QDir::toNativeSeparators(file)),
              tr("Choose a run folder made by the workbench."));
    return;
  }
  if (!confirmDiscard()) return;
  m_editor->setDocument(doc);
  m_file.clear();
  updateTitle();
  m_editorDock->show();
  m_editorDock->raise();
  statusBar()->showMessage(tr("The experiment of %1 is in the editor, unsaved").arg(QDir(folder).dirName()),
                           6000);
}

void MainWindow::showRunsPanel(const QStringList& selected) {
  m_runsDock->show();
  m_runsDock->raise();
  QStringList absolute;
  for (const QString& folder : selected) absolute << QDir(folder).absolutePath();
  m_runs->selectFolders(absolute);
}

void MainWindow::showError(const QString& title, const QString& message, const QString& hint) {
  if (m_presentError) m_presentError(title, message, hint);
}

void MainWindow::onEvents(const EventBatch& batch) {
  std::vector<StepMetrics> steps;
  std::vector<EpochMetrics> epochs;
  for (const Event& e : batch) {
    if (const auto* s = std::get_if<StepMetrics>(&e)) {
      steps.push_back(*s);
      if (s->nonfinite_steps_in_window > 0) {
        m_log->append(
            LogLevel::Warning,
            tr("%n optimizer step(s) skipped for inf/NaN gradients before step %1; AMP loss scale now %2",
               nullptr, static_cast<int>(s->nonfinite_steps_in_window))
                .arg(s->step)
                .arg(s->loss_scale));
      }
    } else if (const auto* ep = std::get_if<EpochMetrics>(&e)) {
      epochs.push_back(*ep);
      m_log->append(LogLevel::Info, epochLine(*ep, tr("Epoch")));
    } else if (const auto* log = std::get_if<LogLine>(&e)) {
      m_log->append(log->level, QString::fromStdString(log->text));
    } else if (const auto* control = std::get_if<ControlApplied>(&e)) {
      m_log->append(LogLevel::Info, QString::fromStdString(control->message));
      m_charts->addControlMarks(kLiveTrace, {*control});
    } else if (const auto* error = std::get_if<RunError>(&e)) {
      m_log->append(LogLevel::Error, QString::fromStdString(error->message));
      if (error->kind == ErrorKind::ExperimentChanged && m_askForceResume &&
          m_lifecycle.resumeRefusedAsChanged()) {
        m_askForceResume(QString::fromStdString(error->message), [this, dir = m_lifecycle.resumingDir()] {
          // The refused attempt may still be winding down on its thread: then it resumes once that has ended.
          if (m_lifecycle.resumeAnywayChosen(dir)) resumeRun(dir, /*force=*/true);
        });
      } else {
        showError(errorTitle(error->kind), QString::fromStdString(error->message),
                  QString::fromStdString(error->hint));
      }
    }
  }
  // One append per chart per drain tick, however many events the batch held.
  m_charts->appendSteps(kLiveTrace, steps);
  m_charts->appendEpochs(kLiveTrace, epochs);
  if (!steps.empty()) {
    // The first step of a run (or of a resumed one): the index says "running" by now.
    if (m_lastStep == 0) m_runs->refresh();
    m_progress->update(steps.back());
    m_lastStep = steps.back().step;
    emit stepReported(m_lastStep);
  }
}

void MainWindow::onStateChanged(RunController::State state) {
  m_lifecycle.controllerStateChanged(state);
  m_stateLabel->setText(runStateWord(state));
  if (state == RunController::State::Paused) m_log->appendNote(tr("Paused after the step in flight"));
  m_progress->setPaused(state == RunController::State::Paused);
  updateActions();
}

void MainWindow::onRunFinished(const RunSummary& summary) {
  const RunLifecycle::AfterFinish after = m_lifecycle.finished(m_compressor->isActive());
  QString text = runStatusWord(summary.status);
  switch (summary.status) {
    case RunStatus::Completed:
    case RunStatus::EarlyStopped:
      if (summary.test_accuracy >= 0)
        text += tr(" · test accuracy %1 %").arg(summary.test_accuracy * 100, 0, 'f', 2);
      if (summary.test_loss >= 0) text += tr(" · test loss %1").arg(summary.test_loss, 0, 'f', 4);
      break;
    case RunStatus::Interrupted:
      text += tr(" at step %1 with a checkpoint: Run ▸ Resume an Interrupted Run continues it")
                  .arg(summary.steps);
      break;
    case RunStatus::Failed:
      // A resume refused because the experiment changed did not fail anything: the question about it is open.
      text = after.refused_as_changed ? tr("Not resumed: the run's experiment changed since its checkpoint")
                                      : text + tr(": see the log");
      break;
  }
  text += tr(" · %1 steps · %2").arg(summary.steps).arg(formatDuration(summary.wall_s));
  m_progress->setText(text);
  m_editor->setLocked(QString());
  m_log->appendNote(text + (summary.run_dir.empty()
                                ? QString()
                                : tr(" · %1").arg(QString::fromStdString(summary.run_dir))));
  m_runs->refresh();
  updateActions();
  emit runEnded(summary);
  if (after.close) {
    onJobEnded(true);
  } else if (!after.resume_anyway.isEmpty()) {
    // After this slot returns, so the controller has let the refused attempt go.
    QTimer::singleShot(0, this, [this, dir = after.resume_anyway] { resumeRun(dir, /*force=*/true); });
  }
}

// --- evaluation

QString MainWindow::finishedRunFolder(const QString& runDir, const QString& why, const QString& command) {
  if (!runDir.isEmpty()) return runDir;
  const std::optional<RunRecord> selected = m_runs->selectedRun();
  if (!selected || selected->status != "finished") {
    showError(
        tr("No finished run selected"), why,
        tr("Select a finished run in the Runs panel (View ▸ Runs), then choose %1 again.").arg(command));
    return QString();
  }
  return QString::fromStdString(selected->folder);
}

bool MainWindow::evaluateRun(const QString& runDir) {
  const QString dir =
      finishedRunFolder(runDir, tr("Evaluation needs a trained model."), tr("Run ▸ Evaluate Run"));
  if (dir.isEmpty()) return false;
  m_centralTabs->setCurrentWidget(m_evaluationView);
  if (!m_evaluationView->evaluate(dir)) return false;
  m_log->appendNote(tr("Evaluating %1 on its test split").arg(QDir(dir).dirName()));
  return true;
}

// --- compression

CompressDialog* MainWindow::openCompressDialog(CompressDialog::Kind kind, const QString& runDir) {
  const QString dir =
      finishedRunFolder(runDir, tr("Compression starts from a trained model."), tr("Compress"));
  if (dir.isEmpty()) return nullptr;
  if (m_compressor->isActive()) {
    showError(tr("A compression is in progress"), tr("One pipeline runs at a time."),
              tr("Wait for it to finish, or cancel it in the Compression view."));
    return nullptr;
  }
  auto* dialog = new CompressDialog(kind, dir, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    if (const std::optional<CompressConfig> config = dialog->config())
      startCompression(dialog->runDir(), *config);
  });
  dialog->open();  // window-modal, no nested event loop
  return dialog;
}

bool MainWindow::startCompression(const QString& runDir, const CompressConfig& config) {
  if (m_compressor->isActive()) {
    showError(tr("A compression is in progress"), tr("One pipeline runs at a time."),
              tr("Wait for it to finish, or cancel it in the Compression view."));
    return false;
  }
  if (!showsCompressionOf(runDir)) m_compressionView->setRunDir(runDir);
  m_compressionView->beginProgress(runDir, static_cast<int>(config.passes.size()));
  m_centralTabs->setCurrentWidget(m_compressionView);
  QStringList passes;
  for (const CompressPassConfig& pass : config.passes) passes << QString::fromStdString(pass.type);
  m_log->appendNote(tr("Compressing %1: %2").arg(QDir(runDir).dirName(), passes.join(QStringLiteral(" → "))));
  m_compressor->start(CompressRequest{runDir.toStdString(), config});
  updateActions();
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
  m_runsDock->show();
  m_runsDock->raise();  // its compressed models are listed under it there
}

bool MainWindow::showsCompressionOf(const QString& runDir) const {
  return sameFolder(m_compressionView->runDir(), runDir);
}

void MainWindow::onRunSelectionChanged() {
  updateActions();
  // The view follows the selection; with no single run selected it keeps what it shows.
  const QStringList folders = m_runs->selectedFolders();
  if (folders.size() == 1 && !showsCompressionOf(folders.front()))
    m_compressionView->setRunDir(folders.front());
}

void MainWindow::onCompressionEvents(const EventBatch& batch) {
  const QString runDir = m_compressor->runDir();
  const bool shown = showsCompressionOf(runDir);
  bool newArtifact = false;
  const StepMetrics* lastStep = nullptr;
  // A pass's fine-tuning is a training phase: its losses are plotted live on the Training charts as a trace
  // of their own ("fine-tuning 01-prune"), beside the run's.
  std::vector<StepMetrics> steps;
  std::vector<EpochMetrics> epochs;
  auto plotPhase = [&] {
    if (m_compressionTrace.isEmpty() || (steps.empty() && epochs.empty())) return;
    m_charts->appendSteps(m_compressionTrace, steps);
    m_charts->appendEpochs(m_compressionTrace, epochs);
    steps.clear();
    epochs.clear();
  };
  for (const Event& e : batch) {
    if (const auto* s = std::get_if<StepMetrics>(&e)) {
      lastStep = s;
      steps.push_back(*s);
    } else if (const auto* ep = std::get_if<EpochMetrics>(&e)) {
      epochs.push_back(*ep);
      m_log->append(LogLevel::Info, epochLine(*ep, tr("Fine-tuning epoch")));
    } else if (const auto* log = std::get_if<LogLine>(&e)) {
      m_log->append(log->level, QString::fromStdString(log->text));
    } else if (const auto* stage = std::get_if<CompressionStage>(&e)) {
      m_compressionView->updateStage(*stage);
      if (stage->state == "started" || stage->state == "resumed") {
        plotPhase();
        m_compressionTrace =
            QStringLiteral("compress:") + runDir + QLatin1Char('/') + QString::fromStdString(stage->artifact);
        m_charts->removeTrace(m_compressionTrace);  // a resumed pass's log starts again from its checkpoint
        m_charts->addTrace(m_compressionTrace,
                           tr("fine-tuning %1").arg(QString::fromStdString(stage->artifact)));
      }
    } else if (const auto* figures = std::get_if<ArtifactFigures>(&e)) {
      if (shown) m_compressionView->applyFigures(*figures);
      newArtifact = true;
    } else if (const auto* error = std::get_if<RunError>(&e)) {
      m_log->append(LogLevel::Error, QString::fromStdString(error->message));
      showError(compressionErrorTitle(error->kind), QString::fromStdString(error->message),
                QString::fromStdString(error->hint));
    }
  }
  plotPhase();
  // One progress update and one runs-browser refresh per drain tick, however many events the batch held.
  if (lastStep) m_compressionView->updateStep(*lastStep);
  if (newArtifact) m_runs->refresh();
}

void MainWindow::onCompressionFinished(const RunSummary& summary) {
  const QString runDir = QString::fromStdString(summary.run_dir).isEmpty()
                             ? m_compressor->runDir()
                             : QString::fromStdString(summary.run_dir);
  QString text;
  switch (summary.status) {
    case RunStatus::Completed:
    case RunStatus::EarlyStopped:
      text = tr("Compressed %1: every pass done").arg(QDir(runDir).dirName());
      break;
    case RunStatus::Interrupted:
      text = tr("Compression of %1 stopped with a checkpoint: the same pipeline again continues it")
                 .arg(QDir(runDir).dirName());
      break;
    case RunStatus::Failed:
      text = tr("Compression of %1 failed: see the log").arg(QDir(runDir).dirName());
      break;
  }
  m_compressionView->endProgress(text);
  m_log->appendNote(text);
  statusBar()->showMessage(text, 6000);
  // compress.json is the record: the view and the runs browser show what it holds now.
  if (showsCompressionOf(runDir)) m_compressionView->reload();
  m_runs->refresh();
  updateActions();
  emit compressionEnded(summary);
  onJobEnded(m_lifecycle.jobEnded(m_controller->isActive()));  // closes once the training run has ended too
}

void MainWindow::updateActions() {
  // Compress ▸ … needs one finished run selected, and no pipeline running.
  const std::optional<RunRecord> selected = m_runs->selectedRun();
  const bool compressible = selected && selected->status == "finished" && !m_compressor->isActive();
  for (QAction* action : {m_pruneAction, m_quantizeAction, m_distillAction, m_pipelineAction}) {
    action->setEnabled(compressible);
  }
  m_evaluateAction->setEnabled(selected && selected->status == "finished");
  m_export->update();
  const RunLifecycle::Actions run = m_lifecycle.actions();
  m_startAction->setEnabled(run.start);
  // The form shows the experiment being trained while a run goes on (ExperimentEditor::setLocked).
  for (QAction* a : {m_newAction, m_openAction, m_recentMenu->menuAction()})
    a->setEnabled(run.change_experiment);
  m_resumeAction->setEnabled(run.resume);
  m_pauseAction->setEnabled(run.pause);
  m_stopAction->setEnabled(run.stop);
  m_checkpointAction->setEnabled(run.checkpoint);
  m_pauseAction->setText(run.paused ? tr("Resume") : tr("&Pause"));
  m_pauseAction->setIcon(actionIcon(run.paused ? QStringLiteral("resume") : QStringLiteral("pause")));
  m_runs->setLiveRunActive(m_controller->isActive());
  m_runs->setPastRunsShown(m_charts->traceCount() > (m_charts->hasTrace(kLiveTrace) ? 1 : 0));
}

void MainWindow::closeEvent(QCloseEvent* event) {
  const bool jobs = m_controller->isActive() || m_compressor->isActive();
  switch (m_lifecycle.closeRequested(jobs)) {
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
  if (!confirmDiscard()) {
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
  // withdraws itself if the run ends on its own meanwhile (onRunFinished).
  const bool run = m_controller->isActive();
  auto* box = new QMessageBox(QMessageBox::Question,
                              run ? tr("A run is in progress") : tr("A compression is in progress"),
                              run ? tr("Stop the run and quit? The step in flight finishes and a checkpoint "
                                       "is written, so the run can be "
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
  connect(box, &QMessageBox::buttonClicked, this, [this, yes](QAbstractButton* clicked) {
    if (clicked != yes) return;
    // The window stays up, saying what it waits for; onRunFinished closes it and the process quits.
    const bool close_now = m_lifecycle.quitConfirmed(m_controller->isActive() || m_compressor->isActive());
    saveSettings();
    m_controller->stop();
    m_compressor->stop();
    m_stateLabel->setText(tr("Stopping to quit…"));
    m_progress->setText(tr("Quitting once the checkpoint is written…"));
    m_log->appendNote(tr("Stopping after the step in flight to quit; a checkpoint is written"));
    if (close_now) close();  // it ended as the answer came
  });
  // Cancel, Escape or the box's own close button: not quitting.
  connect(box, &QDialog::finished, this, [this] { m_lifecycle.quitCancelled(); });
  m_quitQuestion = box;
  m_lifecycle.quitAsked();
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
