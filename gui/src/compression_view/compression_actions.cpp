#include "compression_view/compression_actions.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QPushButton>
#include <QWidget>
#include <variant>

#include "app/action_table.h"
#include "charts/charts_panel.h"
#include "compression_view/compression_controller.h"
#include "compression_view/compression_view.h"
#include "run/run_feed.h"
#include "runs_browser/finished_run.h"
#include "runs_browser/runs_browser.h"
#include "window/log_panel.h"

namespace wb::gui {
namespace {

// The Training charts' traces of a pipeline's fine-tuning passes: "compress:<run folder>/<artifact>".
const QString kCompressTracePrefix = QStringLiteral("compress:");

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

// The log's and the status bar's word on how a pipeline ended.
QString endText(const RunSummary& summary, const QString& runDir) {
  const QString name = QDir(runDir).dirName();
  switch (summary.status) {
    case RunStatus::Completed:
    case RunStatus::EarlyStopped:
      return CompressionActions::tr("Compressed %1: every pass done").arg(name);
    case RunStatus::Interrupted:
      return CompressionActions::tr(
                 "Compression of %1 stopped with a checkpoint: the same pipeline again continues it")
          .arg(name);
    case RunStatus::Failed:
      return CompressionActions::tr("Compression of %1 failed: see the log").arg(name);
  }
  return QString();
}

}  // namespace

CompressionActions::CompressionActions(RunsBrowser* runs, ChartsPanel* charts, CompressionView* view,
                                       LogPanel* log, QWidget* window, ErrorPresenter presentError)
    : QObject(window),
      m_runs(runs),
      m_charts(charts),
      m_view(view),
      m_log(log),
      m_window(window),
      m_presentError(std::move(presentError)),
      m_controller(new CompressionController(this)) {
  using K = QKeySequence;
  auto open = [this](CompressDialog::Kind kind) { return [this, kind] { openDialog(kind); }; };
  makeActions(this,
              {
                  {&m_prune,
                   "prune",
                   tr("&Prune…"),
                   {},
                   tr("Remove the smallest weights or whole channels of the selected run's model"),
                   open(CompressDialog::Kind::Prune),
                   QStringLiteral("compressPrune")},
                  {&m_quantize,
                   "quantize",
                   tr("&Quantize to int8…"),
                   {},
                   tr("Store the selected run's weights as 8-bit integers"),
                   open(CompressDialog::Kind::Quantize),
                   QStringLiteral("compressQuantize")},
                  {&m_distill,
                   "distill",
                   tr("&Distill…"),
                   {},
                   tr("Train a model to copy the outputs of a teacher (by default the run's own model)"),
                   open(CompressDialog::Kind::Distill),
                   QStringLiteral("compressDistill")},
                  {&m_pipeline,
                   "compress",
                   tr("Pipe&line…"),
                   {K(Qt::CTRL | Qt::SHIFT | Qt::Key_P)},
                   tr("Several passes in order: prune, fine-tune, distill, quantize"),
                   open(CompressDialog::Kind::Pipeline),
                   QStringLiteral("compressPipeline")},
              });
  m_menu = new QMenu(tr("&Compress"), window);
  m_menu->setObjectName(QStringLiteral("compressMenu"));
  m_menu->setToolTipsVisible(true);
  m_menu->addAction(m_prune);
  m_menu->addAction(m_quantize);
  m_menu->addAction(m_distill);
  m_menu->addSeparator();
  m_menu->addAction(m_pipeline);

  connect(m_controller, &CompressionController::eventsArrived, this, &CompressionActions::onEvents);
  connect(m_controller, &CompressionController::finished, this, &CompressionActions::onFinished);
  connect(m_controller, &CompressionController::stateChanged, this, [this] {
    updateActions();
    emit changed();
  });
  connect(m_view, &CompressionView::cancelRequested, this, &CompressionActions::cancel);
  updateActions();
}

CompressDialog* CompressionActions::openDialog(CompressDialog::Kind kind, const QString& runDir) {
  const QString dir = finishedRunFolder(m_runs, runDir, tr("Compression starts from a trained model."),
                                        tr("Compress"), m_presentError);
  if (dir.isEmpty()) return nullptr;
  if (m_controller->isActive()) {
    m_presentError(tr("A compression is in progress"), tr("One pipeline runs at a time."),
                   tr("Wait for it to finish, or cancel it in the Compression view."));
    return nullptr;
  }
  auto* dialog = new CompressDialog(kind, dir, m_window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    if (const std::optional<CompressConfig> config = dialog->config()) start(dialog->runDir(), *config);
  });
  dialog->open();  // window-modal, no nested event loop
  return dialog;
}

