#include "run/run_actions.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>
#include <QWidget>

#include "app/action_icons.h"
#include "app/action_table.h"
#include "app/off_thread.h"
#include "charts/charts_panel.h"
#include "editor/experiment_editor.h"
#include "run/past_runs_on_charts.h"
#include "run/run_feed.h"
#include "run/run_status_words.h"
#include "runs_browser/interrupted_runs_dialog.h"
#include "runs_browser/runs_browser.h"
#include "window/log_panel.h"
#include "window/run_progress.h"
#include "workbench/run_info.h"

namespace wb::gui {
namespace {

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

// The progress line's last words on a run: how it ended, its test figures, its steps and time.
QString endText(const RunSummary& summary, bool refusedAsChanged) {
  QString text = runStatusWord(summary.status);
  switch (summary.status) {
    case RunStatus::Completed:
    case RunStatus::EarlyStopped:
      if (summary.test_accuracy >= 0)
        text += RunActions::tr(" · test accuracy %1 %").arg(summary.test_accuracy * 100, 0, 'f', 2);
      if (summary.test_loss >= 0) text += RunActions::tr(" · test loss %1").arg(summary.test_loss, 0, 'f', 4);
      break;
    case RunStatus::Interrupted:
      text += RunActions::tr(" at step %1 with a checkpoint: Run ▸ Resume an Interrupted Run continues it")
                  .arg(summary.steps);
      break;
    case RunStatus::Failed:
      // A resume refused because the experiment changed did not fail anything: the question about it is open.
      text = refusedAsChanged
                 ? RunActions::tr("Not resumed: the run's experiment changed since its checkpoint")
                 : text + RunActions::tr(": see the log");
      break;
  }
  return text + RunActions::tr(" · %1 steps · %2").arg(summary.steps).arg(formatDuration(summary.wall_s));
}

// "The run's experiment was changed: resume anyway?", window-modal, not exec().
void askForceResumeInDialog(QWidget* window, const QString& message, std::function<void()> resumeAnyway) {
  auto* box = new QMessageBox(QMessageBox::Warning, RunActions::tr("The run's experiment was changed"),
                              message, QMessageBox::Cancel, window);
  box->setObjectName(QStringLiteral("forceResumeDialog"));
  box->setInformativeText(
      RunActions::tr("Resume anyway? Training continues from the checkpoint's step with the experiment "
                     "file as it is now; the run's log records the changes. Or cancel and undo them."));
  QPushButton* anyway = box->addButton(RunActions::tr("Resume Anyway"), QMessageBox::AcceptRole);
  box->setDefaultButton(QMessageBox::Cancel);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setWindowModality(Qt::WindowModal);
  QObject::connect(box, &QMessageBox::buttonClicked, box, [anyway, resumeAnyway](QAbstractButton* clicked) {
    if (clicked == anyway) resumeAnyway();
  });
  box->open();
}

}  // namespace

RunActions::RunActions(const Views& views, QWidget* window, ErrorPresenter presentError,
                       std::function<bool()> otherJobsActive)
    : QObject(window),
      m_views(views),
      m_window(window),
      m_presentError(std::move(presentError)),
      m_otherJobsActive(std::move(otherJobsActive)),
      m_controller(new RunController(this)),
      m_feed(new RunFeed(views.charts, views.runs, views.log, views.progress, this)),
      m_stateLabel(new QLabel(tr("Idle"), window)) {
  m_stateLabel->setObjectName(QStringLiteral("runState"));
  m_askForceResume = [window](const QString& message, std::function<void()> resumeAnyway) {
    askForceResumeInDialog(window, message, std::move(resumeAnyway));
  };
  using K = QKeySequence;
  makeActions(
      this,
      {
          {&m_start,
           "start",
           tr("&Start"),
           {K(Qt::Key_F5), K(Qt::CTRL | Qt::Key_Return)},
           tr("Train the experiment in the editor (F5)"),
           [this] { startRun(); }},
          {&m_pause,
           "pause",
           tr("&Pause"),
           {K(Qt::Key_F6)},
           tr("Pause after the step in flight, or resume (F6)"),
           [this] { togglePause(); }},
          {&m_stop,
           "stop",
           tr("S&top"),
           {K(Qt::SHIFT | Qt::Key_F5)},
           tr("Stop after the step in flight; a checkpoint is written so the run can be resumed (Shift+F5)"),
           [this] { stopRun(); }},
          {&m_checkpoint,
           "checkpoint",
           tr("&Checkpoint now"),
           {K(Qt::CTRL | Qt::Key_K)},
           tr("Write a checkpoint after the step in flight (Ctrl+K)"),
           [this] { checkpointNow(); }},
          {&m_resume,
           "resume-run",
           tr("&Resume an Interrupted Run…"),
           {K(Qt::CTRL | Qt::SHIFT | Qt::Key_R)},
           tr("Continue a stopped run from its latest checkpoint"),
           [this] { resumeDialog(); }},
      });
  connect(m_controller, &RunController::eventsArrived, m_feed, &RunFeed::show);
  connect(m_controller, &RunController::stateChanged, this, &RunActions::onStateChanged);
  connect(m_controller, &RunController::runFinished, this, &RunActions::onRunFinished);
  connect(m_feed, &RunFeed::stepReported, this, &RunActions::stepReported);
  connect(m_feed, &RunFeed::errorReported, this, &RunActions::onError);
  updateActions();
}

int64_t RunActions::lastStep() const {
  return m_feed->lastStep();
}

void RunActions::beginLiveTrace(const QString& label, std::optional<TaskKind> task) {
  emit runStarting();
  m_views.charts->removeTrace(kLiveTrace);
  m_views.charts->addTrace(kLiveTrace, label, task);
}

void RunActions::refresh() {
  updateActions();
  emit changed();
}

bool RunActions::startRun() {
  if (m_lifecycle.busy()) return false;
  ExperimentEditor* editor = m_views.editor;
  editor->validateNow();
  const std::optional<Experiment> experiment = editor->experiment();
  if (!experiment) {
    const auto& issues = editor->issues();
    if (!issues.empty()) editor->focusIssue(issues.front().path);
    m_presentError(
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
  m_views.progress->reset(tr("Checking the experiment…"), experiment->train.epochs);
  refresh();
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

void RunActions::onStartChecked(const Experiment& experiment, const std::vector<ValidationIssue>& issues) {
  m_lifecycle.checkDone(issues.empty());
  m_stateLabel->setText(tr("Idle"));
  if (issues.empty()) {
    startExperiment(experiment);
    refresh();
    return;
  }
  // The same words as `workbench-cli train` prints, marked at the fields like any other bad input.
  const QString problems = QString::fromStdString(formatIssues(issues)).trimmed();
  m_views.progress->reset(
      tr("Not started: the experiment has %n problem(s)", nullptr, static_cast<int>(issues.size())), 0);
  m_views.log->append(LogLevel::Error, tr("The experiment is not valid:\n%1").arg(problems));
  m_views.editor->showEngineIssues(issues);
  m_views.editor->focusIssue(issues.front().path);
  refresh();
  m_presentError(tr("The experiment cannot start"), tr("The engine's checks found:\n%1").arg(problems),
                 tr("Fix the marked fields (the list under the form leads to each), then start again."));
  emit startRefused(problems);
}

bool RunActions::startExperiment(const Experiment& experiment) {
  if (m_controller->isActive()) return false;
  const QString name =
      QString::fromStdString(experimentRunName(experiment));  // the experiment's, or model-data
  beginLiveTrace(name, experiment.task);
  m_feed->restart();
  m_views.log->appendNote(tr("Starting %1 on %2").arg(name, describeDevices(experiment.train.devices)));
  m_views.progress->reset(tr("Starting: loading the data and building the model…"), experiment.train.epochs);
  m_views.progress->setDevices(experiment.train.devices,
                               tr("The devices of the run in progress (%1)").arg(name));
  m_controller->start(experiment);
  m_views.editor->setLocked(
      tr("Showing the experiment being trained (%1): the form is locked while the run goes on. "
         "Edits apply to the next run — stop this one or let it finish.")
          .arg(name));
  m_views.runs->setRunsDir(QString::fromStdString(experiment.output.runs_dir));
  QTimer::singleShot(kRunsRefreshDelayMs, m_views.runs, &RunsBrowser::refresh);
  return true;
}

bool RunActions::resumeRun(const QString& runDir, bool force) {
  if (m_lifecycle.busy()) {
    const bool checking = m_lifecycle.phase() == RunLifecycle::Phase::Checking;
    m_presentError(checking ? tr("A run is about to start") : tr("A run is in progress"),
                   tr("Only one run trains at a time."),
                   checking ? tr("Wait for the experiment's checks, then stop that run (Run ▸ Stop).")
                            : tr("Stop the current run first (Run ▸ Stop)."));
    return false;
  }
  if (const ResumeRefusal refusal = checkResumable(runDir); refusal.refused()) {
    m_presentError(refusal.title, refusal.message, refusal.hint);
    return false;
  }
  emit resumeStarting(runDir);
  // The run's curves so far come first, then the resumed run appends to them; loaded off the UI thread.
  m_lifecycle.beginResume(runDir);
  refresh();
  runOffThread(
      this, [runDir] { return loadHistory(runDir); },
      [this, runDir, force](const LoadedHistory& loaded) { onResumeLoaded(runDir, force, loaded); });
  return true;
}

void RunActions::onResumeLoaded(const QString& runDir, bool force, const LoadedHistory& loaded) {
  const std::optional<RunRecord> listed = m_views.runs->run(QDir(runDir).absolutePath());
  const QString label = listed ? QString::fromStdString(listed->name)
                        : loaded.history
                            ? QString::fromStdString(experimentRunName(loaded.history->experiment))
                            : QDir(runDir).dirName();
  beginLiveTrace(label,
                 loaded.history ? std::optional<TaskKind>(loaded.history->experiment.task) : std::nullopt);
  if (loaded.history) appendHistory(m_views.charts, kLiveTrace, *loaded.history);
  m_feed->restart();
  m_views.log->appendNote(tr("Resuming %1").arg(QDir::toNativeSeparators(runDir)));
  m_controller->resumeInterrupted(ResumeRequest{runDir.toStdString(), force});
  m_views.editor->setLocked(
      tr("A resumed run is training %1 with its own experiment.json: the form is locked while it "
         "goes on, and edits apply to the next run.")
          .arg(QDir(runDir).dirName()));
  const auto& e = m_controller->experiment();
  m_views.progress->reset(tr("Resuming from the latest checkpoint…"), e ? e->train.epochs : 0);
  if (e) {
    m_views.progress->setDevices(e->train.devices,
                                 tr("The devices of the run in progress (%1)").arg(QDir(runDir).dirName()));
  }
  refresh();
}

void RunActions::resumeDialog() {
  const QString start = m_views.runs->runsDir();
  auto* dialog = new InterruptedRunsDialog(start, m_window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowModality(Qt::WindowModal);
  connect(dialog, &InterruptedRunsDialog::resumeRequested, this,
          [this](const QString& dir) { resumeRun(dir); });
  connect(dialog, &InterruptedRunsDialog::otherFolderRequested, this, [this, start] {
    const QString dir =
        QFileDialog::getExistingDirectory(m_window, tr("Resume an interrupted run: choose its folder"),
                                          start.isEmpty() ? QDir::currentPath() : start);
    if (!dir.isEmpty()) resumeRun(dir);
  });
  dialog->open();
}

void RunActions::togglePause() {
  if (m_controller->state() == RunController::State::Running) {
    m_controller->pause();
  } else if (m_controller->state() == RunController::State::Paused) {
    m_controller->resume();
  }
}

void RunActions::stopRun() {
  if (m_controller->state() != RunController::State::Running &&
      m_controller->state() != RunController::State::Paused)
    return;
  m_controller->stop();
  m_views.log->appendNote(tr("Stopping after the step in flight; a checkpoint is written"));
}

void RunActions::checkpointNow() {
  if (!m_controller->isActive()) return;
  m_controller->requestCheckpoint();
  m_views.log->appendNote(tr("Checkpoint requested: written after the step in flight"));
}

void RunActions::onError(const RunError& error) {
  if (error.kind == ErrorKind::ExperimentChanged && m_askForceResume &&
      m_lifecycle.resumeRefusedAsChanged()) {
    m_askForceResume(QString::fromStdString(error.message), [this, dir = m_lifecycle.resumingDir()] {
      // The refused attempt may still be winding down on its thread: then it resumes once that has ended.
      if (m_lifecycle.resumeAnywayChosen(dir)) resumeRun(dir, /*force=*/true);
    });
    return;
  }
  m_presentError(errorTitle(error.kind), QString::fromStdString(error.message),
                 QString::fromStdString(error.hint));
}

void RunActions::onStateChanged(RunController::State state) {
  m_lifecycle.controllerStateChanged(state);
  m_stateLabel->setText(runStateWord(state));
  if (state == RunController::State::Paused) m_views.log->appendNote(tr("Paused after the step in flight"));
  m_views.progress->setPaused(state == RunController::State::Paused);
  refresh();
}

void RunActions::onRunFinished(const RunSummary& summary) {
  const RunLifecycle::AfterFinish after = m_lifecycle.finished(m_otherJobsActive());
  const QString text = endText(summary, after.refused_as_changed);
  m_views.progress->setText(text);
  m_views.editor->setLocked(QString());
  m_views.log->appendNote(text + (summary.run_dir.empty()
                                      ? QString()
                                      : tr(" · %1").arg(QString::fromStdString(summary.run_dir))));
  m_views.runs->refresh();
  refresh();
  emit runEnded(summary);
  if (after.close) {
    emit quitReady();
  } else if (!after.resume_anyway.isEmpty()) {
    // After this slot returns, so the controller has let the refused attempt go.
    QTimer::singleShot(0, this, [this, dir = after.resume_anyway] { resumeRun(dir, /*force=*/true); });
  }
}

void RunActions::updateActions() {
  const RunLifecycle::Actions run = m_lifecycle.actions();
  m_start->setEnabled(run.start);
  m_resume->setEnabled(run.resume);
  m_pause->setEnabled(run.pause);
  m_stop->setEnabled(run.stop);
  m_checkpoint->setEnabled(run.checkpoint);
  m_pause->setText(run.paused ? tr("Resume") : tr("&Pause"));
  m_pause->setIcon(actionIcon(run.paused ? QStringLiteral("resume") : QStringLiteral("pause")));
}

}  // namespace wb::gui
