#include "model_view/model_summary_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include "app/off_thread.h"
#include "app/system_info_cache.h"
#include "editor/device_picker.h"
#include "editor/experiment_editor.h"
#include "editor/pipeline_binding.h"
#include "model_view/memory_figures_view.h"
#include "workbench/errors.h"
#include "workbench/weights_load_report.h"

namespace wb::gui {
namespace {

constexpr int kSummaryDebounceMs = 300;  // after the last keystroke: a spin box held down asks once
constexpr size_t kWeightsNamesShown =
    6;  // names a list of the load report shows; the run folder has them all
const QString kRefusedStyle = QStringLiteral("color: #b91c1c;");

// Grouped the same on every system locale, like the engine's run log ("1,234,567").
QString groupedDigits(long long value) {
  return QLocale(QLocale::English, QLocale::UnitedStates).toString(value);
}

QString shapeOf(const std::vector<int64_t>& shape) {
  QStringList parts;
  for (const int64_t d : shape) parts << QString::number(d);
  return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

QString flopsOf(long long flops) {
  if (flops < 0) return QStringLiteral("—");
  if (flops >= 1'000'000'000)
    return QStringLiteral("%1 GFLOPs").arg(static_cast<double>(flops) / 1e9, 0, 'f', 2);
  if (flops >= 1'000'000) return QStringLiteral("%1 MFLOPs").arg(static_cast<double>(flops) / 1e6, 0, 'f', 2);
  if (flops >= 1'000) return QStringLiteral("%1 kFLOPs").arg(static_cast<double>(flops) / 1e3, 0, 'f', 1);
  return QString::number(flops);
}

// The sections a model summary depends on: other edits (the learning rate, the epochs) leave it as it is.
std::string summaryKey(const Experiment& e) {
  const nlohmann::json doc = experimentToJson(e);
  return doc.value("data", nlohmann::json()).dump() + doc.value("model", nlohmann::json()).dump();
}

// The Trains column: what model.freeze leaves of the layer's parameters to train, and when model.unfreeze
// thaws the rest.
QStandardItem* trainsItem(const ModelSummaryRow& row) {
  auto* item = new QStandardItem();
  if (row.parameters == 0) return item;
  const QString until = row.thaw_epoch > 0 ? QObject::tr(" until epoch %1").arg(row.thaw_epoch) : QString();
  if (row.frozen == 0) {
    item->setText(QObject::tr("trains"));
  } else if (row.frozen == row.parameters) {
    item->setText(QObject::tr("frozen") + until);
    item->setToolTip(
        QObject::tr("model.freeze: no gradient, no optimizer state; batch norm keeps its "
                    "statistics"));
  } else {
    item->setText(QObject::tr("partly (%1 frozen%2)").arg(groupedDigits(row.frozen), until));
    item->setToolTip(QObject::tr("model.freeze freezes %1 of this layer's %2 parameters")
                         .arg(groupedDigits(row.frozen), groupedDigits(row.parameters)));
  }
  return item;
}

// What the Weights section shows, made on a worker thread: previewWeightsLoad builds the model and reads the
// whole file.
struct WeightsOutcome {
  QString text;
  bool refused = false;
};

WeightsOutcome previewWeights(const Experiment& experiment) {
  WeightsOutcome outcome;
  try {
    QStringList lines;
    for (const std::string& line : weightsLoadLines(previewWeightsLoad(experiment), kWeightsNamesShown))
      lines << QString::fromStdString(line);
    outcome.text = lines.join(QLatin1Char('\n'));
  } catch (const UserError& error) {
    outcome.refused = true;
    outcome.text = QObject::tr("weights refused: %1").arg(QString::fromStdString(error.what()));
    if (!error.hint().empty()) outcome.text += QStringLiteral("\n") + QString::fromStdString(error.hint());
  } catch (const std::exception& error) {  // the thread's edge: LibTorch's own errors on a file it chokes on
    outcome.refused = true;
    outcome.text = QObject::tr("weights refused: %1").arg(QString::fromStdString(error.what()));
  }
  return outcome;
}

QStandardItem* numberItem(const QString& text, long long sortValue, const QString& tip = QString()) {
  auto* item = new QStandardItem(text);
  item->setData(static_cast<qlonglong>(sortValue), Qt::UserRole);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  if (!tip.isEmpty()) item->setToolTip(tip);
  return item;
}

}  // namespace

ModelSummaryView::ModelSummaryView(ExperimentEditor* editor, QWidget* parent)
    : QWidget(parent), m_editor(editor) {
  setObjectName(QStringLiteral("modelSummaryView"));
  m_totals = new QLabel(this);
  m_totals->setObjectName(QStringLiteral("modelTotals"));
  m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_totals->setWordWrap(true);
  m_message = new QLabel(this);
  m_message->setObjectName(QStringLiteral("modelMessage"));
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_message->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_message->setContentsMargins(8, 8, 8, 8);
  m_freezeIssues = new QLabel(this);
  m_freezeIssues->setObjectName(QStringLiteral("modelFreezeIssues"));
  m_freezeIssues->setWordWrap(true);
  m_freezeIssues->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_freezeIssues->setStyleSheet(kRefusedStyle);
  m_freezeIssues->hide();
  m_weights = new QLabel(this);
  m_weights->setObjectName(QStringLiteral("modelWeights"));
  m_weights->setWordWrap(true);
  m_weights->setTextFormat(Qt::PlainText);
  m_weights->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_weights->hide();

  m_model = new QStandardItemModel(0, kModelColumns, this);
  m_model->setHorizontalHeaderLabels(
      {tr("Layer"), tr("Type"), tr("Output shape"), tr("Parameters"), tr("Trains"), tr("FLOPs / sample")});
  m_table = new QTableView(this);
  m_table->setObjectName(QStringLiteral("modelTable"));
  m_table->setModel(m_model);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setAlternatingRowColors(true);
  m_table->setWordWrap(false);
  m_table->verticalHeader()->setVisible(false);
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
  // Numbers stay next to their headers instead of drifting to the far edge of a wide tab.
  m_table->horizontalHeader()->setStretchLastSection(false);
  m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 8, 8, 8);
  layout->addWidget(m_totals);
  layout->addWidget(m_message);
  layout->addWidget(m_freezeIssues);
  layout->addWidget(m_table, 1);
  layout->addWidget(m_weights);
  m_memoryFigures = new MemoryFiguresView(this);
  layout->addWidget(m_memoryFigures);
  showMessage(tr("Summarizing the model…"));

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(kSummaryDebounceMs);
  connect(&m_debounce, &QTimer::timeout, this, &ModelSummaryView::compute);
  connect(&m_watcher, &QFutureWatcher<ModelSummary>::finished, this, &ModelSummaryView::onComputed);
  connect(m_editor, &ExperimentEditor::edited, this, &ModelSummaryView::schedule);
  connect(m_editor, &ExperimentEditor::validated, this, &ModelSummaryView::schedule);
  // Every path of compute() ends in summaryShown, the edits that leave the summary as it is (the devices,
  // the batch size) included: the memory figures follow each.
  connect(this, &ModelSummaryView::summaryShown, this, &ModelSummaryView::updateMemory);
  if (FieldBinding* devices = m_editor->binding("train.devices"))
    m_picker = qobject_cast<DevicePicker*>(devices->input());
  if (m_picker) {
    connect(m_picker, &DevicePicker::memoryChoiceRequested, this, &ModelSummaryView::applyMemoryChoice);
  }
  schedule();
}

void ModelSummaryView::updateMemory() {
  const std::optional<Experiment> experiment = m_editor->experiment();
  m_memory = TrainingMemory{};
  if (experiment && m_summary.ok() && !m_showingMessage && !m_summary.rows.empty()) {
    m_memory = estimateTrainingMemory(*experiment, m_summary,
                                      deviceCapacities(trainingDevices(*experiment), systemInfo()));
  }
  if (m_memory.choices.empty()) {
    m_memoryFigures->clear();
  } else {
    m_memoryFigures->showMemory(m_memory);
  }
  auto* pipeline = dynamic_cast<PipelineBinding*>(m_editor->binding("train.pipeline"));
  if (pipeline) pipeline->showModel(m_summary, m_memory);  // the stages' layer choosers, the balanced cut
  if (m_picker) {
    const bool pipelineEditable = m_editor->binding("train.pipeline.enabled") && pipeline;
    m_picker->showMemory(m_memory, pipelineEditable);
  }
}

// The picker's choice becomes the keys that make it. A pipeline and data parallel do not combine (the engine
// refuses several train.devices beside train.pipeline): the pipeline takes the devices as its stages' and
// train.devices keeps the first; a shard level turns the pipeline off and trains data parallel on them.
void ModelSummaryView::applyMemoryChoice(int index) {
  if (index < 0 || static_cast<size_t>(index) >= m_memory.choices.size()) return;
  const MemoryChoice choice = m_memory.choices[static_cast<size_t>(index)];
  const std::vector<std::string> devices = m_memory.devices;
  if (choice.pipeline) {
    m_editor->setValue("train.shard", wordString(ShardLevel::None));
    m_editor->setValue("train.devices", nlohmann::json::array({devices.front()}));
    m_editor->setValue("train.pipeline.stages", nlohmann::json::parse(choice.pipeline_stages_json));
    m_editor->setValue("train.pipeline.devices", nlohmann::json::array());  // only beside "balanced"
    m_editor->setValue("train.pipeline.enabled", true);
    return;
  }
  const std::optional<Experiment> experiment = m_editor->experiment();
  if (experiment && experiment->train.pipeline.enabled) {
    m_editor->setValue("train.pipeline.enabled", false);
    m_editor->setValue("train.devices", devices);
  }
  m_editor->setValue("train.shard", wordString(choice.shard));
}

void ModelSummaryView::schedule() {
  m_debounce.start();
}

void ModelSummaryView::refreshNow() {
  m_debounce.stop();
  m_shownKey.clear();
  m_weightsKey.clear();  // the file may have been replaced under the same name
  compute();
}

void ModelSummaryView::compute() {
  const std::optional<Experiment> experiment = m_editor->experiment();
  if (!experiment) {
    m_queued.reset();
    forgetWeights();
    m_summary = ModelSummary{};
    const std::vector<ValidationIssue>& issues = m_editor->issues();
    QStringList lines;
    for (const ValidationIssue& issue : issues) {
      lines << QStringLiteral("%1: %2").arg(QString::fromStdString(issue.path),
                                            QString::fromStdString(issue.message));
    }
    showMessage(
        tr("The experiment has %n problem(s), marked at the fields of the Experiment form; the layer table "
           "follows once they are fixed.",
           nullptr, static_cast<int>(issues.size())) +
        (lines.isEmpty() ? QString() : QStringLiteral("\n") + lines.join(QLatin1Char('\n'))));
    emit summaryShown();
    return;
  }
  std::string key = summaryKey(*experiment);
  followWeights(*experiment, key);
  if (key == m_shownKey && !m_running) {
    emit summaryShown();
    return;
  }
  if (m_running) {
    if (key != m_runningKey) {
      m_queued.emplace(*experiment, std::move(key));
    } else {
      m_queued.reset();  // the one in flight answers this edit
    }
    return;
  }
  start(*experiment, std::move(key));
}

void ModelSummaryView::start(const Experiment& experiment, std::string key) {
  m_running = true;
  m_runningKey = std::move(key);
  m_totals->setText(tr("Summarizing the model…"));
  m_watcher.setFuture(QtConcurrent::run([experiment] {
    try {
      return summarizeModel(experiment);
    } catch (const std::exception& error) {  // summarizeModel reports problems itself; this is a last resort
      ModelSummary failed;
      failed.issues.push_back({"model", error.what()});
      return failed;
    }
  }));
}

void ModelSummaryView::onComputed() {
  m_running = false;
  const ModelSummary summary = m_watcher.result();
  if (m_queued) {
    // An edit came while this one computed: its answer is already stale.
    auto [experiment, key] = std::move(*m_queued);
    m_queued.reset();
    start(experiment, std::move(key));
    return;
  }
  // The form may have become invalid meanwhile: compute() then shows the message instead.
  if (!m_editor->experiment()) {
    compute();
    return;
  }
  show(summary);
  m_shownKey = summary.ok() ? m_runningKey : std::string();
  emit summaryShown();
}

void ModelSummaryView::show(const ModelSummary& summary) {
  m_summary = summary;
  if (!summary.ok()) {
    QStringList lines;
    for (const ValidationIssue& issue : summary.issues) {
      lines << QStringLiteral("%1: %2").arg(QString::fromStdString(issue.path),
                                            QString::fromStdString(issue.message));
    }
    showMessage(
        tr("The model cannot be built for this data:\n%1\nFix it in the Experiment form (Model and Data "
           "sections).")
            .arg(lines.join(QLatin1Char('\n'))));
    return;
  }
  m_showingMessage = false;
  m_message->hide();
  m_table->show();
  m_weights->setVisible(!m_weights->text().isEmpty());
  const QString freezeIssues = freezeIssuesText();
  m_freezeIssues->setText(freezeIssues);
  m_freezeIssues->setVisible(!freezeIssues.isEmpty());
  m_model->removeRows(0, m_model->rowCount());
  m_model->setHorizontalHeaderItem(kModelShapeColumn,
                                   new QStandardItem(summary.torchscript ? tr("Shape") : tr("Output shape")));
  for (const ModelSummaryRow& row : summary.rows) {
    QList<QStandardItem*> items;
    // Branch layers of a residual are indented under it, named as weights files, freeze patterns and
    // parameter groups name them: by their module path outside where the list gives one (torchvision's
    // "layer1.0.conv1"), else by their state-dict prefix.
    const QString outside = QString::fromStdString(row.outside_name);
    auto* name = new QStandardItem(QString(row.depth * 4, QLatin1Char(' ')) +
                                   (outside.isEmpty() ? QString::fromStdString(row.name) : outside));
    name->setToolTip(outside.isEmpty()
                         ? tr("State-dict prefix: %1").arg(QString::fromStdString(row.name))
                         : tr("State-dict prefix: %1; name in weights files, freeze patterns and "
                              "parameter groups: %2")
                               .arg(QString::fromStdString(row.name), outside));
    items << name;
    items << new QStandardItem(QString::fromStdString(row.type));
    items << new QStandardItem(shapeOf(row.shape));
    items << numberItem(groupedDigits(row.parameters), row.parameters,
                        row.depth > 0 ? tr("Counted in the residual above it") : QString());
    items << trainsItem(row);
    items << numberItem(row.flops < 0 ? QStringLiteral("—") : groupedDigits(row.flops), row.flops,
                        row.flops < 0 ? tr("Unknown for TorchScript modules") : flopsOf(row.flops));
    if (row.depth > 0) {
      for (QStandardItem* item : items)
        item->setForeground(palette().brush(QPalette::Disabled, QPalette::Text));
    }
    m_model->appendRow(items);
  }
  m_table->resizeColumnsToContents();
  for (int c = 0; c < kModelColumns; ++c) m_table->setColumnWidth(c, m_table->columnWidth(c) + 24);
  m_totals->setText(totalsText());
}

QString ModelSummaryView::totalsText() const {
  const ModelSummary& s = m_summary;
  if (!s.ok() || (s.rows.empty() && s.input_shape.empty())) return QString();
  QString text = tr("<b>%1</b> parameters, ").arg(groupedDigits(s.total_parameters));
  text += s.frozen_parameters > 0
              ? tr("<b>%1</b> trainable").arg(groupedDigits(s.total_parameters - s.frozen_parameters))
              : tr("all trainable");
  text += s.total_flops >= 0
              ? tr(" · <b>%1</b> per sample (forward; a multiply-add counts 2)").arg(flopsOf(s.total_flops))
              : tr(" · FLOPs unknown (%1)").arg(QString::fromStdString(s.parameters_only));
  text += tr(" · input %1 → output %2").arg(shapeOf(s.input_shape), shapeOf(s.output_shape));
  if (s.torchscript) {
    text += tr(" · %1: one row per parameter tensor").arg(QString::fromStdString(s.parameters_only));
  }
  return text;
}

QString ModelSummaryView::messageText() const {
  return m_showingMessage ? m_message->text() : QString();
}

QString ModelSummaryView::freezeIssuesText() const {
  QStringList lines;
  for (const ValidationIssue& issue : m_summary.freeze_issues) {
    lines << QStringLiteral("%1: %2").arg(QString::fromStdString(issue.path),
                                          QString::fromStdString(issue.message));
  }
  if (lines.isEmpty()) return QString();
  return lines.join(QLatin1Char('\n')) + QStringLiteral("\n") +
         tr("Nothing is frozen until this is fixed: the table shows every layer training.");
}

QString ModelSummaryView::weightsText() const {
  return m_weights->text();
}

// The Weights section follows the data and model sections. A load already in flight for an older edit is
// left to finish and dropped (reading a large file cannot be interrupted); the newest edit loads after it.
void ModelSummaryView::followWeights(const Experiment& experiment, const std::string& key) {
  if (key == m_weightsKey) return;
  m_weightsKey = key;
  m_weightsLoads.invalidate();
  // A Hugging Face folder's model starts from the folder's weights file unless model.weights names another.
  const std::string weights =
      experiment.model.weights.empty() ? experiment.model.huggingface : experiment.model.weights;
  if (weights.empty()) {
    m_weightsWanted.reset();
    showWeights(tr("weights: none (model.weights is empty) — the model starts from a fresh initialization; "
                   "set model.weights to start from a trained model's file."),
                false);
    emit weightsShown();
    return;
  }
  m_weightsWanted = experiment;
  showWeights(tr("weights: reading %1…").arg(QString::fromStdString(weights)), false);
  startWeightsLoad();
}

void ModelSummaryView::startWeightsLoad() {
  if (!m_weightsWanted) return;
  const int generation = m_weightsLoads.begin();
  if (generation < 0) return;  // loads after the one in flight
  const Experiment experiment = *m_weightsWanted;
  runOffThread(
      this, [experiment] { return previewWeights(experiment); },
      [this, generation](const WeightsOutcome& outcome) {
        if (m_weightsLoads.end(generation)) {
          m_weightsWanted.reset();
          showWeights(outcome.text, outcome.refused);
        }
        if (m_weightsLoads.takePending()) startWeightsLoad();
        // A dropped load leaves what the section was given meanwhile (the fresh initialization, nothing):
        // current too once nothing is in flight.
        if (!m_weightsLoads.loading()) emit weightsShown();
      });
}

void ModelSummaryView::forgetWeights() {
  m_weightsKey.clear();
  m_weightsWanted.reset();
  m_weightsLoads.invalidate();
  showWeights(QString(), false);
}

void ModelSummaryView::showWeights(const QString& text, bool refused) {
  m_weightsRefused = refused;
  m_weights->setText(text);
  m_weights->setStyleSheet(refused ? kRefusedStyle : QString());
  m_weights->setVisible(!text.isEmpty() && !m_showingMessage);
}

void ModelSummaryView::showMessage(const QString& text) {
  m_showingMessage = true;
  m_memoryFigures->clear();
  m_message->setText(text);
  m_message->show();
  m_table->hide();
  m_freezeIssues->hide();
  m_weights->hide();
  m_totals->clear();
  m_shownKey.clear();
}

}  // namespace wb::gui