bool CompressionActions::start(const QString& runDir, const CompressConfig& config) {
  if (m_controller->isActive()) {
    m_presentError(tr("A compression is in progress"), tr("One pipeline runs at a time."),
                   tr("Wait for it to finish, or cancel it in the Compression view."));
    return false;
  }
  if (!shows(runDir)) m_view->setRunDir(runDir);
  m_view->beginProgress(runDir, static_cast<int>(config.passes.size()));
  emit viewWanted();
  QStringList passes;
  for (const CompressPassConfig& pass : config.passes)
    passes << QString::fromStdString(wordString(pass.type));
  m_log->appendNote(tr("Compressing %1: %2").arg(QDir(runDir).dirName(), passes.join(QStringLiteral(" → "))));
  m_controller->start(CompressRequest{runDir.toStdString(), config});
  updateActions();
  emit changed();
  return true;
}

bool CompressionActions::shows(const QString& runDir) const {
  return sameFolder(m_view->runDir(), runDir);
}

void CompressionActions::followSelection() {
  // With no single run selected the view keeps what it shows.
  const QStringList folders = m_runs->selectedFolders();
  if (folders.size() == 1 && !shows(folders.front())) m_view->setRunDir(folders.front());
}

void CompressionActions::cancel() {
  if (!m_controller->isActive()) return;
  m_controller->stop();
  m_view->cancelButton()->setEnabled(false);
  m_log->appendNote(tr("Stopping the compression after the step in flight; a checkpoint is written"));
}

void CompressionActions::clearFinishedTraces() {
  const QString running = m_controller->isActive() ? m_trace : QString();
  for (const QString& id : m_charts->traceIds()) {
    if (id.startsWith(kCompressTracePrefix) && id != running) m_charts->removeTrace(id);
  }
}

void CompressionActions::onEvents(const EventBatch& batch) {
  const QString runDir = m_controller->runDir();
  const bool shown = shows(runDir);
  bool newArtifact = false;
  const StepMetrics* lastStep = nullptr;
  // A pass's fine-tuning is a training phase: its losses are plotted live on the Training charts as a trace
  // of their own ("fine-tuning 01-prune"), beside the run's.
  std::vector<StepMetrics> steps;
  std::vector<EpochMetrics> epochs;
  auto plotPhase = [&] {
    if (m_trace.isEmpty() || (steps.empty() && epochs.empty())) return;
    m_charts->appendSteps(m_trace, steps);
    m_charts->appendEpochs(m_trace, epochs);
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
      m_view->updateStage(*stage);
      if (stage->state == StageState::Started || stage->state == StageState::Resumed) {
        plotPhase();
        m_trace = kCompressTracePrefix + runDir + QLatin1Char('/') + QString::fromStdString(stage->artifact);
        m_charts->removeTrace(m_trace);  // a resumed pass's log starts again from its checkpoint
        m_charts->addTrace(m_trace, tr("fine-tuning %1").arg(QString::fromStdString(stage->artifact)));
      }
    } else if (const auto* figures = std::get_if<ArtifactFigures>(&e)) {
      if (shown) m_view->applyFigures(*figures);
      newArtifact = true;
    } else if (const auto* error = std::get_if<RunError>(&e)) {
      m_log->append(LogLevel::Error, QString::fromStdString(error->message));
      m_presentError(compressionErrorTitle(error->kind), QString::fromStdString(error->message),
                     QString::fromStdString(error->hint));
    }
  }
  plotPhase();
  // One progress update and one runs-browser refresh per drain tick, however many events the batch held.
  if (lastStep) m_view->updateStep(*lastStep);
  if (newArtifact) m_runs->refresh();
}

void CompressionActions::onFinished(const RunSummary& summary) {
  const QString runDir = QString::fromStdString(summary.run_dir).isEmpty()
                             ? m_controller->runDir()
                             : QString::fromStdString(summary.run_dir);
  const QString text = endText(summary, runDir);
  m_view->endProgress(text);
  m_log->appendNote(text);
  emit statusMessage(text);
  // compress.json is the record: the view and the runs browser show what it holds now.
  if (shows(runDir)) m_view->reload();
  m_runs->refresh();
  updateActions();
  emit changed();
  emit finished(summary);
}

void CompressionActions::updateActions() {
  // Compress ▸ … needs one finished run selected, and no pipeline running.
  const std::optional<RunRecord> selected = m_runs->selectedRun();
  const bool compressible =
      selected && selected->status == RunIndexStatus::Finished && !m_controller->isActive();
  for (QAction* action : {m_prune, m_quantize, m_distill, m_pipeline}) action->setEnabled(compressible);
}

}  // namespace wb::gui
