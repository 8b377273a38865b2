#include "queue_view/queue_panel.h"

#include <signal.h>

#include <QColor>
#include <QDir>
#include <QFont>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/off_thread.h"
#include "app/system_info_cache.h"
#include "queue_view/queue_activity.h"
#include "widgets/named_button.h"
#include "workbench/errors.h"
#include "workbench/install_paths.h"

namespace wb::gui {
namespace {

enum Column { kId, kLabel, kState, kSweep, kAttempts, kStarted, kRun, kColumns };

struct LoadedQueue {
  std::vector<QueueEntry> entries;
  QString problem;
};

// Ended early by its sweep's rule (ASHA), as wb::SweepTrialResult::stopped says.
bool stoppedBySweep(const QueueEntry& e) {
  return e.state == QueueState::Done && e.message.rfind("stopped at the ", 0) == 0;
}

QString stateText(const QueueEntry& e) {
  if (stoppedBySweep(e)) return QObject::tr("stopped");
  return QString::fromStdString(wordString(e.state));
}

}  // namespace

QueuePanel::QueuePanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("queuePanel"));
  m_summary = new QLabel(this);
  // Not in the panel's layout: the window puts it in its status bar (it outlives the panel's dock tabs).
  m_activity = new QLabel(this);
  m_activity->setObjectName(QStringLiteral("queueActivity"));
  m_activity->hide();
  m_summary->setObjectName(QStringLiteral("queueSummary"));
  m_summary->setWordWrap(true);
  m_start =
      namedButton(tr("Start Worker"), "queueStartWorker",
                  tr("Train the queued entries in a workbench-cli process of its own: the queue goes on when "
                     "this window closes"),
                  this);
  m_devices = new QLineEdit(this);
  m_devices->setObjectName(QStringLiteral("queueWorkerDevices"));
  m_devices->setPlaceholderText(tr("one at a time"));
  m_devices->setToolTip(
      tr("The worker's slots, one entry training in each at once: cuda:0,cuda:1 (a GPU each) or "
         "cpu,cpu (the CPU cores shared out). Empty: one entry at a time."));
  m_devices->setMaximumWidth(160);
  // Offered, not filled in: an experiment for several GPUs needs a worker without GPU slots.
  QStringList gpus;
  for (const DeviceInfo& d : systemInfo().devices) {
    if (QString::fromStdString(d.id).startsWith(QLatin1String("cuda:"))) gpus << QString::fromStdString(d.id);
  }
  if (gpus.size() > 1)
    m_devices->setPlaceholderText(tr("one at a time; %1: one per GPU").arg(gpus.join(QLatin1Char(','))));
  m_hold = namedButton(tr("Hold"), "queueHold",
                       tr("Hold the selected entries (no worker takes them), or release held ones"), this);
  m_up = namedButton(tr("Up"), "queueUp", tr("Move the selected entry up the queue"), this);
  m_down = namedButton(tr("Down"), "queueDown", tr("Move the selected entry down the queue"), this);
  m_remove = namedButton(
      tr("Remove"), "queueRemove",
      tr("Remove the selected entries that are not running (a run folder they made stays)"), this);

  m_view = new QTreeWidget(this);
  m_view->setObjectName(QStringLiteral("queueView"));
  m_view->setRootIsDecorated(false);
  m_view->setUniformRowHeights(true);
  m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_view->setHeaderLabels({tr("#"), tr("Experiment"), tr("State"), tr("Sweep"), tr("Starts"),
                           tr("Started (UTC)"), tr("Run / message")});
  m_view->header()->setStretchLastSection(true);

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(m_summary, 1);
  bar->addWidget(new QLabel(tr("Slots:"), this));
  bar->addWidget(m_devices);
  for (QPushButton* b : {m_start, m_hold, m_up, m_down, m_remove}) bar->addWidget(b);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(m_view, 1);

  connect(m_start, &QPushButton::clicked, this, [this] { startWorker(); });
  connect(m_hold, &QPushButton::clicked, this, [this] {
    // Release when every selected entry is held; hold otherwise.
    bool allHeld = true;
    for (const qint64 id : selectedIds()) {
      for (const QueueEntry& e : m_entries) allHeld = allHeld && (e.id != id || e.state == QueueState::Held);
    }
    holdSelected(!allHeld);
  });
  connect(m_up, &QPushButton::clicked, this, [this] { moveSelected(-1); });
  connect(m_down, &QPushButton::clicked, this, [this] { moveSelected(+1); });
  connect(m_remove, &QPushButton::clicked, this, &QueuePanel::removeSelected);
  connect(m_view, &QTreeWidget::itemSelectionChanged, this, &QueuePanel::updateButtons);
  m_presentError = [this](const QString& title, const QString& message, const QString& hint) {
    m_summary->setText(title + QStringLiteral(": ") + message +
                       (hint.isEmpty() ? QString() : QStringLiteral(" ") + hint));
  };
  updateButtons();
}

