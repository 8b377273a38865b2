#include "editor/training_section.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QStandardItemModel>

#include "editor/device_picker.h"
#include "editor/form_fields.h"
#include "editor/json_path.h"
#include "editor/pipeline_fields.h"
#include "workbench/system_info.h"
#include "workbench/training_memory.h"

namespace wb::gui {

TrainingSection::TrainingSection(FormFields& fields) : m_fields(fields) {
  QFormLayout* form = fields.addSection(tr("Training"), QStringLiteral("train"));
  addLengthFields(form);
  addPrecisionFields(form);
  addDeviceFields(form);
  addProgressFields(form);
  addEarlyStoppingFields(form);
}

TrainingSection::~TrainingSection() = default;

void TrainingSection::addLengthFields(QFormLayout* form) {
  m_fields.addInteger(form, "train.epochs", tr("Epochs"),
                      tr("Passes over the training split; 0 = max steps decides."));
  m_fields.addInteger(form, "train.max_steps", tr("Max steps"),
                      tr("Optimizer steps to stop after; 0 = epochs decide."));
  m_fields.addInteger(
      form, "train.batch_size", tr("Batch size"),
      tr("Samples per batch, per device: with several devices the global batch is this × their number."));
  m_fields.addInteger(form, "train.grad_accum", tr("Gradient accumulation"),
                      tr("Batches summed per optimizer step."));
  m_fields.addNumber(form, "train.clip_grad_norm", tr("Clip grad norm"),
                     tr("Clip the gradients' total norm; 0 = off."));
}

void TrainingSection::addPrecisionFields(QFormLayout* form) {
  m_fields.addChoice<Precision>(form, "train.amp", tr("Mixed precision"),
                                {{Precision::Off, tr("off (float32)")},
                                 {Precision::Bf16, QStringLiteral("bfloat16")},
                                 {Precision::Fp16, tr("float16 + loss scaling")}},
                                tr("Forward pass in a 16-bit type where safe; weights stay float32."));
  // What bf16 costs on this machine's CPU, under the field while bf16 is chosen for a CPU device: on a CPU
  // without AVX-512 it is many times slower than fp32, which a user toggling it to go faster must be told.
  m_ampNote = new QLabel;
  m_ampNote->setObjectName(QStringLiteral("ampNote"));
  m_ampNote->setWordWrap(true);
  static const CpuBf16Cost cost = cpuBf16Cost(queryCpuFeatures());
  m_ampNote->setText((cost.slower_than_fp32 ? QStringLiteral("⚠ ") : QString()) +
                     QString::fromStdString(cost.summary));
  form->addRow(QString(), m_ampNote);
}

// Where it trains: one device or several (data parallel, sharded state), or a pipeline of stages; and how
// many CPU threads it uses.
void TrainingSection::addDeviceFields(QFormLayout* form) {
  m_fields.add(form, tr("Devices"), std::make_unique<DevicesBinding>("train.devices", new DevicePicker),
               tr("Where to train. Several devices: data parallel, one rank each; batch size is per device. "
                  "On the CPU, \"CPU ranks\" trains that many ranks side by side."));
  m_fields.addNumber(form, "train.bucket_mb", tr("Allreduce bucket (MB)"),
                     tr("Several devices: gradients are averaged in buckets of about this size, each sent as "
                        "soon as backward has produced it."));
  m_fields.addBool(form, "train.sync_batchnorm", tr("Sync batch norm"),
                   tr("Several devices: batch norm statistics over the global batch (all ranks)."));
  FieldBinding* shard = m_fields.addChoice<ShardLevel>(
      form, "train.shard", tr("Sharded state"),
      {{ShardLevel::None, tr("none (every device holds it all)")},
       {ShardLevel::Optimizer, tr("optimizer state")},
       {ShardLevel::Gradients, tr("optimizer state + gradients")},
       {ShardLevel::Parameters, tr("optimizer state + gradients + parameters")}},
      tr("Several devices: the training state each device keeps only its shard of (ZeRO)."));
  offerTrainedShardLevels(qobject_cast<QComboBox*>(shard->input()));
  m_pipeline = std::make_unique<PipelineFields>(m_fields, form);
  m_fields.addNumber(
      form, "train.collective_timeout", tr("Rank timeout (s)"),
      tr("Several devices: how long a rank waits for the others before the run fails, naming the rank."));
  m_fields.addInteger(form, "train.threads", tr("CPU threads"), tr("0 = one per core."));
}

// Only the levels the engine trains can be picked (shardLevelTrains, the predicate `check` refuses the others
// by): the rest stay listed, greyed, saying why, so the form never offers what Start would refuse. A file
// that asks for one still shows it, with the engine's message at the field.
void TrainingSection::offerTrainedShardLevels(QComboBox* combo) {
  auto* items = qobject_cast<QStandardItemModel*>(combo->model());
  for (int row = 0; items != nullptr && row < combo->count(); ++row) {
    const std::optional<ShardLevel> level =
        fromWord<ShardLevel>(combo->itemData(row).toString().toStdString());
    if (!level || shardLevelTrains(*level)) continue;
    items->item(row)->setEnabled(false);
    items->item(row)->setText(tr("%1 — not available yet").arg(combo->itemText(row)));
    items->item(row)->setToolTip(tr("This version does not train at this level yet: Start would refuse it."));
  }
}

void TrainingSection::addProgressFields(QFormLayout* form) {
  m_fields.addInteger(form, "train.eval_every_epochs", tr("Validate every"),
                      tr("Validate every N epochs (and after the last)."), tr(" epochs"));
  m_fields.addInteger(form, "train.log_every_steps", tr("Report every"),
                      tr("How often the loss is read back and plotted; larger is faster on GPUs."),
                      tr(" steps"));
  m_fields.addInteger(form, "train.checkpoint_every_steps", tr("Checkpoint every"), tr("0 = not by steps."),
                      tr(" steps"));
  m_fields.addNumber(form, "train.checkpoint_every_minutes", tr("Checkpoint every (min)"),
                     tr("0 = not by time."));
  m_fields.addInteger(form, "train.keep_checkpoints", tr("Keep checkpoints"),
                      tr("The newest N, plus the best."));
}

void TrainingSection::addEarlyStoppingFields(QFormLayout* form) {
  m_fields.addBool(form, "train.early_stopping.enabled", tr("Early stopping"),
                   tr("Stop when validation stops improving."));
  m_fields.addChoice<ValidationMetric>(form, "train.early_stopping.metric", tr("Watch"),
                                       {{ValidationMetric::ValLoss, tr("validation loss")},
                                        {ValidationMetric::ValAccuracy, tr("validation accuracy")}},
                                       tr("Early stopping: the metric watched."));
  m_fields.addInteger(form, "train.early_stopping.patience", tr("Patience"),
                      tr("Validations without improvement."));
  m_fields.addNumber(form, "train.early_stopping.min_delta", tr("Min delta"),
                     tr("Least change that counts."));
}

std::optional<bool> TrainingSection::applies(const FieldBinding& field) const {
  return m_pipeline->applies(field);
}

bool TrainingSection::onCpu() const {
  const nlohmann::json doc = m_fields.document();
  const nlohmann::json* devices = jsonAt(doc, "train.devices");
  bool cpu = devices == nullptr || !devices->is_array() || devices->empty();  // the default device is the CPU
  if (devices != nullptr && devices->is_array()) {
    for (const auto& d : *devices) cpu = cpu || (d.is_string() && d.get<std::string>().rfind("cpu", 0) == 0);
  }
  return cpu;
}

void TrainingSection::updateInputs() {
  m_fields.formOf(m_fields.binding("train.amp"))
      ->setRowVisible(m_ampNote, m_fields.word("train.amp") == QLatin1String("bf16") && onCpu());
  FieldBinding* early = m_fields.binding("train.early_stopping.enabled");
  const bool earlyOn = static_cast<QCheckBox*>(early->input())->isChecked();
  for (const auto& b : m_fields.bindings()) {
    if (pathIsUnder(b->path(), "train.early_stopping") && b.get() != early) b->input()->setEnabled(earlyOn);
  }
}

void TrainingSection::setLocked(bool locked) {
  m_pipeline->setLocked(locked);
}

}  // namespace wb::gui
