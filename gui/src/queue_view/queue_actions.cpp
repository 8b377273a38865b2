#include "queue_view/queue_actions.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QKeySequence>
#include <QLabel>
#include <QMainWindow>
#include <QStatusBar>
#include <QWidget>

#include "app/off_thread.h"
#include "editor/experiment_editor.h"
#include "queue_view/queue_panel.h"
#include "sweep_view/sweep_builder_dialog.h"
#include "workbench/errors.h"
#include "workbench/experiment.h"
#include "workbench/run_info.h"
#include "workbench/run_queue.h"
#include "workbench/sweep_runs.h"

namespace wb::gui {
// What queueing came to, handed from the pool thread to the UI thread.
struct QueueOutcome {
  QString message;  // what was queued
  QString sweep;
  QString runsDir;  // the runs folder whose queue it went to
  QString error, hint;
};

namespace {

// Runs `work` (on a pool thread), turning what it throws into the outcome's error.
template <typename Work>
QueueOutcome queueOutcome(Work work) {
  QueueOutcome out;
  try {
    work(out);
  } catch (const UserError& error) {
    out.error = QString::fromUtf8(error.what());
    out.hint = QString::fromStdString(error.hint());
  } catch (const std::exception& error) {
    out.error = QString::fromUtf8(error.what());
  }
  return out;
}

}  // namespace

QueueActions::QueueActions(ExperimentEditor* editor, QueuePanel* panel, QWidget* window,
                           ErrorPresenter presentError)
    : QObject(window),
      m_editor(editor),
      m_panel(panel),
      m_window(window),
      m_presentError(std::move(presentError)) {
  // The window's status bar names what the queue does (its own run state reads "Idle" while a worker trains).
  if (auto* main = qobject_cast<QMainWindow*>(window))
    main->statusBar()->addPermanentWidget(panel->activityLabel());
  m_queue = new QAction(tr("&Queue"), this);
  m_queue->setObjectName(QStringLiteral("queueExperiment"));
  m_queue->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Q));
  m_queue->setToolTip(
      tr("Add the experiment in the editor to the run queue of its runs folder (Ctrl+Shift+Q)"));
  m_queueSweep = new QAction(tr("Queue S&weep…"), this);
  m_queueSweep->setObjectName(QStringLiteral("queueSweep"));
  m_queueSweep->setToolTip(
      tr("Try several values of the experiment's keys: a sweep file's trials, each a run, "
         "queued and compared in the Sweeps tab"));
  m_startWorker = new QAction(tr("Start Queue Wor&ker"), this);
  m_startWorker->setObjectName(QStringLiteral("startQueueWorker"));
  m_startWorker->setToolTip(
      tr("Train the queued entries in a process of its own (it goes on after this window closes)"));
  connect(m_queue, &QAction::triggered, this, [this] { queueExperiment(); });
  connect(m_queueSweep, &QAction::triggered, this, &QueueActions::openSweepBuilder);
  connect(m_startWorker, &QAction::triggered, this, [this] { m_panel->startWorker(); });
}

bool QueueActions::begin(const char* what) {
  if (m_busy) return false;
  m_editor->validateNow();
  if (!m_editor->experiment()) {
    const auto& issues = m_editor->issues();
    if (!issues.empty()) m_editor->focusIssue(issues.front().path);
    m_presentError(
        tr("The experiment cannot be queued"),
        tr("%n field(s) in the editor are marked with a problem.", nullptr, static_cast<int>(issues.size())),
        tr("Fix the marked fields, then %1 again.").arg(QLatin1String(what)));
    return false;
  }
  return true;
}

bool QueueActions::queueExperiment() {
  if (!begin("queue")) return false;
  m_busy = true;
  runOffThread(
      this,
      [e = *m_editor->experiment(), cwd = QDir::currentPath().toStdString()] {
        return queueOutcome([&](QueueOutcome& out) {
          const std::vector<ValidationIssue> issues = checkExperiment(e);
          if (!issues.empty()) {
            out.error = QString::fromStdString(formatIssues(issues)).trimmed();
            out.hint = QObject::tr("Fix the marked fields, then queue it again.");
            return;
          }
          const std::string runs =
              QDir(QString::fromStdString(e.output.runs_dir)).absolutePath().toStdString();
          QueueAddition a;
          a.experiment = experimentToJson(e).dump(2);
          a.label = experimentRunName(e);
          a.cwd = cwd;
          const int64_t id = addToQueue(runs, a);
          out.runsDir = QString::fromStdString(runs);
          out.message = QObject::tr("Queued %1 as entry %2 in %3")
                            .arg(QString::fromStdString(a.label))
                            .arg(id)
                            .arg(QDir::toNativeSeparators(QString::fromStdString(runs)));
        });
      },
      [this](const QueueOutcome& out) { finish(out, tr("The experiment was not queued")); });
  return true;
}

void QueueActions::finish(const QueueOutcome& out, const QString& refusedTitle) {
  m_busy = false;
  if (!out.error.isEmpty()) {
    m_presentError(refusedTitle, out.error, out.hint);
    emit refused(out.error);
    return;
  }
  // The panel (and the worker it starts) on the queue the entries went to, whatever folder it showed.
  m_panel->setRunsDir(out.runsDir);
  m_panel->reload();
  if (m_startsWorker && !m_panel->workerAlive()) m_panel->startWorker();
  if (!out.sweep.isEmpty()) emit sweepQueued(out.sweep, out.runsDir);
  emit queued(out.message);
}

SweepBuilderDialog* QueueActions::openSweepBuilder() {
  auto* dialog = new SweepBuilderDialog(m_editor, this, m_window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  if (m_editor->experiment()) dialog->addKey();  // a first row to edit: the learning rate
  dialog->open();
  return dialog;
}

bool QueueActions::queueSweep(const QString& sweepFile) {
  return queueSweepFrom([file = sweepFile.toStdString()] { return loadSweepFile(file); });
}

bool QueueActions::queueSweepSpec(const SweepSpec& sweep) {
  return queueSweepFrom([sweep] { return sweep; });
}

bool QueueActions::queueSweepFrom(std::function<SweepSpec()> readSweep) {
  if (!begin("queue the sweep")) return false;
  m_busy = true;
  runOffThread(
      this,
      [e = *m_editor->experiment(), readSweep = std::move(readSweep),
       cwd = QDir::currentPath().toStdString()] {
        return queueOutcome([&](QueueOutcome& out) {
          const SweepSpec spec = readSweep();
          const std::vector<SweepTrial> trials = planSweep(experimentToJson(e), spec, checkExperiment);
          const std::string runs =
              QDir(QString::fromStdString(e.output.runs_dir)).absolutePath().toStdString();
          wb::queueSweep(runs, cwd, spec, trials);
          out.runsDir = QString::fromStdString(runs);
          int refused = 0;
          for (const SweepTrial& t : trials) refused += t.problem.empty() ? 0 : 1;
          out.sweep = QString::fromStdString(spec.name);
          out.message = QObject::tr("Sweep %1: %2 trials queued in %3")
                            .arg(out.sweep)
                            .arg(trials.size())
                            .arg(QDir::toNativeSeparators(QString::fromStdString(runs)));
          if (refused > 0)
            out.message += QObject::tr(" (%1 refused by the engine's checks: marked failed)").arg(refused);
        });
      },
      [this](const QueueOutcome& out) { finish(out, tr("The sweep was not queued")); });
  return true;
}

}  // namespace wb::gui