void QueuePanel::setRunsDir(const QString& dir) {
  if (dir == m_dir) return;
  m_dir = dir;
  m_entries.clear();
  m_wasActive = false;
  m_reload.invalidate();  // a load of the folder before is dropped when it comes
  m_view->clear();
  reload();
}

void QueuePanel::reload() {
  if (m_dir.isEmpty()) return;
  const int generation = m_reload.begin();
  if (generation < 0) return;
  runOffThread(
      this,
      [dir = m_dir.toStdString()] {
        LoadedQueue out;
        try {
          out.entries = listQueue(dir);
        } catch (const std::exception& e) {
          out.problem = QString::fromUtf8(e.what());
        }
        return out;
      },
      [this, generation](LoadedQueue loaded) {
        onLoaded(std::move(loaded.entries), loaded.problem, generation);
      });
}

void QueuePanel::onLoaded(std::vector<QueueEntry> entries, const QString& problem, int generation) {
  ++m_loads;
  if (m_reload.end(generation)) {
    const QList<qint64> keep = selectedIds();
    m_problem = problem;
    m_entries = std::move(entries);
    const QSignalBlocker block(m_view);
    m_view->clear();
    int queued = 0, held = 0, running = 0, done = 0, stopped = 0, failed = 0;
    for (const QueueEntry& e : m_entries) {
      auto* item = new QTreeWidgetItem(m_view);
      item->setData(kId, Qt::DisplayRole, static_cast<qlonglong>(e.id));
      item->setText(kLabel, QString::fromStdString(e.label));
      item->setText(kState, stateText(e));
      item->setText(kSweep, QString::fromStdString(e.sweep));
      item->setData(kAttempts, Qt::DisplayRole, static_cast<qlonglong>(e.attempts));
      item->setText(kStarted,
                    QString::fromStdString(e.started_at).replace(QLatin1Char('T'), QLatin1Char(' ')));
      const QString folder = QString::fromStdString(e.run_folder);
      const QString message = QString::fromStdString(e.message);
      item->setText(kRun, e.state == QueueState::Failed || stoppedBySweep(e)
                              ? message
                              : (folder.isEmpty() ? message : QDir(folder).dirName()));
      item->setToolTip(kRun, folder.isEmpty()
                                 ? message
                                 : QDir::toNativeSeparators(folder) + QStringLiteral("\n") + message);
      if (e.state == QueueState::Failed) item->setForeground(kState, QColor(200, 40, 40));
      if (e.state == QueueState::Running) {
        QFont bold = item->font(kState);
        bold.setBold(true);
        item->setFont(kState, bold);
      }
      queued += e.state == QueueState::Queued;
      held += e.state == QueueState::Held;
      running += e.state == QueueState::Running;
      failed += e.state == QueueState::Failed;
      const bool wasStopped = stoppedBySweep(e);
      stopped += wasStopped;
      done += e.state == QueueState::Done && !wasStopped;
      if (keep.contains(e.id)) item->setSelected(true);
    }
    for (int c = 0; c < kRun; ++c) m_view->resizeColumnToContents(c);
    QString text;
    if (!m_problem.isEmpty()) {
      text = tr("The queue cannot be read: %1").arg(m_problem);
    } else if (m_entries.empty()) {
      text = tr("The queue is empty: Run ▸ Queue adds the experiment, Run ▸ Queue Sweep… a sweep's trials.");
    } else {
      QStringList parts;
      const std::pair<int, QString> counts[] = {
          {queued, tr("%1 queued")}, {running, tr("%1 running")},       {held, tr("%1 held")},
          {done, tr("%1 done")},     {stopped, tr("%1 stopped early")}, {failed, tr("%1 failed")}};
      for (const auto& [n, words] : counts) {
        if (n > 0) parts << words.arg(n);
      }
      text = parts.join(QStringLiteral(", "));
      if (queued > 0 && running == 0 && !workerAlive())
        text += tr(" · no worker is running: Start Worker trains them");
      if (workerAlive()) text += tr(" · worker pid %1").arg(m_workerPid);
    }
    m_summary->setText(text);
    m_activity->setText(m_problem.isEmpty() ? queueActivityText(m_entries) : QString());
    m_activity->setVisible(!m_activity->text().isEmpty());
    const bool active = queued > 0 || running > 0;
    if (!m_problem.isEmpty()) {
      // Unreadable for now: nothing is known to have finished.
    } else if (m_wasActive && !active) {
      emit queueFinished(
          tr("%1 done, %2 stopped early, %3 failed, %4 held").arg(done).arg(stopped).arg(failed).arg(held));
    }
    if (m_problem.isEmpty()) m_wasActive = active;
    updateButtons();
    emit entriesLoaded();
  }
  if (m_reload.takePending()) reload();
}

