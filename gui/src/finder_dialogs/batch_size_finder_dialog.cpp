#include "finder_dialogs/batch_size_finder_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "finder_dialogs/finder_frame.h"
#include "widgets/screen_fit.h"
#include "workbench/run_info.h"

namespace wb::gui {
namespace {

constexpr int kFinderDrainMs = 100;
enum FinderColumn { kBatch, kOutcome, kMemory, kThroughput, kNote, kFinderColumns };

QTableWidgetItem* cell(const QString& text, bool number) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace

BatchSizeFinderDialog::BatchSizeFinderDialog(const Experiment& experiment, std::function<bool(int64_t)> apply,
                                             QWidget* parent)
    : QDialog(parent),
      m_experiment(experiment),
      m_applyBatch(std::move(apply)),
      m_job(this, kFinderDrainMs,
            {[this](auto trials, auto log) { onStaged(trials, log); },
             [this](auto outcome) { onFinished(std::move(outcome)); },
             [this](bool running) { onRunningChanged(running); }}) {
  setObjectName(QStringLiteral("batchSizeFinderDialog"));
  setWindowTitle(tr("Find Batch Size — %1").arg(QString::fromStdString(experimentRunName(experiment))));
  auto* layout = new QVBoxLayout(this);
  const QString device =
      QString::fromStdString(experiment.train.devices.empty() ? "cpu" : experiment.train.devices.front());
  auto* intro = new QLabel(
      tr("Tries training steps (forward, backward, optimizer%1) on %2 at growing batch sizes "
         "until one does not "
         "fit, then bisects. On a GPU an out-of-memory is caught and the search goes on; on the "
         "CPU each step's "
         "peak memory is held against the limit below. Nothing is written.")
          .arg(experiment.train.amp == Precision::Off
                   ? QString()
                   : tr(", %1 autocast").arg(QString::fromStdString(wordString(experiment.train.amp))),
               device),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  auto* form = new QFormLayout;
  m_maxMemory = new QLineEdit(this);
  m_maxMemory->setObjectName(QStringLiteral("batchMaxMemory"));
  m_maxMemory->setPlaceholderText(tr("what the device has free"));
  m_maxMemory->setToolTip(tr("A size such as 4GiB, 512MiB or 2GB; empty: the device's free memory."));
  form->addRow(tr("Memory limit"), m_maxMemory);
  m_maxBatch = new QSpinBox(this);
  m_maxBatch->setObjectName(QStringLiteral("batchMaxBatch"));
  m_maxBatch->setRange(0, 1 << 24);
  m_maxBatch->setSpecialValueText(tr("the training split's size"));
  m_maxBatch->setValue(0);
  form->addRow(tr("Largest size tried"), m_maxBatch);
  const FinderControls controls =
      addFinderControls(this, layout, form, QStringLiteral("batch"), tr("&Cancel Search"));
  m_run = controls.run;
  m_cancel = controls.cancel;
  m_progress = controls.progress;

  m_table = new QTableWidget(0, kFinderColumns, this);
  m_table->setObjectName(QStringLiteral("batchTrials"));
  m_table->setHorizontalHeaderLabels(
      {tr("Batch"), tr("Outcome"), tr("Peak memory"), tr("Samples/s"), tr("Note")});
  m_table->verticalHeader()->setVisible(false);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->horizontalHeader()->setSectionResizeMode(kNote, QHeaderView::Stretch);
  m_table->setMinimumHeight(220);
  layout->addWidget(m_table, 1);

  const FinderFooter footer = addFinderFooter(this, layout, QStringLiteral("batch"),
                                              tr("Run the search to see which batch sizes fit."));
  m_summary = footer.summary;
  m_log = footer.log;
  m_apply = footer.apply;

  connect(m_run, &QPushButton::clicked, this, &BatchSizeFinderDialog::start);
  connect(m_cancel, &QPushButton::clicked, this, &BatchSizeFinderDialog::cancel);
  connect(m_table, &QTableWidget::itemSelectionChanged, this, &BatchSizeFinderDialog::updateApply);
  connect(m_apply, &QPushButton::clicked, this, &BatchSizeFinderDialog::applyBatch);
  fitDialogToScreen(this, QSize(680, 520));
}

BatchSizeFinderDialog::~BatchSizeFinderDialog() = default;

void BatchSizeFinderDialog::applyBatch() {
  const int64_t batch = batchToApply();
  if (batch <= 0) return;
  if (m_applyBatch && m_applyBatch(batch)) {
    m_summary->setText(m_summary->text() +
                       tr("\nApplied: train.batch_size is now %1 in the form (not saved yet).").arg(batch));
  } else {
    QMessageBox::information(
        this, tr("Cannot apply now"),
        tr("The form takes no edits while a run trains. Set train.batch_size to %1 once it ends.")
            .arg(batch));
  }
}

void BatchSizeFinderDialog::start() {
  if (m_job.isRunning()) return;
  BatchFinderOptions options;
  const QString limit = m_maxMemory->text().trimmed();
  if (!limit.isEmpty()) {
    options.max_memory_bytes = parseByteSize(limit.toStdString());
    if (options.max_memory_bytes <= 0) {
      m_summary->setText(
          tr("The memory limit \"%1\" is not a size: write e.g. 4GiB, 512MiB or 2GB, or leave it "
             "empty for the device's free memory.")
              .arg(limit));
      return;
    }
  }
  options.max_batch = m_maxBatch->value();
  m_result.reset();
  m_table->setRowCount(0);
  m_log->clear();
  m_apply->setEnabled(false);
  m_progress->setRange(0, 0);  // busy: the number of trials is not known in advance
  m_progress->setFormat(tr("Loading the data and building the model…"));
  m_summary->setText(tr("Running…"));
  m_job.start([experiment = m_experiment, options](const FinderCallbacks& callbacks, const auto& report) {
    return findBatchSize(experiment, options, callbacks, report);
  });
}

void BatchSizeFinderDialog::cancel() {
  if (!m_job.cancel()) return;
  m_cancel->setEnabled(false);
  m_summary->setText(tr("Cancelling after the step in flight…"));
}

void BatchSizeFinderDialog::onRunningChanged(bool running) {
  m_run->setEnabled(!running);
  m_cancel->setEnabled(running);
  m_maxMemory->setEnabled(!running);
  m_maxBatch->setEnabled(!running);
}

void BatchSizeFinderDialog::onStaged(const std::vector<BatchTrial>& trials,
                                     const std::vector<std::string>& log) {
  for (const std::string& line : log) m_log->appendPlainText(QString::fromStdString(line));
  for (const BatchTrial& t : trials) addRow(t);
  if (!trials.empty() && m_job.isRunning()) {
    m_progress->setFormat(tr("%1 sizes tried; last: %2 (%3)")
                              .arg(m_table->rowCount())
                              .arg(trials.back().batch_size)
                              .arg(QString::fromUtf8(toString(trials.back().outcome))));
  }
}

void BatchSizeFinderDialog::addRow(const BatchTrial& t) {
  const int row = m_table->rowCount();
  m_table->insertRow(row);
  m_table->setItem(row, kBatch, cell(QString::number(t.batch_size), true));
  m_table->item(row, kBatch)->setData(Qt::UserRole, static_cast<qlonglong>(t.batch_size));
  m_table->item(row, kBatch)->setData(Qt::UserRole + 1, t.outcome == BatchTrialOutcome::Fits);
  m_table->setItem(row, kOutcome, cell(QString::fromUtf8(toString(t.outcome)), false));
  m_table->setItem(
      row, kMemory,
      cell(t.peak_bytes > 0 ? QString::fromStdString(formatBytes(t.peak_bytes)) : QStringLiteral("–"), true));
  m_table->setItem(
      row, kThroughput,
      cell(t.samples_per_sec > 0 ? QString::number(qRound64(t.samples_per_sec)) : QStringLiteral("–"), true));
  m_table->setItem(row, kNote, cell(QString::fromStdString(t.note), false));
  if (t.outcome != BatchTrialOutcome::Fits) {
    for (int c = 0; c < kFinderColumns; ++c) m_table->item(row, c)->setForeground(QColor(214, 39, 40));
  }
  m_table->resizeColumnsToContents();
  m_table->scrollToBottom();
}

void BatchSizeFinderDialog::onFinished(FinderOutcome<BatchFinderResult> outcome) {
  m_progress->setRange(0, 1);
  m_progress->setValue(1);
  if (!outcome.result) {
    m_progress->setFormat(tr("Failed"));
    m_summary->setText(outcome.hint.isEmpty() ? outcome.error
                                              : tr("%1\nWhat to do: %2").arg(outcome.error, outcome.hint));
    emit finderFinished();
    return;
  }
  m_result = std::move(outcome.result);
  // Rows again from the result: a cancel between two drains may have left the last trial unstaged.
  m_table->setRowCount(0);
  for (const BatchTrial& t : m_result->trials) addRow(t);
  const BatchFinderResult& r = *m_result;
  m_progress->setFormat(tr("%1 sizes tried in %2 s").arg(r.trials.size()).arg(r.seconds, 0, 'f', 1));
  QString text = tr("Limit %1 (%2), measured as the %3 on %4.")
                     .arg(r.limit_bytes > 0 ? QString::fromStdString(formatBytes(r.limit_bytes)) : tr("none"),
                          QString::fromStdString(r.limit_source), QString::fromStdString(r.memory_measure),
                          QString::fromStdString(r.device));
  text += QLatin1Char('\n') + tr("Stopped: %1.").arg(QString::fromStdString(r.stop_reason));
  if (r.largest > 0) text += QLatin1Char('\n') + tr("Largest batch that fits: %1.").arg(r.largest);
  text += QLatin1Char('\n') +
          (r.suggested > 0 ? tr("Suggested batch size: %1 (%2; the form has %3).")
                                 .arg(r.suggested)
                                 .arg(QString::fromStdString(r.suggestion_reason))
                                 .arg(m_experiment.train.batch_size)
                           : tr("No suggestion: %1.").arg(QString::fromStdString(r.suggestion_reason)));
  m_summary->setText(text);
  // Preselect the suggestion's row.
  for (int row = 0; row < m_table->rowCount(); ++row) {
    if (m_table->item(row, kBatch)->data(Qt::UserRole).toLongLong() == r.suggested) m_table->selectRow(row);
  }
  updateApply();
  emit finderFinished();
}

int64_t BatchSizeFinderDialog::batchToApply() const {
  if (!m_result || m_job.isRunning()) return 0;
  const QList<QTableWidgetItem*> selected = m_table->selectedItems();
  for (const QTableWidgetItem* item : selected) {
    if (item->column() != kBatch) continue;
    if (item->data(Qt::UserRole + 1).toBool()) return item->data(Qt::UserRole).toLongLong();
  }
  return m_result->suggested;
}

void BatchSizeFinderDialog::updateApply() {
  const int64_t batch = batchToApply();
  m_apply->setEnabled(batch > 0 && static_cast<bool>(m_applyBatch));
  m_apply->setText(batch > 0 ? tr("&Apply Batch %1 to Experiment").arg(batch) : tr("&Apply to Experiment"));
}

}  // namespace wb::gui
