#include "compression_view/pass_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <map>

#include "editor/json_path.h"

namespace wb::gui {
namespace {

std::string joinWords(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::string stringOf(const nlohmann::json& pass, const char* key) {
  auto it = pass.find(key);
  return it != pass.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

nlohmann::json defaultPassJson(const std::string& type) {
  // The engine's reader fills in the defaults of the type (a prune pass trains 0 epochs, the others 1).
  const ParseResult parsed =
      parseExperiment(nlohmann::json{{"compress", {{"passes", nlohmann::json::array({{{"type", type}}})}}}});
  if (parsed.experiment.compress.passes.size() == 1 &&
      fromWord<PassType>(type) == parsed.experiment.compress.passes[0].type) {
    return compressPassToJson(parsed.experiment.compress.passes[0]);
  }
  return {{"type", type}};
}

QString passTypeTitle(PassType type) {
  switch (type) {
    case PassType::Prune:
      return QObject::tr("Prune");
    case PassType::Finetune:
      return QObject::tr("Fine-tune");
    case PassType::Distill:
      return QObject::tr("Distill");
    case PassType::Quantize:
      return QObject::tr("Quantize to int8");
  }
  return QString::fromStdString(wordString(type));
}

QString describePassJson(const nlohmann::json& pass) {
  if (!pass.is_object()) return QObject::tr("(not a pass)");
  const std::string type = stringOf(pass, "type");
  const std::optional<PassType> kind = fromWord<PassType>(type);
  QStringList parts;
  if (kind == PassType::Prune) {
    parts << QString::fromStdString(stringOf(pass, "method"));
    auto amount = pass.find("amount");
    if (amount != pass.end() && amount->is_number())
      parts << QStringLiteral("%1 %").arg(amount->get<double>() * 100, 0, 'g', 3);
  } else if (kind == PassType::Quantize) {
    parts << QString::fromStdString(stringOf(pass, "mode"));
  } else if (kind == PassType::Distill) {
    parts << QObject::tr("teacher %1").arg(QString::fromStdString(stringOf(pass, "teacher")));
  }
  const bool trains =
      kind == PassType::Finetune || kind == PassType::Distill || kind == PassType::Prune ||
      (kind == PassType::Quantize && fromWord<QuantizeMode>(stringOf(pass, "mode")) == QuantizeMode::Qat);
  auto epochs = pass.find("epochs");
  if (trains && epochs != pass.end() && epochs->is_number_integer() && epochs->get<int64_t>() > 0) {
    parts << QObject::tr("%n epoch(s)", nullptr, static_cast<int>(epochs->get<int64_t>()));
  }
  parts.removeAll(QString());
  return parts.isEmpty()
             ? QString::fromStdString(type)
             : QStringLiteral("%1: %2").arg(QString::fromStdString(type), parts.join(QStringLiteral(", ")));
}

PassForm::PassForm(const nlohmann::json& pass, QWidget* parent) : QWidget(parent) {
  m_type = QString::fromStdString(stringOf(pass, "type"));
  m_kind = fromWord<PassType>(m_type.toStdString());
  m_base = defaultPassJson(m_type.toStdString());
  if (pass.is_object()) m_base.merge_patch(pass);
  setObjectName(QStringLiteral("passForm-%1").arg(m_type));

  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  m_passMessage = new QLabel(this);
  m_passMessage->setObjectName(QStringLiteral("passMessage"));
  m_passMessage->setWordWrap(true);
  m_passMessage->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_passMessage->setVisible(false);
  outer->addWidget(m_passMessage);
  m_form = new QFormLayout;
  m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  m_form->setLabelAlignment(Qt::AlignRight | Qt::AlignTop);
  outer->addLayout(m_form);
  outer->addStretch(1);

  if (m_kind == PassType::Prune) {
    addPruneFields();
  } else if (m_kind == PassType::Distill) {
    addDistillFields();
  } else if (m_kind == PassType::Quantize) {
    addQuantizeFields();
  }
  addInteger("epochs", tr("Epochs"),
             m_kind == PassType::Prune ? tr("Fine-tuning with the masks after pruning; 0 = none.")
                                       : tr("Passes over the training split."));
  addInteger("max_steps", tr("Max steps"),
             tr("Stop the pass's training after this many steps; 0 = the epochs decide."));
  addNumber("lr", tr("Learning rate"), tr("0 = a tenth of the run's optimizer.lr."));

  for (const auto& b : m_bindings) b->load(m_base);
  updateRelevance();
}

PassForm::~PassForm() = default;

void PassForm::addPruneFields() {
  addWordChoice<PruneMethod>(
      "method", tr("Method"),
      {{PruneMethod::Unstructured, tr("Unstructured: single weights")},
       {PruneMethod::Structured, tr("Structured: whole channels")}},
      tr("Unstructured pruning zeroes single weights (smaller when compressed, no faster); structured "
         "pruning removes whole conv channels and linear neurons (a smaller, faster model)."));
  addNumber("amount", tr("Amount"),
            tr("Share of the selected weights (or channels) removed, between 0 and 1."));
  addWordChoice<PruneScope>(
      "scope", tr("Scope"),
      {{PruneScope::Global, tr("Global: one threshold")}, {PruneScope::Layer, tr("Each layer alike")}},
      tr("Unstructured: one magnitude threshold across all layers, or the same share in every layer."));
  addWordChoice<PruneNorm>("norm", tr("Norm"),
                           {{PruneNorm::L1, QStringLiteral("L1")}, {PruneNorm::L2, QStringLiteral("L2")}},
                           tr("Structured: the norm that ranks a conv filter or a linear neuron."));
  auto* types = new QLineEdit;
  types->setPlaceholderText(QString::fromStdString(joinWords(allWords<PrunedLayerType>())));
  add(tr("Layer types"), std::make_unique<ListBinding>("layer_types", types),
      tr("Which layer types are pruned: conv2d, linear or both."));
  auto* layers = new QLineEdit;
  layers->setPlaceholderText(tr("empty: every layer of those types"));
  add(tr("Only layers"), std::make_unique<ListBinding>("layers", layers),
      tr("Parameter-name prefixes such as layers.3; empty = every layer of the types above."));
  add(tr("Prune the output layer"), std::make_unique<BoolBinding>("prune_output_layer", new QCheckBox),
      tr("The last linear layer (one output per class) is left alone unless this is on."));
  addWordChoice<PruneSchedule>(
      "schedule", tr("Schedule"),
      {{PruneSchedule::OneShot, tr("One shot")},
       {PruneSchedule::Gradual, tr("Gradual (during fine-tuning)")}},
      tr("Unstructured: prune at once, or raise the sparsity step by step while fine-tuning."));
}

void PassForm::addDistillFields() {
  auto* teacher = new QLineEdit;
  teacher->setPlaceholderText(tr("original"));
  FieldBinding* b =
      add(tr("Teacher"), std::make_unique<TextBinding>("teacher", teacher),
          tr("\"original\" (the run's own model), an artifact such as compressed/01-prune, a run "
             "folder, a checkpoint (.wbckpt) or a TorchScript file (.pt)."));
  auto* browse = new QPushButton(tr("Browse…"));
  b->addBeside(browse);
  connect(browse, &QPushButton::clicked, this, [this, teacher] {
    const QString chosen =
        QFileDialog::getExistingDirectory(this, tr("Teacher: a run folder or an artifact"));
    if (chosen.isEmpty()) return;
    teacher->setText(chosen);
    emit teacher->textEdited(chosen);
  });
  auto* student = new QLineEdit;
  student->setPlaceholderText(tr("empty: the model as it is (its weights are the start)"));
  add(tr("Student"), std::make_unique<JsonBinding>("student", student),
      tr("A model section such as {\"preset\": \"mlp\"} or {\"layers\": [...]}, trained from scratch to "
         "copy "
         "the teacher; empty = the current model."));
  addNumber("temperature", tr("Temperature"), tr("Softens both models' outputs before comparing them; > 0."));
  addNumber("alpha", tr("α (teacher weight)"),
            tr("Weight of the soft (teacher) loss, in [0, 1]; 1 − α weighs cross-entropy on the labels."));
}

void PassForm::addQuantizeFields() {
  addWordChoice<QuantizeMode>(
      "mode", tr("Mode"),
      {{QuantizeMode::Dynamic, tr("Dynamic: linear layers, no calibration")},
       {QuantizeMode::Static, tr("Static: calibrated activations")},
       {QuantizeMode::Qat, tr("Quantization-aware training")}},
      tr("Dynamic quantizes linear layers' weights; static also calibrates activations (conv nets); qat "
         "fine-tunes with int8 rounding simulated."));
  addWordChoice<ObserverKind>(
      "observer", tr("Observer"),
      {{ObserverKind::Histogram, tr("Histogram")}, {ObserverKind::MinMax, tr("Min/max")}},
      tr("Static and qat: how activation ranges are measured."));
  addInteger("calibration_batches", tr("Calibration batches"),
             tr("Static: training batches run through the model to calibrate."));
  addWordChoice<QuantizedEngine>("engine", tr("Engine"),
                                 {{QuantizedEngine::Auto, tr("Automatic")},
                                  {QuantizedEngine::Onednn, QStringLiteral("oneDNN")},
                                  {QuantizedEngine::Qnnpack, QStringLiteral("QNNPACK")},
                                  {QuantizedEngine::Fbgemm, QStringLiteral("FBGEMM")}},
                                 tr("LibTorch's quantized kernels."));
}

FieldBinding* PassForm::add(const QString& label, std::unique_ptr<FieldBinding> binding,
                            const QString& help) {
  FieldBinding* b = binding.get();
  const QString tip =
      QStringLiteral("<b>%1</b><br>%2").arg(QString::fromStdString(b->path()), help.toHtmlEscaped());
  b->input()->setToolTip(tip);
  b->input()->setProperty("help", tip);
  b->setOnChange([this] {
    updateRelevance();
    emit edited();
  });
  auto* labelWidget = new QLabel(label);
  labelWidget->setToolTip(tip);
  labelWidget->setBuddy(b->input());
  m_form->addRow(labelWidget, b->row());
  m_bindings.push_back(std::move(binding));
  return b;
}

FieldBinding* PassForm::addNumber(const std::string& key, const QString& label, const QString& help) {
  auto* edit = new QLineEdit;
  edit->setPlaceholderText(tr("a number, e.g. 0.5"));
  return add(label, std::make_unique<NumberBinding>(key, edit), help);
}

FieldBinding* PassForm::addInteger(const std::string& key, const QString& label, const QString& help,
                                   const QString& suffix) {
  auto* spin = new QSpinBox;
  spin->setSuffix(suffix);
  return add(label, std::make_unique<IntegerBinding>(key, spin), help);
}

FieldBinding* PassForm::addChoice(const std::string& key, const QString& label,
                                  const std::vector<std::pair<QString, QString>>& choices,
                                  const QString& help) {
  auto* combo = new QComboBox;
  for (const auto& [value, text] : choices) {
    combo->addItem(text == value ? value : QStringLiteral("%1  (%2)").arg(text, value), value);
  }
  return add(label, std::make_unique<ChoiceBinding>(key, combo), help);
}

template <typename E>
FieldBinding* PassForm::addWordChoice(const std::string& key, const QString& label,
                                      const std::vector<std::pair<E, QString>>& titles, const QString& help) {
  std::vector<std::pair<QString, QString>> choices;
  for (const Word<E>& entry : Words<E>::table) {
    const QString word = QString::fromStdString(std::string(entry.word));
    QString title = word;
    for (const auto& [value, text] : titles) {
      if (value == entry.value) title = text;
    }
    choices.emplace_back(word, title);
  }
  return addChoice(key, label, choices, help);
}

FieldBinding* PassForm::binding(const std::string& key) const {
  for (const auto& b : m_bindings)
    if (b->path() == key) return b.get();
  return nullptr;
}

QString PassForm::word(const std::string& key) const {
  FieldBinding* b = binding(key);
  auto* combo = b ? qobject_cast<QComboBox*>(b->input()) : nullptr;
  return combo ? combo->currentData().toString() : QString();
}

nlohmann::json PassForm::pass() const {
  nlohmann::json doc = m_base;
  for (const auto& b : m_bindings) b->store(doc);
  doc["type"] = m_type.toStdString();
  return doc;
}

void PassForm::updateRelevance() {
  const bool structured = chosen<PruneMethod>("method") == PruneMethod::Structured;
  const std::optional<QuantizeMode> mode = chosen<QuantizeMode>("mode");
  std::map<std::string, bool> relevant;
  if (m_kind == PassType::Prune) {
    relevant = {{"scope", !structured}, {"norm", structured}, {"schedule", !structured}};
  } else if (m_kind == PassType::Quantize) {
    const bool qat = mode == QuantizeMode::Qat;
    relevant = {{"observer", mode != QuantizeMode::Dynamic},
                {"calibration_batches", mode == QuantizeMode::Static},
                {"epochs", qat},
                {"max_steps", qat},
                {"lr", qat}};
  }
  for (const auto& b : m_bindings) {
    auto it = relevant.find(b->path());
    // A field with a message stays in sight, whatever the choices above say.
    m_form->setRowVisible(b->row(), it == relevant.end() || it->second || !b->messages().isEmpty());
  }
}

std::vector<ValidationIssue> PassForm::localIssues() const {
  std::vector<ValidationIssue> out;
  for (const auto& b : m_bindings) {
    for (const ValidationIssue& issue : b->localIssues()) out.push_back(issue);
  }
  return out;
}

void PassForm::setIssues(const std::vector<ValidationIssue>& issues) {
  std::map<FieldBinding*, QStringList> messages;
  m_passMessages.clear();
  for (const ValidationIssue& issue : issues) {
    FieldBinding* target = binding(issue.path);
    if (!target && !issue.path.empty()) {
      for (const auto& b : m_bindings) {
        if (pathIsUnder(issue.path, b->path())) target = b.get();
      }
    }
    if (target) {
      messages[target] << (target->path() == issue.path
                               ? QString::fromStdString(issue.message)
                               : QStringLiteral("%1: %2").arg(QString::fromStdString(issue.path),
                                                              QString::fromStdString(issue.message)));
    } else {
      m_passMessages << (issue.path.empty()
                             ? QString::fromStdString(issue.message)
                             : QStringLiteral("%1: %2").arg(QString::fromStdString(issue.path),
                                                            QString::fromStdString(issue.message)));
    }
  }
  for (const auto& b : m_bindings) {
    auto it = messages.find(b.get());
    b->setMessages(it == messages.end() ? QStringList() : it->second);
  }
  m_issueCount = static_cast<int>(issues.size());
  if (m_passMessages.isEmpty()) {
    m_passMessage->clear();
    m_passMessage->setVisible(false);
  } else {
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    QStringList escaped;
    for (const QString& m : m_passMessages) escaped << m.toHtmlEscaped();
    m_passMessage->setText(QStringLiteral("<span style=\"color:%1\">⚠ %2</span>")
                               .arg(dark ? QStringLiteral("#ff8a80") : QStringLiteral("#c62828"),
                                    escaped.join(QStringLiteral("<br>⚠ "))));
    m_passMessage->setVisible(true);
  }
  updateRelevance();
}

}  // namespace wb::gui