bool QueuePanel::workerAlive() const {
  return m_workerPid > 0 && ::kill(static_cast<pid_t>(m_workerPid), 0) == 0;
}

bool QueuePanel::startWorker() {
  if (m_dir.isEmpty()) return false;
  if (workerAlive()) {
    m_presentError(tr("A worker is running"),
                   tr("This window's worker (pid %1) is training the queue.").arg(m_workerPid), QString());
    return false;
  }
  const QString cli = QString::fromStdString(cliExecutable());
  if (cli.isEmpty()) {
    m_presentError(tr("Cannot start a queue worker"), tr("workbench-cli was not found beside the workbench."),
                   tr("Install both (the package has them), or set TORCH_WORKBENCH_CLI to its path."));
    return false;
  }
  QStringList args{QStringLiteral("queue"), QStringLiteral("run"), QStringLiteral("--until-empty")};
  const QString devices = m_devices->text().remove(QLatin1Char(' '));
  if (!devices.isEmpty()) {
    static const QRegularExpression slot(QStringLiteral("^(cpu|cuda:[0-9]+)$"));
    for (const QString& item : devices.split(QLatin1Char(','))) {
      if (!slot.match(item).hasMatch()) {
        m_presentError(
            tr("Cannot start a queue worker"), tr("Slots: '%1' is not a device.").arg(item),
            tr("List one slot per device: cuda:0,cuda:1 (a GPU each) or cpu,cpu (the CPU cores shared "
               "out); empty for one entry at a time."));
        return false;
      }
    }
    args << QStringLiteral("--devices") << devices;
  }
  const QString dir = QDir(m_dir).absolutePath();
  QDir().mkpath(dir);
  QProcess worker;
  worker.setProgram(cli);
  worker.setArguments(args << QStringLiteral("--runs-dir") << dir);
  worker.setWorkingDirectory(dir);
  worker.setStandardOutputFile(QDir(dir).filePath(QStringLiteral("queue-worker.log")), QIODevice::Append);
  worker.setStandardErrorFile(QDir(dir).filePath(QStringLiteral("queue-worker.log")), QIODevice::Append);
  qint64 pid = 0;
  if (!worker.startDetached(&pid)) {
    m_presentError(tr("Cannot start a queue worker"),
                   tr("%1 did not start.").arg(QDir::toNativeSeparators(cli)),
                   tr("Check that it runs: %1 --help").arg(cli));
    return false;
  }
  m_workerPid = pid;
  m_wasActive = true;  // what it trains ends with queueFinished, even when it ends before the next load
  reload();
  return true;
}

