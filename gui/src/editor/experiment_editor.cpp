#include "editor/experiment_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStyle>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <nlohmann/json.hpp>

#include "editor/device_picker.h"
#include "editor/freeze_binding.h"
#include "editor/json_path.h"
#include "editor/lr_preview.h"
#include "editor/param_groups_binding.h"
#include "editor/pipeline_binding.h"
#include "workbench/experiment_defaults.h"
#include "workbench/experiment_keys.h"
#include "workbench/system_info.h"
#include "workbench/training_memory.h"

namespace wb::gui {
namespace {

constexpr int kEditorDebounceMs = 150;

// Shorthands such as "augment": true become objects, so every key has exactly one field.
nlohmann::json expandShorthands(nlohmann::json doc) {
  if (!doc.is_object()) return nlohmann::json::object();
  for (const auto& [section, key] : {std::pair<const char*, const char*>{"data", "augment"},
                                     {"train", "early_stopping"},
                                     {"train", "pipeline"}}) {
    auto s = doc.find(section);
    if (s == doc.end() || !s->is_object()) continue;
    auto k = s->find(key);
    if (k != s->end() && k->is_boolean()) *k = nlohmann::json{{"enabled", k->get<bool>()}};
  }
  return doc;
}

}  // namespace

ExperimentEditor::ExperimentEditor(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(4, 4, 4, 4);
  outer->setSpacing(4);

  auto* header = new QFormLayout;
  header->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  outer->addLayout(header);
  FieldBinding* name =
      addText(header, "name", tr("Name"),
              tr("The run's name; each run's folder is named <date>-<name>. Empty: each run is "
                 "named after its model and data, numbered in the runs folder "
                 "(cnn-fashion-mnist-0007)."));
  if (auto* edit = qobject_cast<QLineEdit*>(name->input())) {
    edit->setPlaceholderText(tr("empty: named after the model and data (cnn-fashion-mnist-0007)"));
  }
  addNumber(
      header, "seed", tr("Seed"),
      tr("Seeds initialization, the validation split, shuffling and augmentation: the same seed on the same "
         "machine gives the same run."));

  m_lockNote = new QLabel(this);
  m_lockNote->setObjectName(QStringLiteral("runningNote"));
  m_lockNote->setWordWrap(true);
  m_lockNote->setFrameShape(QFrame::StyledPanel);
  m_lockNote->setMargin(4);
  m_lockNote->setVisible(false);
  outer->insertWidget(0, m_lockNote);

  m_tabs = new QTabWidget(this);
  m_tabs->setDocumentMode(true);
  outer->addWidget(m_tabs, 1);

  buildDataSection();
  // --- model
  QFormLayout* model = addSection(tr("Model"), QStringLiteral("model"));
  buildModelSource(model);
  buildFineTuningFields(model);

  buildOptimizerSection();
  buildScheduleSection();
  buildTrainingSection();
  // --- output
  QFormLayout* out = addSection(tr("Output"), QStringLiteral("output"));
  addPath(out, "output.runs_dir", tr("Runs folder"),
          tr("Each run gets a folder here; the Runs panel lists the runs of this folder."), true);

  // Keys the engine has that the form above has no dedicated widget for yet still get a field.
  addGenericFields();

  m_lrPreview = new LrPreview(this);
  outer->addWidget(m_lrPreview);

  buildIssueArea(outer);

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(kEditorDebounceMs);
  connect(&m_debounce, &QTimer::timeout, this, &ExperimentEditor::validateNow);
  connect(&m_checkWatcher, &QFutureWatcher<CheckResult>::finished, this, &ExperimentEditor::onChecksDone);

  setDocument(experimentToJson(Experiment{}));
}

void ExperimentEditor::buildDataSection() {
  QFormLayout* data = addSection(tr("Data"), QStringLiteral("data"));
  addChoice<DatasetName>(data, "data.dataset", tr("Dataset"),
                         {{DatasetName::FashionMnist, tr("Fashion-MNIST")},
                          {DatasetName::Mnist, tr("MNIST")},
                          {DatasetName::Cifar10, tr("CIFAR-10")},
                          {DatasetName::Csv, tr("CSV table")},
                          {DatasetName::ImageFolder, tr("Image folder (your JPEG/PNG images)")},
                          {DatasetName::Synthetic, tr("Synthetic (no download)")}},
                         tr("Which data to train on."));
  FieldBinding* dataPath = addPath(
      data, "data.path", tr("Path"),
      tr("Folder of the IDX/CIFAR files, the image folder (one subfolder of images per class), or the CSV "
         "file. Empty: /usr/share/datasets/<dataset>."),
      true);
  qobject_cast<QLineEdit*>(dataPath->input())
      ->setPlaceholderText(tr("default: /usr/share/datasets/<dataset>"));
  addInteger(data, "data.limit", tr("Limit"), tr("Use only the first N training samples; 0 = all."),
             tr(" samples"));
  addNumber(data, "data.val_fraction", tr("Validation fraction"),
            tr("Share of the training split held out for validation, in [0, 1). 0 = no validation."));
  addBool(data, "data.augment.enabled", tr("Augmentation"),
          tr("Random crops and flips of training images each epoch."));
  addBool(data, "data.augment.random_crop", tr("Random crop"), tr("Pad, then crop back at a random offset."));
  addInteger(data, "data.augment.crop_padding", tr("Crop padding"), tr("Padding of the random crop."),
             tr(" px"));
  addBool(data, "data.augment.random_resized_crop", tr("Random resized crop"),
          tr("Image folder: torchvision's RandomResizedCrop to the crop size (8–100 % of the area, ratio "
             "3/4–4/3)."));
  addBool(data, "data.augment.horizontal_flip", tr("Horizontal flip"),
          tr("Mirror half of the images. Good for clothes and objects, harmful for digits."));
  addInteger(data, "data.prefetch", tr("Prefetch"), tr("Batches prepared ahead of the training step."),
             tr(" batches"));
  addInteger(
      data, "data.workers", tr("Loader workers"),
      tr("Image folder: threads that read, decode and augment batches (PyTorch's num_workers); 0 = the "
         "training thread."));
  addChoice<AugmentPlace>(
      data, "data.augment_on", tr("Augment on"),
      {{AugmentPlace::Workers, tr("Loader workers")}, {AugmentPlace::Device, tr("Training device")}},
      tr("Image folder: where the random crop, flip and normalization run. Device: the workers stop at "
         "8-bit pixels, a quarter of the bytes travel, the GPU crops (bilinear, not antialiased)."));
  addInteger(
      data, "data.images.resize", tr("Resize"),
      tr("Image folder: the shorter side becomes this (torchvision's Resize, antialiased bilinear); 0 = as "
         "stored."),
      tr(" px"));
  addInteger(
      data, "data.images.crop", tr("Crop"),
      tr("Image folder: the square the model sees: center crop for evaluation, random resized crop for "
         "training; 0 = none."),
      tr(" px"));
  addInteger(data, "data.images.channels", tr("Channels"),
             tr("Image folder: 3 = RGB (convert(\"RGB\")), 1 = grey (convert(\"L\"))."));
  addChoice<BadFilePolicy>(
      data, "data.images.bad_files", tr("Unreadable files"),
      {{BadFilePolicy::Error, tr("Stop and name them")}, {BadFilePolicy::Skip, tr("Skip and list them")}},
      tr("Image folder: what to do with a file that cannot be decoded."));
  addChoice<ImageNormalization>(
      data, "data.images.normalize", tr("Normalization"),
      {{ImageNormalization::Folder, tr("This folder's mean and std")},
       {ImageNormalization::ImageNet, tr("ImageNet's (pretrained weights)")}},
      tr("Image folder: whose mean and std Normalize uses. Weights trained on ImageNet expect ImageNet's."));
  addBool(data, "data.images.jpeg_draft", tr("JPEG draft decoding"),
          tr("Image folder: decode JPEGs at 1/2, 1/4 or 1/8 scale when that still covers the resize and crop "
             "(Pillow's Image.draft): much faster, but other pixels than torchvision's loader gives."));
  addText(data, "data.label_column", tr("Label column"),
          tr("CSV: the column holding the class (0, 1, 2, …)."));
  addPath(
      data, "data.test_path", tr("Test file or folder"),
      tr("CSV: a separate test file; image folder: a folder with the same classes. Empty = test fraction."),
      true, tr("CSV files (*.csv);;All files (*)"));
  addNumber(data, "data.test_fraction", tr("Test fraction"),
            tr("CSV or image folder without a test path: share kept for the test."));
  addInteger(data, "data.synthetic.samples", tr("Samples"), tr("Synthetic: training samples to generate."));
  addInteger(data, "data.synthetic.classes", tr("Classes"), tr("Synthetic: number of classes."));
  addList(data, "data.synthetic.shape", tr("Sample shape"),
          tr("Synthetic: [channels, height, width] for images or [features] for vectors, e.g. 1, 28, 28."));
}

void ExperimentEditor::buildOptimizerSection() {
  QFormLayout* opt = addSection(tr("Optimizer"), QStringLiteral("optimizer"));
  addChoice<OptimizerName>(opt, "optimizer.name", tr("Optimizer"),
                           {{OptimizerName::Sgd, QStringLiteral("SGD")},
                            {OptimizerName::Adam, QStringLiteral("Adam")},
                            {OptimizerName::AdamW, QStringLiteral("AdamW")},
                            {OptimizerName::RmsProp, QStringLiteral("RMSprop")},
                            {OptimizerName::Adagrad, QStringLiteral("Adagrad")}},
                           tr("The update rule, as in torch.optim."));
  addNumber(opt, "optimizer.lr", tr("Learning rate"),
            tr("The (peak) learning rate. Typical: 1e-3 for Adam/AdamW, 0.01–0.1 for SGD."));
  addNumber(opt, "optimizer.weight_decay", tr("Weight decay"), tr("Decoupled for AdamW, L2 for the others."));
  addNumber(opt, "optimizer.momentum", tr("Momentum"), tr("SGD and RMSprop."));
  addBool(opt, "optimizer.nesterov", tr("Nesterov"), tr("SGD with momentum > 0."));
  addNumber(opt, "optimizer.betas[0]", tr("β₁"),
            tr("Adam/AdamW: decay of the gradient's running mean, in [0, 1)."));
  addNumber(opt, "optimizer.betas[1]", tr("β₂"),
            tr("Adam/AdamW: decay of the squared gradient's mean, in [0, 1)."));
  addNumber(opt, "optimizer.eps", tr("ε"), tr("Added to the denominator for stability."));
  addNumber(opt, "optimizer.alpha", tr("α"), tr("RMSprop: smoothing constant."));
  addBool(opt, "optimizer.decay_bias_and_norm", tr("Decay biases and norms"),
          tr("Off: biases and normalization weights get no weight decay (the usual practice)."));
  addBool(opt, "optimizer.fused", tr("Fused step"),
          tr("Adam/AdamW on the CPU: update each parameter in one pass instead of nine tensor ops "
             "(same results, faster for small models). Off: LibTorch's own step."));
  // The whole width of the form, its caption inside: four columns do not fit beside a label on a laptop.
  add(opt, QString(), std::make_unique<ParamGroupsBinding>("optimizer.param_groups"),
      tr("Parameters picked by name pattern with their own learning rate and weight decay, as torch.optim's "
         "param groups (fine-tuning: the body at a tenth of the head's rate). The rest stay in the "
         "optimizer's group."));
}

void ExperimentEditor::buildScheduleSection() {
  QFormLayout* sch = addSection(tr("Schedule"), QStringLiteral("schedule"));
  addChoice<ScheduleName>(sch, "schedule.name", tr("Schedule"),
                          {{ScheduleName::Constant, tr("Constant")},
                           {ScheduleName::Step, tr("Step")},
                           {ScheduleName::MultiStep, tr("Multi-step")},
                           {ScheduleName::Exponential, tr("Exponential")},
                           {ScheduleName::Cosine, tr("Cosine")},
                           {ScheduleName::OneCycle, tr("One-cycle")},
                           {ScheduleName::Plateau, tr("Reduce on plateau")}},
                          tr("The learning rate over the run (after the warmup)."));
  addInteger(sch, "schedule.warmup_steps", tr("Warmup"), tr("Steps of linear warmup; 0 = none."),
             tr(" steps"));
  addNumber(sch, "schedule.warmup_start_factor", tr("Warmup start factor"),
            tr("The warmup starts at lr × this."));
  addInteger(sch, "schedule.step_size", tr("Step size"), tr("Step: steps between two decays."), tr(" steps"));
  addList(sch, "schedule.milestones", tr("Milestones"),
          tr("Multi-step: the steps at which lr is multiplied by γ."));
  addNumber(sch, "schedule.gamma", tr("γ"), tr("Decay factor."));
  addInteger(sch, "schedule.t_max", tr("T_max"), tr("Cosine: length in steps; 0 = the rest of the run."),
             tr(" steps"));
  addNumber(sch, "schedule.eta_min", tr("η_min"), tr("Cosine: the lowest rate."));
  addNumber(sch, "schedule.pct_start", tr("Rising share"), tr("One-cycle: share of the cycle spent rising."));
  addChoice<AnnealStrategy>(sch, "schedule.anneal_strategy", tr("Annealing"),
                            {{AnnealStrategy::Cos, tr("Cosine")}, {AnnealStrategy::Linear, tr("Linear")}},
                            tr("One-cycle: shape of the rise and fall."));
  addNumber(sch, "schedule.div_factor", tr("Div factor"), tr("One-cycle: start rate = lr / this."));
  addNumber(sch, "schedule.final_div_factor", tr("Final div factor"),
            tr("One-cycle: final rate = start / this."));
  addBool(sch, "schedule.three_phase", tr("Three phases"), tr("One-cycle: a third, annealing phase."));
  addChoice<PlateauMode>(sch, "schedule.mode", tr("Mode"),
                         {{PlateauMode::Min, tr("min (loss)")}, {PlateauMode::Max, tr("max")}},
                         tr("Plateau: whether the value should fall or rise."));
  addNumber(sch, "schedule.factor", tr("Factor"), tr("Plateau: lr × this on a plateau."));
  addInteger(sch, "schedule.patience", tr("Patience"), tr("Plateau: validations without improvement."));
  addNumber(sch, "schedule.threshold", tr("Threshold"), tr("Plateau: least improvement that counts."));
  addChoice<ThresholdMode>(sch, "schedule.threshold_mode", tr("Threshold mode"),
                           {{ThresholdMode::Rel, tr("relative")}, {ThresholdMode::Abs, tr("absolute")}},
                           tr("Plateau: threshold relative to the best value, or absolute."));
  addInteger(sch, "schedule.cooldown", tr("Cooldown"), tr("Plateau: validations to wait after lowering."));
  addNumber(sch, "schedule.min_lr", tr("Min lr"), tr("Plateau: never below this."));
}

void ExperimentEditor::buildTrainingSection() {
  QFormLayout* tr_ = addSection(tr("Training"), QStringLiteral("train"));
  addInteger(tr_, "train.epochs", tr("Epochs"), tr("Passes over the training split; 0 = max steps decides."));
  addInteger(tr_, "train.max_steps", tr("Max steps"),
             tr("Optimizer steps to stop after; 0 = epochs decide."));
  addInteger(
      tr_, "train.batch_size", tr("Batch size"),
      tr("Samples per batch, per device: with several devices the global batch is this × their number."));
  addInteger(tr_, "train.grad_accum", tr("Gradient accumulation"), tr("Batches summed per optimizer step."));
  addNumber(tr_, "train.clip_grad_norm", tr("Clip grad norm"),
            tr("Clip the gradients' total norm; 0 = off."));
  addChoice<Precision>(tr_, "train.amp", tr("Mixed precision"),
                       {{Precision::Off, tr("off (float32)")},
                        {Precision::Bf16, QStringLiteral("bfloat16")},
                        {Precision::Fp16, tr("float16 + loss scaling")}},
                       tr("Forward pass in a 16-bit type where safe; weights stay float32."));
  // What bf16 costs on this machine's CPU, under the field while bf16 is chosen for a CPU device: on a CPU
  // without AVX-512 it is many times slower than fp32, which a user toggling it to go faster must be told.
  m_ampNote = new QLabel(this);
  m_ampNote->setObjectName(QStringLiteral("ampNote"));
  m_ampNote->setWordWrap(true);
  {
    static const CpuBf16Cost cost = cpuBf16Cost(queryCpuFeatures());
    m_ampNote->setText((cost.slower_than_fp32 ? QStringLiteral("⚠ ") : QString()) +
                       QString::fromStdString(cost.summary));
  }
  tr_->addRow(QString(), m_ampNote);
  {
    auto* picker = new DevicePicker;
    add(tr_, tr("Devices"), std::make_unique<DevicesBinding>("train.devices", picker),
        tr("Where to train. Several devices: data parallel, one rank each; batch size is per device. "
           "On the CPU, \"CPU ranks\" trains that many ranks side by side."));
  }
  addNumber(tr_, "train.bucket_mb", tr("Allreduce bucket (MB)"),
            tr("Several devices: gradients are averaged in buckets of about this size, each sent as soon as "
               "backward has produced it."));
  addBool(tr_, "train.sync_batchnorm", tr("Sync batch norm"),
          tr("Several devices: batch norm statistics over the global batch (all ranks)."));
  FieldBinding* shard = addChoice<ShardLevel>(
      tr_, "train.shard", tr("Sharded state"),
      {{ShardLevel::None, tr("none (every device holds it all)")},
       {ShardLevel::Optimizer, tr("optimizer state")},
       {ShardLevel::Gradients, tr("optimizer state + gradients")},
       {ShardLevel::Parameters, tr("optimizer state + gradients + parameters")}},
      tr("Several devices: the training state each device keeps only its shard of (ZeRO)."));
  offerTrainedShardLevels(qobject_cast<QComboBox*>(shard->input()));
  buildPipelineFields(tr_);
  addNumber(
      tr_, "train.collective_timeout", tr("Rank timeout (s)"),
      tr("Several devices: how long a rank waits for the others before the run fails, naming the rank."));
  addInteger(tr_, "train.threads", tr("CPU threads"), tr("0 = one per core."));
  addInteger(tr_, "train.eval_every_epochs", tr("Validate every"),
             tr("Validate every N epochs (and after the last)."), tr(" epochs"));
  addInteger(tr_, "train.log_every_steps", tr("Report every"),
             tr("How often the loss is read back and plotted; larger is faster on GPUs."), tr(" steps"));
  addInteger(tr_, "train.checkpoint_every_steps", tr("Checkpoint every"), tr("0 = not by steps."),
             tr(" steps"));
  addNumber(tr_, "train.checkpoint_every_minutes", tr("Checkpoint every (min)"), tr("0 = not by time."));
  addInteger(tr_, "train.keep_checkpoints", tr("Keep checkpoints"), tr("The newest N, plus the best."));
  addBool(tr_, "train.early_stopping.enabled", tr("Early stopping"),
          tr("Stop when validation stops improving."));
  addChoice<ValidationMetric>(tr_, "train.early_stopping.metric", tr("Watch"),
                              {{ValidationMetric::ValLoss, tr("validation loss")},
                               {ValidationMetric::ValAccuracy, tr("validation accuracy")}},
                              tr("Early stopping: the metric watched."));
  addInteger(tr_, "train.early_stopping.patience", tr("Patience"), tr("Validations without improvement."));
  addNumber(tr_, "train.early_stopping.min_delta", tr("Min delta"), tr("Least change that counts."));
}

// Only the levels the engine trains can be picked (shardLevelTrains, the predicate `check` refuses the others
// by): the rest stay listed, greyed, saying why, so the form never offers what Start would refuse. A file
// that asks for one still shows it, with the engine's message at the field.
void ExperimentEditor::offerTrainedShardLevels(QComboBox* combo) {
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

// train.pipeline: on or off, the stages table (pipeline_binding.h), then the micro-batches and the schedule;
// the three below the switch show while it is on.
void ExperimentEditor::buildPipelineFields(QFormLayout* form) {
  addBool(form, "train.pipeline.enabled", tr("Pipeline"),
          tr("Cut the model's top-level layers into stages, each on a device, for a model whose training "
             "state does not fit one device (train.devices: the first stage's device only)."));
  auto* stages = static_cast<PipelineBinding*>(
      add(form, QString(), std::make_unique<PipelineBinding>("train.pipeline"),
          tr("The stages, in layer order: each one's device and its first and last top-level layer; or "
             "Balanced, where the engine proposes the cut over the stages' devices.")));
  // The engine loads batches onto train.devices and requires it to be the first stage's device: the
  // first stage's device chosen here moves it along, as the device picker's pipeline choice does (one edit).
  stages->setOnFirstDevice([this](const QString& device) {
    FieldBinding* devices = binding("train.devices");
    const auto* on = qobject_cast<QCheckBox*>(binding("train.pipeline.enabled")->input());
    if (m_locked || devices == nullptr || on == nullptr || !on->isChecked()) return;
    nlohmann::json doc = document();
    setJsonAt(doc, "train.devices", nlohmann::json::array({device.toStdString()}));
    m_loading = true;  // reported once, by the table's own change
    devices->load(doc);
    m_loading = false;
  });
  addInteger(form, "train.pipeline.micro_batches", tr("Micro-batches"),
             tr("Each batch is split into this many (at most train.batch_size): more shrink the idle "
                "share, (stages − 1)/(micro-batches + stages − 1), at the cost of smaller products."));
  addChoice<PipelineSchedule>(
      form, "train.pipeline.schedule", tr("Pipeline schedule"),
      {{PipelineSchedule::GPipe, tr("GPipe: all forwards, then all backwards")},
       {PipelineSchedule::OneFOneB, tr("1F1B: one forward, one backward")}},
      tr("The same gradients either way. GPipe holds every micro-batch's activations at once; 1F1B a "
         "stage at most as many as there are stages from it to the end."));
}

// The problems under the form: the status line, the list that leads to each, and the unknown key's fix bar.
void ExperimentEditor::buildIssueArea(QVBoxLayout* outer) {
  m_status = new QLabel(this);
  m_status->setWordWrap(true);
  outer->addWidget(m_status);
  m_issueList = new QListWidget(this);
  m_issueList->setObjectName(QStringLiteral("issueList"));
  m_issueList->setMaximumHeight(96);
  m_issueList->setWordWrap(true);
  m_issueList->setVisible(false);
  outer->addWidget(m_issueList);
  connect(m_issueList, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { focusIssue(item->data(Qt::UserRole).toString().toStdString()); });
  connect(m_issueList, &QListWidget::itemClicked, this,
          [this](QListWidgetItem* item) { focusIssue(item->data(Qt::UserRole).toString().toStdString()); });
  // An unknown key has no field: its fix is this bar under the list (focusIssue leads here).
  m_keyFix = new QWidget(this);
  m_keyFix->setObjectName(QStringLiteral("unknownKeyBar"));
  auto* fixRow = new QHBoxLayout(m_keyFix);
  fixRow->setContentsMargins(0, 0, 0, 0);
  m_keyFixText = new QLabel(m_keyFix);
  m_keyFixText->setWordWrap(true);
  m_renameKey = new QPushButton(m_keyFix);
  m_renameKey->setObjectName(QStringLiteral("renameUnknownKey"));
  m_removeKey = new QPushButton(m_keyFix);
  m_removeKey->setObjectName(QStringLiteral("removeUnknownKey"));
  fixRow->addWidget(m_keyFixText, 1);
  fixRow->addWidget(m_renameKey);
  fixRow->addWidget(m_removeKey);
  m_keyFix->setVisible(false);
  outer->addWidget(m_keyFix);
  connect(m_renameKey, &QPushButton::clicked, this, [this] {
    if (m_fixing) renameUnknownKeyToSuggestion(m_fixing->path);
  });
  connect(m_removeKey, &QPushButton::clicked, this, [this] {
    if (m_fixing) removeUnknownKey(m_fixing->path);
  });
}

ExperimentEditor::~ExperimentEditor() {
  // The background check holds only copies; let it finish rather than leave it writing to a dead watcher.
  m_checkWatcher.waitForFinished();
}

QFormLayout* ExperimentEditor::addSection(const QString& title, const QString& section) {
  auto* page = new QWidget;
  auto* form = new QFormLayout(page);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setLabelAlignment(Qt::AlignRight | Qt::AlignTop);
  form->setRowWrapPolicy(QFormLayout::DontWrapRows);
  auto* scroll = new QScrollArea;
  scroll->setWidget(page);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  // The fields shrink to the column (choosers elide their words): a sideways scroll hid the "default" marks.
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  const int index = m_tabs->addTab(scroll, title);
  m_sectionForms[section] = form;
  m_sectionTabs[section] = index;
  return form;
}

FieldBinding* ExperimentEditor::add(QFormLayout* form, const QString& label,
                                    std::unique_ptr<FieldBinding> binding, const QString& help) {
  FieldBinding* b = binding.get();
  const QString tip =
      QStringLiteral("<b>%1</b><br>%2").arg(QString::fromStdString(b->path()), help.toHtmlEscaped());
  b->input()->setToolTip(tip);
  b->input()->setProperty("help", tip);
  b->setOnChange([this] { onEdited(); });
  if (label.isEmpty()) {
    form->addRow(b->row());  // a field that spans the form and says what it is itself (a table)
  } else {
    auto* labelWidget = new QLabel(label);
    labelWidget->setToolTip(tip);
    labelWidget->setBuddy(b->input());
    form->addRow(labelWidget, b->row());
  }
  m_formOf[b] = form;
  m_bindings.push_back(std::move(binding));
  return b;
}

FieldBinding* ExperimentEditor::addText(QFormLayout* form, const std::string& path, const QString& label,
                                        const QString& help) {
  return add(form, label, std::make_unique<TextBinding>(path, new QLineEdit), help);
}

FieldBinding* ExperimentEditor::addPath(QFormLayout* form, const std::string& path, const QString& label,
                                        const QString& help, bool directory, const QString& filter) {
  auto* edit = new QLineEdit;
  edit->setClearButtonEnabled(true);
  FieldBinding* b = add(form, label, std::make_unique<TextBinding>(path, edit), help);
  auto* browse = new QPushButton(tr("Browse…"));
  browse->setToolTip(directory ? tr("Choose a folder") : tr("Choose a file"));
  b->addBeside(browse);
  connect(browse, &QPushButton::clicked, this, [this, edit, directory, filter, label, path] {
    QString chosen;
    // The CSV dataset is a file even though the field usually names a folder.
    const bool wantsFile =
        !directory || ((path == "data.path" || path == "data.test_path") &&
                       word("data.dataset") == QLatin1String(wordOf(DatasetName::Csv).data()));
    if (wantsFile) {
      chosen = QFileDialog::getOpenFileName(
          this, label, edit->text(), filter.isEmpty() ? tr("CSV files (*.csv);;All files (*)") : filter);
    } else {
      chosen = QFileDialog::getExistingDirectory(this, label, edit->text());
    }
    if (chosen.isEmpty()) return;
    edit->setText(chosen);
    emit edit->textEdited(chosen);
  });
  return b;
}

FieldBinding* ExperimentEditor::addNumber(QFormLayout* form, const std::string& path, const QString& label,
                                          const QString& help) {
  auto* edit = new QLineEdit;
  edit->setPlaceholderText(tr("a number, e.g. 1e-3"));
  return add(form, label, std::make_unique<NumberBinding>(path, edit), help);
}

FieldBinding* ExperimentEditor::addInteger(QFormLayout* form, const std::string& path, const QString& label,
                                           const QString& help, const QString& suffix) {
  auto* spin = new QSpinBox;
  spin->setSuffix(suffix);
  return add(form, label, std::make_unique<IntegerBinding>(path, spin), help);
}

FieldBinding* ExperimentEditor::addBool(QFormLayout* form, const std::string& path, const QString& label,
                                        const QString& help) {
  return add(form, label, std::make_unique<BoolBinding>(path, new QCheckBox), help);
}

FieldBinding* ExperimentEditor::addChoice(QFormLayout* form, const std::string& path, const QString& label,
                                          const std::vector<std::pair<QString, QString>>& names,
                                          const QString& help) {
  auto* combo = new QComboBox;
  const ExperimentKey* key = findExperimentKey(path);
  Q_ASSERT(key && !key->choices.empty());
  for (const std::string& choice : key ? key->choices : std::vector<std::string>{}) {
    const QString value = QString::fromStdString(choice);
    QString text = value;
    for (const auto& [named, name] : names)
      if (named == value) text = name;
    combo->addItem(text == value ? value : QStringLiteral("%1  (%2)").arg(text, value), value);
  }
  return add(form, label, std::make_unique<ChoiceBinding>(path, combo), help);
}

FieldBinding* ExperimentEditor::addList(QFormLayout* form, const std::string& path, const QString& label,
                                        const QString& help) {
  auto* edit = new QLineEdit;
  edit->setPlaceholderText(tr("comma-separated, e.g. 3000, 6000"));
  return add(form, label, std::make_unique<ListBinding>(path, edit), help);
}

void ExperimentEditor::buildModelSource(QFormLayout* form) {
  m_modelSource = new QComboBox;
  m_modelSource->setObjectName(QStringLiteral("modelSource"));
  m_modelSource->addItem(tr("Built-in preset"));
  m_modelSource->addItem(tr("Layer list (JSON)"));
  m_modelSource->addItem(tr("TorchScript file"));
  m_modelSource->setToolTip(tr("A model is exactly one of: a preset, a layer list, a TorchScript file."));
  form->addRow(tr("Model from"), m_modelSource);
  connect(m_modelSource, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { onEdited(); });

  FieldBinding* preset =
      addChoice(form, "model.preset", tr("Preset"),
                {{"mlp", tr("MLP")},
                 {"cnn", tr("CNN")},
                 {"resnet", tr("ResNet")},
                 {"vit", tr("Vision Transformer")},
                 {"resnet18", tr("ResNet-18 (torchvision)")},
                 {"resnet50", tr("ResNet-50 (torchvision)")},
                 {"vit_b_16", tr("ViT-B/16 (torchvision, 224×224 images)")},
                 {"mobilenet_v3_large", tr("MobileNetV3-Large (torchvision)")},
                 {"efficientnet_b0", tr("EfficientNet-B0 (torchvision)")},
                 {"convnext_tiny", tr("ConvNeXt-Tiny (torchvision, 32×32 images and up)")}},
                tr("A built-in architecture sized to the data."));
  auto* layersEdit = new QPlainTextEdit;
  layersEdit->setPlaceholderText(
      QStringLiteral("[\n  {\"type\": \"flatten\"},\n  {\"type\": \"linear\", \"out_features\": 256},\n"
                     "  {\"type\": \"relu\"},\n  {\"type\": \"linear\", \"out_features\": 10}\n]"));
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  layersEdit->setFont(mono);
  layersEdit->setMinimumHeight(220);
  layersEdit->setTabChangesFocus(true);
  FieldBinding* layers =
      add(form, tr("Layers"), std::make_unique<JsonBinding>("model.layers", layersEdit),
          tr("A list of typed layers (docs/experiment.md lists every type); the engine checks "
             "each against the data's shape."));
  FieldBinding* script = addPath(form, "model.torchscript", tr("TorchScript file"),
                                 tr("A .pt file saved with torch.jit.script(model).save(path)."), false,
                                 tr("TorchScript (*.pt *.pth);;All files (*)"));
  preset->setInactiveValue([this] { return m_modelSource->currentIndex() == 0; }, "");
  layers->setInactiveValue([this] { return m_modelSource->currentIndex() == 1; }, nullptr);
  script->setInactiveValue([this] { return m_modelSource->currentIndex() == 2; }, "");
}

// Starting from trained weights: the weights file, and what of the model trains.
void ExperimentEditor::buildFineTuningFields(QFormLayout* form) {
  addPath(form, "model.weights", tr("Weights"),
          tr("Weights to start from: a .safetensors file, a torch.save(model.state_dict()) file, a "
             "TorchScript file, or a run folder or checkpoint of ours. Empty: a fresh initialization."),
          false, tr("Weights (*.safetensors *.pt *.pth *.bin *.ckpt);;All files (*)"));
  addText(form, "model.weights_prefix", tr("Strip prefix"),
          tr("A prefix to strip from the file's tensor names (\"module.\", \"backbone.\"). Empty: a common "
             "one is found and stripped."));
  addChoice<WeightsMismatch>(
      form, "model.weights_mismatch", tr("Tensors that do not fit"),
      {{WeightsMismatch::Refuse, tr("refuse to start")}, {WeightsMismatch::Skip, tr("skip them, listed")}},
      tr("Tensors of the model missing from the file, of the file missing from the "
         "model, or of another shape (a new head never counts)."));
  add(form, tr("Freeze"), std::make_unique<FreezeBinding>("model.freeze"),
      tr("Parameters that do not train: no gradient, no optimizer state. The body: every parameter but the "
         "head's. Patterns: * any run of characters, ? one (torchvision's names: conv1.*, layer1.*)."));
  addInteger(form, "model.unfreeze.after_epochs", tr("Unfreeze after"),
             tr("Thaw what is frozen after this many epochs (fresh optimizer state); 0 = stays frozen."),
             tr(" epochs"));
  addInteger(form, "model.unfreeze.every_epochs", tr("Then one pattern every"),
             tr("Gradual unfreezing: 0 thaws all at once; N thaws one freeze pattern at a time, nearest the "
                "head first, N epochs apart."),
             tr(" epochs"));
}

// The keys without a field of their own get one from the schema: its kind, its words for a chooser.
void ExperimentEditor::addGenericFields() {
  for (const ExperimentKey& key : experimentKeys()) {
    const std::string& leaf = key.path;
    bool covered = false;
    for (const auto& b : m_bindings) {
      if (pathIsUnder(b->path(), leaf) || pathIsUnder(leaf, b->path())) covered = true;
    }
    if (covered) continue;
    const std::string section = leaf.substr(0, leaf.find('.'));
    auto formIt = m_sectionForms.find(QString::fromStdString(section));
    QFormLayout* form =
        formIt != m_sectionForms.end() ? formIt->second : m_sectionForms.at(QStringLiteral("output"));
    QString label = QString::fromStdString(leaf.substr(leaf.rfind('.') + 1));
    label.replace(QLatin1Char('_'), QLatin1Char(' '));
    label[0] = label[0].toUpper();
    const QString help = tr("See docs/experiment.md for %1.").arg(QString::fromStdString(leaf));
    switch (key.kind) {
      case ExperimentKeyKind::Boolean:
        addBool(form, leaf, label, help);
        break;
      case ExperimentKeyKind::Integer:
        addInteger(form, leaf, label, help);
        break;
      case ExperimentKeyKind::Number:
        addNumber(form, leaf, label, help);
        break;
      case ExperimentKeyKind::String:
        if (key.choices.empty()) {
          addText(form, leaf, label, help);
        } else {
          addChoice(form, leaf, label, {}, help);
        }
        break;
      case ExperimentKeyKind::List:
      case ExperimentKeyKind::Layers:
        add(form, label, std::make_unique<JsonBinding>(leaf, new QLineEdit), help);
        break;
    }
  }
}

QString ExperimentEditor::word(const std::string& path) const {
  FieldBinding* b = binding(path);
  auto* combo = b ? qobject_cast<QComboBox*>(b->input()) : nullptr;
  return combo ? combo->currentData().toString() : QString();
}

FieldBinding* ExperimentEditor::binding(const std::string& path) const {
  for (const auto& b : m_bindings)
    if (b->path() == path) return b.get();
  return nullptr;
}

std::vector<FieldBinding*> ExperimentEditor::bindingsFor(const std::string& path) const {
  if (FieldBinding* exact = binding(path)) return {exact};
  // The nearest field above: model.layers[3].out_features shows at model.layers.
  FieldBinding* above = nullptr;
  for (const auto& b : m_bindings) {
    if (pathIsUnder(path, b->path()) && (!above || b->path().size() > above->path().size())) above = b.get();
  }
  if (above) return {above};
  // A key that has several fields (optimizer.betas, train.early_stopping): its first field. A whole section
  // ("data") is not a field: such issues go to the list below the form.
  if (path.find_first_of(".[") == std::string::npos) return {};
  for (const auto& b : m_bindings) {
    if (pathIsUnder(b->path(), path)) return {b.get()};
  }
  return {};
}

void ExperimentEditor::setDocument(const nlohmann::json& doc) {
  loadDocument(doc, /*asSaved=*/true);
}

void ExperimentEditor::loadDocument(const nlohmann::json& doc, bool asSaved) {
  m_loading = true;
  const nlohmann::json normalized = expandShorthands(doc);
  // Missing keys take their defaults; keys the file gives (right or wrong) are shown as written.
  nlohmann::json full = experimentToJson(parseExperiment(normalized).experiment);
  full.merge_patch(normalized);
  m_base = full;

  const nlohmann::json* script = jsonAt(full, "model.torchscript");
  const nlohmann::json* layers = jsonAt(full, "model.layers");
  if (script && script->is_string() && !script->get<std::string>().empty()) {
    m_modelSource->setCurrentIndex(2);
  } else if (layers && !layers->is_null()) {
    m_modelSource->setCurrentIndex(1);
  } else {
    m_modelSource->setCurrentIndex(0);
  }
  nlohmann::json forLoad = full;
  // An empty preset means "not a preset": keep the preset picker on a real choice for when the user switches.
  const nlohmann::json* preset = jsonAt(full, "model.preset");
  if (preset && preset->is_string() && preset->get<std::string>().empty()) forLoad["model"].erase("preset");
  for (const auto& b : m_bindings) b->load(forLoad);
  m_dataset = word("data.dataset");

  if (asSaved) m_saved = document();
  m_loading = false;
  const bool modified = document() != m_saved;
  if (modified != m_modified) {
    m_modified = modified;
    emit modifiedChanged(modified);
  }
  updateRelevance();
  validateNow();
}

std::vector<UnknownKey> ExperimentEditor::unknownKeys() const {
  std::vector<UnknownKey> keys;
  for (const ValidationIssue& issue : m_parseIssues) {
    if (std::optional<UnknownKey> key = unknownKeyOf(issue)) keys.push_back(*key);
  }
  return keys;
}

bool ExperimentEditor::renameUnknownKeyToSuggestion(const std::string& path) {
  for (const UnknownKey& key : unknownKeys()) {
    if (key.path != path || key.suggestion.empty()) continue;
    applyKeyFix(renameUnknownKey(document(), key, key.suggestion));
    return true;
  }
  return false;
}

bool ExperimentEditor::removeUnknownKey(const std::string& path) {
  for (const UnknownKey& key : unknownKeys()) {
    if (key.path != path) continue;
    applyKeyFix(gui::removeUnknownKey(document(), key));
    return true;
  }
  return false;
}

void ExperimentEditor::applyKeyFix(const nlohmann::json& doc) {
  // An edit like a typed one: the file on disk keeps the typo until Save.
  loadDocument(doc, /*asSaved=*/false);
  emit edited();
}

void ExperimentEditor::showKeyFix(const std::optional<UnknownKey>& key) {
  m_fixing = key;
  m_keyFix->setVisible(key.has_value());
  if (!key) return;
  m_keyFixText->setText(
      tr("Unknown key \"%1\"%2: the engine refuses the file until it is renamed or removed.")
          .arg(QString::fromStdString(key->path),
               key->parent.empty() ? QString() : tr(" in %1").arg(QString::fromStdString(key->parent))));
  m_renameKey->setVisible(!key->suggestion.empty());
  m_renameKey->setText(tr("Rename to \"%1\"").arg(QString::fromStdString(key->suggestion)));
  m_renameKey->setToolTip(tr("Its values move to \"%1\" (they win over the form's current ones).")
                              .arg(QString::fromStdString(key->suggestion)));
  m_removeKey->setText(tr("Remove \"%1\"").arg(QString::fromStdString(key->key)));
  m_removeKey->setToolTip(tr("Drop the key and everything under it."));
}

nlohmann::json ExperimentEditor::document() const {
  nlohmann::json doc = m_base;
  for (const auto& b : m_bindings) b->store(doc);
  return doc;
}

bool ExperimentEditor::setValue(const std::string& path, const nlohmann::json& value) {
  FieldBinding* field = binding(path);
  // A key edited by the field of its section (train.pipeline.stages: the pipeline's table).
  for (const auto& b : m_bindings) {
    if (field == nullptr && pathIsUnder(path, b->path())) field = b.get();
  }
  if (m_locked || !field) return false;
  nlohmann::json doc = document();
  setJsonAt(doc, path, value);
  m_loading = true;  // the field's own change signal would report the edit too: report it once, below
  field->load(doc);
  m_loading = false;
  onEdited();
  return true;
}

void ExperimentEditor::markSaved() {
  m_saved = document();
  if (m_modified) {
    m_modified = false;
    emit modifiedChanged(false);
  }
}

QString ExperimentEditor::runsDir() const {
  const nlohmann::json doc = document();
  const nlohmann::json* dir = jsonAt(doc, "output.runs_dir");
  return dir && dir->is_string() ? QString::fromStdString(dir->get<std::string>()) : QString();
}

std::optional<Experiment> ExperimentEditor::experiment() const {
  for (const auto& b : m_bindings)
    if (b->isActive() && !b->localIssues().empty()) return std::nullopt;
  ParseResult parsed = parseExperiment(document());
  if (!parsed.ok()) return std::nullopt;
  return parsed.experiment;
}

void ExperimentEditor::onEdited() {
  if (m_loading) return;
  forgetOtherDatasetsSettings();
  updateRelevance();
  const bool modified = document() != m_saved;
  if (modified != m_modified) {
    m_modified = modified;
    emit modifiedChanged(modified);
  }
  emit edited();
  m_debounce.start();
}

void ExperimentEditor::forgetOtherDatasetsSettings() {
  const QString dataset = word("data.dataset");
  if (dataset == m_dataset) return;
  m_dataset = dataset;
  // The paths name the other dataset's files, and the keys only the other dataset reads (an image folder's
  // resize, a CSV file's label column) would stay in the experiment unseen: all go back to their defaults.
  const nlohmann::json defaults = experimentToJson(Experiment{});
  nlohmann::json doc = document();
  std::vector<FieldBinding*> reset;
  for (const auto& b : m_bindings) {
    const std::string& path = b->path();
    const ExperimentKey* key = findExperimentKey(path);
    const bool otherDatasets = key != nullptr && key->applies_when.path == "data.dataset" &&
                               !key->applies_when.heldBy(dataset.toStdString());
    if (path != "data.path" && path != "data.test_path" && !otherDatasets) continue;
    const nlohmann::json* value = jsonAt(doc, path);
    const nlohmann::json* fallback = jsonAt(defaults, path);
    if (fallback == nullptr || (value != nullptr && *value == *fallback)) continue;
    setJsonAt(doc, path, *fallback);
    reset.push_back(b.get());
  }
  m_loading = true;  // the fields' own change signals: this edit is reported once, by the caller
  for (FieldBinding* b : reset) b->load(doc);
  m_loading = false;
}

void ExperimentEditor::updateRelevance() {
  // Where the model comes from is the form's own choice (the file has one of three keys); the rest matter as
  // the schema says (experiment_keys.h: optimizer.betas while optimizer.name is adam or adamw, ...).
  const int source = m_modelSource->currentIndex();
  const std::map<std::string, bool> modelFrom = {
      {"model.preset", source == 0},
      {"model.layers", source == 1},
      {"model.torchscript", source == 2},
  };
  auto matters = [&](const std::string& path) {
    if (auto it = modelFrom.find(path); it != modelFrom.end()) return it->second;
    const ExperimentKey* key = findExperimentKey(path);
    if (key == nullptr || key->applies_when.path.empty()) return true;
    return key->applies_when.heldBy(word(key->applies_when.path).toStdString());
  };
  FieldBinding* augment = binding("data.augment.enabled");
  FieldBinding* early = binding("train.early_stopping.enabled");
  {
    const nlohmann::json doc = document();
    const nlohmann::json* devices = jsonAt(doc, "train.devices");
    bool onCpu =
        devices == nullptr || !devices->is_array() || devices->empty();  // the default device is the CPU
    if (devices != nullptr && devices->is_array()) {
      for (const auto& d : *devices)
        onCpu = onCpu || (d.is_string() && d.get<std::string>().rfind("cpu", 0) == 0);
    }
    m_formOf.at(binding("train.amp"))
        ->setRowVisible(m_ampNote, word("train.amp") == QLatin1String("bf16") && onCpu);
  }
  const bool augmentOn = static_cast<QCheckBox*>(augment->input())->isChecked();
  const auto* freeze = dynamic_cast<const FreezeBinding*>(binding("model.freeze"));
  const bool freezes = freeze != nullptr && freeze->freezesSomething();
  const bool earlyOn = static_cast<QCheckBox*>(early->input())->isChecked();
  const FieldBinding* pipeline = binding("train.pipeline.enabled");
  const bool pipelineOn = static_cast<QCheckBox*>(pipeline->input())->isChecked();
  for (const auto& b : m_bindings) {
    const bool pipelinePart = pathIsUnder(b->path(), "train.pipeline") && b.get() != pipeline;
    const bool show = (matters(b->path()) && (!pipelinePart || pipelineOn)) || !b->messages().isEmpty();
    m_formOf.at(b.get())->setRowVisible(b->row(), show);
    if (pathIsUnder(b->path(), "data.augment") && b.get() != augment) b->input()->setEnabled(augmentOn);
    if (pathIsUnder(b->path(), "train.early_stopping") && b.get() != early) b->input()->setEnabled(earlyOn);
    if (pathIsUnder(b->path(), "model.unfreeze")) b->input()->setEnabled(freezes);
  }
}

void ExperimentEditor::validateNow() {
  m_debounce.stop();
  m_parseIssues.clear();
  for (const auto& b : m_bindings) {
    if (!b->isActive()) continue;  // a layer list being drafted while a preset is chosen is not an error
    for (const ValidationIssue& issue : b->localIssues()) m_parseIssues.push_back(issue);
  }
  const nlohmann::json doc = document();
  const ParseResult parsed = parseExperiment(doc);
  m_parseIssues.insert(m_parseIssues.end(), parsed.issues.begin(), parsed.issues.end());
  // Each field left at its default says so; the defaults follow the keys they depend on (the optimizer's lr).
  const nlohmann::json defaults = experimentDefaults(doc);
  for (const auto& b : m_bindings) b->showDefault(doc, defaults);
  if (m_parseIssues.empty()) {
    startChecks(parsed.experiment);
  } else {
    ++m_generation;  // a check still running describes an older form
    m_checkQueued = false;
    m_checkIssues.clear();
    m_lrPreview->setUnavailable(tr("Fix the marked fields to see the schedule"));
  }
  showIssues();
}

void ExperimentEditor::startChecks(const Experiment& experiment) {
  if (m_checkRunning) {
    m_pendingCheck = experiment;
    m_checkQueued = true;
    return;
  }
  const int generation = ++m_generation;
  m_checkRunning = true;
  // Engine checks read dataset headers and build the model to check shapes: not for the UI thread.
  m_checkWatcher.setFuture(QtConcurrent::run([experiment, generation] {
    CheckResult result;
    result.generation = generation;
    try {
      result.issues = checkExperiment(experiment);
    } catch (const std::exception& e) {
      result.issues.push_back({"", e.what()});
    }
    try {
      result.curve = learningRateCurve(experiment);
    } catch (const std::exception& e) {
      result.curveError = QString::fromUtf8(e.what());
    }
    return result;
  }));
}

void ExperimentEditor::onChecksDone() {
  m_checkRunning = false;
  const CheckResult result = m_checkWatcher.result();
  if (m_checkQueued) {
    m_checkQueued = false;
    const Experiment next = *m_pendingCheck;
    startChecks(next);
    return;
  }
  if (result.generation != m_generation) return;
  m_checkIssues = result.issues;
  if (result.curve) {
    const std::optional<Experiment> e = experiment();
    m_lrPreview->setCurve(*result.curve, e ? e->schedule.warmup_steps : 0,
                          e && e->schedule.name == ScheduleName::Plateau);
  } else {
    m_lrPreview->setUnavailable(tr("No preview: %1").arg(result.curveError));
  }
  showIssues();
}

void ExperimentEditor::showEngineIssues(const std::vector<ValidationIssue>& issues) {
  m_checkIssues = issues;
  showIssues();
}

void ExperimentEditor::showIssues() {
  m_issues = m_parseIssues;
  m_issues.insert(m_issues.end(), m_checkIssues.begin(), m_checkIssues.end());

  std::map<FieldBinding*, QStringList> messages;
  std::map<FieldBinding*, std::vector<ValidationIssue>> marked;
  std::map<int, int> perTab;
  for (const ValidationIssue& issue : m_issues) {
    const std::vector<FieldBinding*> targets = bindingsFor(issue.path);
    for (FieldBinding* b : targets) {
      marked[b].push_back(issue);
      messages[b] << (b->path() == issue.path || issue.path.empty()
                          ? QString::fromStdString(issue.message)
                          : QStringLiteral("%1: %2").arg(QString::fromStdString(issue.path),
                                                         QString::fromStdString(issue.message)));
    }
    const std::string section = issue.path.substr(0, issue.path.find_first_of(".["));
    auto tab = m_sectionTabs.find(QString::fromStdString(section));
    if (tab != m_sectionTabs.end()) ++perTab[tab->second];
  }
  for (const auto& b : m_bindings) {
    auto it = messages.find(b.get());
    b->setMessages(it == messages.end() ? QStringList() : it->second);
    auto issues = marked.find(b.get());
    b->markIssues(issues == marked.end() ? std::vector<ValidationIssue>() : issues->second);
  }
  for (int i = 0; i < m_tabs->count(); ++i) {
    m_tabs->setTabIcon(i, perTab.count(i) ? style()->standardIcon(QStyle::SP_MessageBoxWarning) : QIcon());
  }

  // Every issue is listed, including those no single field owns (a whole section, an unknown top-level key).
  m_issueList->clear();
  for (const ValidationIssue& issue : m_issues) {
    auto* item = new QListWidgetItem(
        issue.path.empty() ? QString::fromStdString(issue.message)
                           : QStringLiteral("%1: %2").arg(QString::fromStdString(issue.path),
                                                          QString::fromStdString(issue.message)),
        m_issueList);
    item->setData(Qt::UserRole, QString::fromStdString(issue.path));
    item->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
  }
  m_issueList->setVisible(!m_issues.empty());
  const std::vector<UnknownKey> unknown = unknownKeys();
  if (m_issues.empty()) {
    m_status->setText(checksPending() ? tr("Checking…") : tr("✓ The engine accepts this experiment."));
  } else if (!unknown.empty()) {
    m_status->setText(
        tr("⚠ %n problem(s), %1 of them an unknown key (no field shows it): rename or remove it "
           "below; click a problem to go to it.",
           nullptr, static_cast<int>(m_issues.size()))
            .arg(unknown.size()));
  } else {
    m_status->setText(tr("⚠ %n problem(s): marked at the fields; click one below to go there.", nullptr,
                         static_cast<int>(m_issues.size())));
  }
  // The bar keeps the key it was showing while that key is still unknown, else offers the first one.
  std::optional<UnknownKey> fix;
  for (const UnknownKey& key : unknown) {
    if (!fix || (m_fixing && key.path == m_fixing->path)) fix = key;
  }
  showKeyFix(fix);
  updateRelevance();
  emit validated();
}

void ExperimentEditor::focusIssue(const std::string& path) {
  for (const UnknownKey& key : unknownKeys()) {
    if (key.path != path) continue;
    showKeyFix(key);
    (key.suggestion.empty() ? m_removeKey : m_renameKey)->setFocus(Qt::OtherFocusReason);
    return;
  }
  const std::vector<FieldBinding*> targets = bindingsFor(path);
  if (targets.empty()) return;
  FieldBinding* b = targets.front();
  QFormLayout* form = m_formOf.at(b);
  for (const auto& [section, f] : m_sectionForms) {
    if (f != form) continue;
    const int index = m_sectionTabs.at(section);
    m_tabs->setCurrentIndex(index);
    if (auto* scroll = qobject_cast<QScrollArea*>(m_tabs->widget(index)))
      scroll->ensureWidgetVisible(b->row());
  }
  b->focusPart(path);
}

void ExperimentEditor::setLocked(const QString& note) {
  m_locked = !note.isEmpty();
  m_lockNote->setText(note);
  m_lockNote->setVisible(m_locked);
  // Each field's row (its input, Browse button, message), not the tabs: a locked form still scrolls and
  // reads.
  for (const auto& b : m_bindings) b->row()->setEnabled(!m_locked);
  m_modelSource->setEnabled(!m_locked);
  m_keyFix->setEnabled(!m_locked);
}

}  // namespace wb::gui