QList<qint64> QueuePanel::selectedIds() const {
  QList<qint64> ids;
  for (QTreeWidgetItem* item : m_view->selectedItems()) ids << item->data(kId, Qt::DisplayRole).toLongLong();
  return ids;
}

void QueuePanel::selectEntry(qint64 id) {
  for (int i = 0; i < m_view->topLevelItemCount(); ++i) {
    QTreeWidgetItem* item = m_view->topLevelItem(i);
    item->setSelected(item->data(kId, Qt::DisplayRole).toLongLong() == id);
  }
}

void QueuePanel::changeOffThread(std::function<void()> change, const QString& what) {
  runOffThread(
      this,
      [change = std::move(change)]() -> std::pair<QString, QString> {
        try {
          change();
          return {};
        } catch (const UserError& e) {
          return {QString::fromUtf8(e.what()), QString::fromStdString(e.hint())};
        } catch (const std::exception& e) {
          return {QString::fromUtf8(e.what()), QString()};
        }
      },
      [this, what](const std::pair<QString, QString>& error) {
        if (!error.first.isEmpty()) m_presentError(what, error.first, error.second);
        reload();
      });
}

void QueuePanel::holdSelected(bool hold) {
  const QList<qint64> ids = selectedIds();
  if (ids.isEmpty()) return;
  changeOffThread(
      [dir = m_dir.toStdString(), ids, hold] {
        for (const qint64 id : ids) holdInQueue(dir, id, hold);
      },
      hold ? tr("Could not hold the entry") : tr("Could not release the entry"));
}

void QueuePanel::moveSelected(int by) {
  const QList<qint64> ids = selectedIds();
  if (ids.size() != 1) return;
  // Up: before the entry above it; down: before the one two below (or to the end).
  int at = -1;
  for (size_t i = 0; i < m_entries.size(); ++i)
    at = m_entries[i].id == ids.front() ? static_cast<int>(i) : at;
  if (at < 0) return;
  const int target = by < 0 ? at - 1 : at + 2;
  if (by < 0 && at == 0) return;
  if (by > 0 && at + 1 >= static_cast<int>(m_entries.size())) return;
  const qint64 before =
      target < static_cast<int>(m_entries.size()) ? m_entries[static_cast<size_t>(target)].id : 0;
  changeOffThread([dir = m_dir.toStdString(), id = ids.front(), before] { moveInQueue(dir, id, before); },
                  tr("Could not move the entry"));
}

void QueuePanel::removeSelected() {
  const QList<qint64> ids = selectedIds();
  if (ids.isEmpty()) return;
  changeOffThread(
      [dir = m_dir.toStdString(), ids] {
        for (const qint64 id : ids) removeFromQueue(dir, id);
      },
      tr("Could not remove the entry"));
}

void QueuePanel::updateButtons() {
  const QList<qint64> ids = selectedIds();
  bool anyRunning = false, allHeld = !ids.isEmpty();
  for (const qint64 id : ids) {
    for (const QueueEntry& e : m_entries) {
      if (e.id != id) continue;
      anyRunning = anyRunning || e.state == QueueState::Running;
      allHeld = allHeld && e.state == QueueState::Held;
    }
  }
  m_hold->setText(allHeld ? tr("Release") : tr("Hold"));
  m_hold->setEnabled(!ids.isEmpty() && !anyRunning);
  m_up->setEnabled(ids.size() == 1);
  m_down->setEnabled(ids.size() == 1);
  m_remove->setEnabled(!ids.isEmpty() && !anyRunning);
  bool waiting = false;
  for (const QueueEntry& e : m_entries) waiting = waiting || e.state == QueueState::Queued;
  m_start->setEnabled(waiting && !workerAlive());
}

}  // namespace wb::gui
