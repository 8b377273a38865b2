#include "editor/pipeline_binding.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/system_info_cache.h"
#include "editor/json_path.h"
#include "widgets/wheel_guard.h"

namespace wb::gui {
namespace pipeline_table {

constexpr int kRowsWithoutScrolling = 4;
const char* const kFaultProperty = "pipelineFault";

QString fromStd(const std::string& s) {
  return QString::fromStdString(s);
}

// "conv1..layer2" → ("conv1", "layer2"); one layer is both ends.
std::pair<QString, QString> rangeEnds(const QString& layers) {
  const int dots = layers.indexOf(QStringLiteral(".."));
  if (dots < 0) return {layers, layers};
  return {layers.left(dots), layers.mid(dots + 2)};
}

QString rangeOf(const QString& first, const QString& last) {
  if (first.isEmpty() || last.isEmpty() || first == last) return first.isEmpty() ? last : first;
  return first + QStringLiteral("..") + last;
}

// A stage's [device, layers] as the file wrote it; what is not a string shows empty.
QString stagePart(const nlohmann::json& stage, size_t part) {
  if (!stage.is_array() || stage.size() <= part || !stage[part].is_string()) return QString();
  return fromStd(stage[part].get<std::string>());
}

// As the device picker names them.
QString deviceText(const DeviceInfo& d) {
  if (d.id == "cpu") return QObject::tr("cpu — %1 cores").arg(d.cores);
  const double gib = static_cast<double>(d.memory_bytes) / (1024.0 * 1024.0 * 1024.0);
  return QObject::tr("%1 — %2, %3 GiB").arg(fromStd(d.id), fromStd(d.name), QString::number(gib, 'f', 1));
}

QString columnHelp(int column) {
  switch (column) {
    case PipelineBinding::Device:
      return QObject::tr(
          "The device this stage runs on: several stages may share one (CPU stages run on threads). "
          "train.devices must be the first stage's: batches are loaded there.");
    case PipelineBinding::FirstLayer:
    case PipelineBinding::LastLayer:
      return QObject::tr(
          "The stage's first and last top-level layer, as the Model tab names them: every layer in exactly "
          "one stage, in order. A residual block and everything in it stay in one stage.");
    default:
      return QString();
  }
}

// Which column an issue's path names inside a stage ("[1][1]" → its layers); -1: the whole stage.
int columnOfIssue(const std::string& rest, bool balanced) {
  if (balanced) return PipelineBinding::Device;  // train.pipeline.devices[i]: the row's device
  if (rest == "[0]") return PipelineBinding::Device;
  if (rest == "[1]") return PipelineBinding::FirstLayer;
  return -1;
}

void markChooser(QComboBox* combo, const QString& message) {
  combo->setProperty(kFaultProperty, !message.isEmpty());
  // With a border the style sheet draws the whole chooser: a background alone is ignored by Fusion's combo.
  combo->setStyleSheet(message.isEmpty()
                           ? QString()
                           : QStringLiteral("QComboBox { background-color: #ffcdd2; color: black; "
                                            "border: 1px solid #c62828; padding: 1px 4px; }"));
  combo->setToolTip(message.isEmpty() ? combo->property("help").toString()
                                      : QStringLiteral("⚠ %1").arg(message));
}

}  // namespace pipeline_table

PipelineBinding::PipelineBinding(std::string path)
    : FieldBinding(std::move(path), new QWidget),
      m_table(new QTableWidget(0, 3, input())),
      m_balanced(new QCheckBox(QObject::tr("Balanced"), input())),
      m_empty(new QLabel(input())),
      m_add(new QPushButton(QObject::tr("Add stage"), input())),
      m_remove(new QPushButton(QObject::tr("Remove"), input())) {
  auto* caption = new QLabel(QObject::tr("Pipeline stages"), input());
  caption->setToolTip(
      QObject::tr("The model's top-level layers cut into stages, one device each; each batch flows through "
                  "them in micro-batches (train.pipeline.stages)."));
  m_add->setObjectName(QStringLiteral("addPipelineStage"));
  m_remove->setObjectName(QStringLiteral("removePipelineStage"));
  m_balanced->setObjectName(QStringLiteral("pipelineBalanced"));
  m_add->setToolTip(QObject::tr("A stage after the last: choose its device and layers."));
  m_remove->setToolTip(QObject::tr("Remove the selected stage; its layers must go to another."));
  m_balanced->setToolTip(
      QObject::tr("The engine cuts the model over the stages' devices so that their forward FLOPs (plus "
                  "parameters) are as even as contiguous ranges allow (\"stages\": \"balanced\" with "
                  "train.pipeline.devices); the table shows its cut. Off: the cut is yours, starting from "
                  "the engine's."));
  guardWheel(m_balanced);
  m_empty->setText(QObject::tr("No stage yet: Add stage, or Balanced to let the engine cut."));
  m_empty->setWordWrap(true);
  m_empty->setForegroundRole(QPalette::PlaceholderText);

  m_table->setObjectName(QStringLiteral("pipelineStagesTable"));
  m_table->setHorizontalHeaderLabels(
      {QObject::tr("Device"), QObject::tr("First layer"), QObject::tr("Last layer")});
  for (int column = 0; column < m_table->columnCount(); ++column)
    m_table->horizontalHeaderItem(column)->setToolTip(pipeline_table::columnHelp(column));
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);  // the choosers edit
  m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_table->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  const QComboBox probe;  // rows as tall as the choosers they hold
  m_table->verticalHeader()->setDefaultSectionSize(
      std::max(m_table->verticalHeader()->defaultSectionSize(), probe.sizeHint().height()));
  m_table->verticalHeader()->setVisible(true);  // the stage's number

  auto* column = new QVBoxLayout(input());
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(2);
  auto* top = new QHBoxLayout;
  top->addWidget(caption, 1);
  top->addWidget(m_balanced);
  top->addWidget(m_add);
  top->addWidget(m_remove);
  column->addLayout(top);
  column->addWidget(m_table);
  column->addWidget(m_empty);
  input()->setFocusProxy(m_table);

  QObject::connect(m_add, &QPushButton::clicked, &m_alive, [this] { addStage(); });
  QObject::connect(m_remove, &QPushButton::clicked, &m_alive, [this] { removeSelectedStage(); });
  QObject::connect(m_balanced, &QCheckBox::toggled, &m_alive, [this](bool on) {
    if (!m_filling) setBalanced(on);
  });
  QObject::connect(m_table, &QTableWidget::currentCellChanged, &m_alive,
                   [this](int row) { m_remove->setEnabled(row >= 0); });
  fillRows();
}

QComboBox* PipelineBinding::chooser(int row, int column) const {
  return qobject_cast<QComboBox*>(m_table->cellWidget(row, column));
}

bool PipelineBinding::isBalanced() const {
  const auto stages = m_section.find("stages");
  return stages != m_section.end() && stages->is_string() && stages->get<std::string>() == "balanced";
}

void PipelineBinding::loadValue(const nlohmann::json& value) {
  m_rows.clear();
  m_section = value.is_object() ? value : nlohmann::json::object();
  if (value.is_boolean()) m_section["enabled"] = value;
  if (!value.is_null() && !value.is_object() && !value.is_boolean()) m_raw = value;
  const nlohmann::json* rows = nullptr;
  if (isBalanced()) {
    const auto devices = m_section.find("devices");
    if (devices != m_section.end()) rows = &*devices;
  } else if (const auto stages = m_section.find("stages"); stages != m_section.end()) {
    rows = &*stages;
  }
  if (rows && rows->is_array()) {
    for (const auto& row : *rows) m_rows.push_back(row);
  } else if (rows && !rows->is_null()) {
    m_raw = value;  // neither a list nor "balanced": kept as written, for the engine to say so here
  }
  fillRows();
}

nlohmann::json PipelineBinding::storeValue() const {
  nlohmann::json section = m_section;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : m_rows) rows.push_back(row);
  if (isBalanced()) {
    section["devices"] = rows;
  } else {
    section["stages"] = rows;
  }
  return section;
}

void PipelineBinding::store(nlohmann::json& doc) const {
  if (m_raw && !m_raw->is_object()) {
    FieldBinding::store(doc);  // a section that is not one, as the file wrote it, for the engine to name
    return;
  }
  // Stages the table cannot show ("balancd") stay as written until the table is edited.
  const nlohmann::json section = m_raw ? *m_raw : storeValue();
  for (const char* key : {"stages", "devices"}) {
    if (section.contains(key)) setJsonAt(doc, path() + "." + key, section[key]);
  }
}

void PipelineBinding::showModel(const ModelSummary& summary, const TrainingMemory& memory) {
  // While the form has problems (a stage's layers still to choose) there is no summary: the choosers keep
  // the last model's layers, so the stage can be finished.
  if (summary.rows.empty() && !summary.torchscript) return;
  std::vector<PipelineLayer> layers;
  std::vector<const ModelSummaryRow*> top;
  for (const ModelSummaryRow& row : summary.rows)
    if (row.depth == 0) top.push_back(&row);
  if (!summary.torchscript) {
    for (const ModelSummaryRow* row : top) {
      const QString name = pipeline_table::fromStd(row->outside_name);
      const QString index = pipeline_table::fromStd(row->name);
      layers.push_back(
          {name, index,
           name.isEmpty() ? QStringLiteral("%1 (%2)").arg(index, pipeline_table::fromStd(row->type)) : name});
    }
  }
  // The figures' pipeline choice is the engine's proposed cut while the stages are "balanced" (with explicit
  // stages it is those): the last proposal stays for Balanced off to start from.
  std::vector<std::string> proposed = m_proposed;
  if (isBalanced()) {
    proposed.clear();
    for (const MemoryChoice& choice : memory.choices) {
      if (!choice.pipeline || !choice.possible()) continue;
      for (const DeviceMemoryEstimate& stage : choice.devices) proposed.push_back(stage.stage);
    }
  }
  bool same = proposed == m_proposed && layers.size() == m_layers.size();
  for (size_t i = 0; same && i < layers.size(); ++i)
    same = layers[i].name == m_layers[i].name && layers[i].text == m_layers[i].text;
  if (same) return;  // the choosers keep their open popups and focus
  m_layers = std::move(layers);
  m_proposed = std::move(proposed);
  fillRows();
}

int PipelineBinding::layerIndexOf(const QString& value) const {
  for (size_t i = 0; i < m_layers.size(); ++i)
    if (m_layers[i].index == value || (!m_layers[i].name.isEmpty() && m_layers[i].name == value))
      return static_cast<int>(i);
  return -1;
}

QString PipelineBinding::layerText(const QString& value) const {
  const int i = layerIndexOf(value);
  return i < 0 ? value : m_layers[static_cast<size_t>(i)].text;
}

QString PipelineBinding::endValue(size_t i, int column) const {
  const PipelineLayer& layer = m_layers[i];
  if (layer.name.isEmpty()) return layer.index;
  const bool nextUnnamed = i + 1 < m_layers.size() && m_layers[i + 1].name.isEmpty();
  return column == LastLayer && nextUnnamed ? layer.index : layer.name;
}

void PipelineBinding::fillRows() {
  m_filling = true;
  m_balanced->setChecked(isBalanced());
  m_table->setRowCount(static_cast<int>(m_rows.size()));
  QStringList numbers;  // as the engine's messages count them: train.pipeline.stages[0] is stage 0
  for (int row = 0; row < m_table->rowCount(); ++row) {
    fillRow(row);
    numbers << QString::number(row);
  }
  m_table->setVerticalHeaderLabels(numbers);
  markChoosers();  // new choosers (the model's layers arrived) keep the engine's marks until it checks again
  m_filling = false;
  m_remove->setEnabled(m_table->currentRow() >= 0);
  fitHeight();
}

QComboBox* PipelineBinding::deviceChooser(const QString& current) {
  auto* combo = new QComboBox;
  for (const DeviceInfo& d : systemInfo().devices)
    combo->addItem(pipeline_table::deviceText(d), pipeline_table::fromStd(d.id));
  int index = combo->findData(current);
  if (index < 0 && !current.isEmpty()) {
    combo->addItem(current == QLatin1String("cuda") && systemInfo().cuda_available
                       ? QObject::tr("cuda — the current CUDA device")
                       : QObject::tr("%1 — not found on this machine").arg(current),
                   current);
    index = combo->count() - 1;
  }
  combo->setCurrentIndex(index);
  return combo;
}

QComboBox* PipelineBinding::layerChooser(const QString& current, int column, bool editable) {
  auto* combo = new QComboBox;
  if (current.isEmpty()) combo->addItem(QObject::tr("— choose —"), QString());
  const int offset = combo->count();
  for (size_t i = 0; i < m_layers.size(); ++i) combo->addItem(m_layers[i].text, endValue(i, column));
  int index = combo->findData(current);
  // An index, or a name the chooser writes as an index (the same layer): that layer's item.
  const int layer = layerIndexOf(current);
  if (index < 0 && layer >= 0 &&
      (m_layers[static_cast<size_t>(layer)].index == current || column == FirstLayer))
    index = offset + layer;
  if (index < 0 && !current.isEmpty()) {
    // Written otherwise than the choosers write it (a prefix such as "layer2", or an index of a named
    // layer): kept as written; the engine says whether it names layers of the model.
    const QString shown = layerText(current);
    combo->addItem(QObject::tr("%1 (as written)").arg(shown == current ? current : shown + " = " + current),
                   current);
    index = combo->count() - 1;
  }
  combo->setCurrentIndex(index);
  combo->setEnabled(editable);
  return combo;
}

void PipelineBinding::fillRow(int row) {
  const nlohmann::json& stage = m_rows[static_cast<size_t>(row)];
  const bool balanced = isBalanced();
  QString device, first, last;
  if (balanced) {
    device = stage.is_string() ? pipeline_table::fromStd(stage.get<std::string>()) : QString();
    if (static_cast<size_t>(row) < m_proposed.size())
      std::tie(first, last) =
          pipeline_table::rangeEnds(pipeline_table::fromStd(m_proposed[static_cast<size_t>(row)]));
  } else {
    device = pipeline_table::stagePart(stage, 0);
    std::tie(first, last) = pipeline_table::rangeEnds(pipeline_table::stagePart(stage, 1));
  }
  QComboBox* combos[3] = {deviceChooser(device), layerChooser(first, FirstLayer, !balanced),
                          layerChooser(last, LastLayer, !balanced)};
  for (int column = 0; column < 3; ++column) {
    QComboBox* combo = combos[column];
    combo->setObjectName(QStringLiteral("pipelineStage%1_%2").arg(row).arg(column));
    const QString help =
        balanced && column != Device
            ? QObject::tr("The engine's proposed cut (Balanced): turn Balanced off to edit it.")
            : pipeline_table::columnHelp(column);
    combo->setProperty("help", help);
    combo->setToolTip(help);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(6);
    guardWheel(combo);
    m_table->setCellWidget(row, column, combo);
    QObject::connect(combo, qOverload<int>(&QComboBox::activated), &m_alive, [this, combo, column] {
      const int r = rowOfWidget(combo, column);
      if (r < 0) return;
      if (column == Device) {
        onDeviceChosen(r, combo->currentData().toString());
      } else {
        onLayerChosen(r);
      }
    });
  }
}

int PipelineBinding::rowOfWidget(const QWidget* widget, int column) const {
  for (int r = 0; r < m_table->rowCount(); ++r)
    if (m_table->cellWidget(r, column) == widget) return r;
  return -1;
}

void PipelineBinding::onDeviceChosen(int row, const QString& device) {
  if (m_filling) return;
  nlohmann::json& stage = m_rows[static_cast<size_t>(row)];
  if (isBalanced()) {
    stage = device.toStdString();
  } else {
    if (!stage.is_array() || stage.size() != 2) stage = nlohmann::json::array({"", ""});
    stage[0] = device.toStdString();
  }
  if (row == 0 && m_onFirstDevice) m_onFirstDevice(device);
  changed();
}

void PipelineBinding::onLayerChosen(int row) {
  if (m_filling || isBalanced()) return;
  nlohmann::json& stage = m_rows[static_cast<size_t>(row)];
  const QString device = pipeline_table::stagePart(stage, 0);
  const QString layers = pipeline_table::rangeOf(chooser(row, FirstLayer)->currentData().toString(),
                                                 chooser(row, LastLayer)->currentData().toString());
  if (!stage.is_array() || stage.size() != 2) stage = nlohmann::json::array({device.toStdString(), ""});
  stage[1] = layers.toStdString();
  changed();
}

void PipelineBinding::addStage() {
  QString device = QStringLiteral("cpu");
  if (!m_rows.empty()) {
    const nlohmann::json& last = m_rows.back();
    const QString previous =
        isBalanced() ? (last.is_string() ? pipeline_table::fromStd(last.get<std::string>()) : QString())
                     : pipeline_table::stagePart(last, 0);
    if (!previous.isEmpty()) device = previous;
  }
  if (isBalanced()) {
    m_rows.push_back(device.toStdString());
  } else {
    m_rows.push_back(nlohmann::json::array({device.toStdString(), ""}));
  }
  fillRows();
  m_table->setCurrentCell(m_table->rowCount() - 1, isBalanced() ? Device : FirstLayer);
  changed();
}

void PipelineBinding::removeSelectedStage() {
  const int row = m_table->currentRow();
  if (row < 0 || row >= static_cast<int>(m_rows.size())) return;
  m_rows.erase(m_rows.begin() + row);
  fillRows();
  changed();
}

void PipelineBinding::setBalanced(bool on) {
  if (on == isBalanced()) return;
  std::vector<nlohmann::json> rows;
  if (on) {
    for (const auto& stage : m_rows) rows.push_back(pipeline_table::stagePart(stage, 0).toStdString());
    m_section["stages"] = "balanced";
  } else {
    // The engine's cut to start from, on the same devices; without one (the model not summarized yet) the
    // layers are left to choose.
    for (size_t i = 0; i < m_rows.size(); ++i) {
      const std::string device = m_rows[i].is_string() ? m_rows[i].get<std::string>() : "cpu";
      rows.push_back(nlohmann::json::array(
          {device, i < m_proposed.size() ? adoptedRange(m_proposed[i]) : std::string()}));
    }
    m_section["stages"] = nlohmann::json::array();
    m_section["devices"] = nlohmann::json::array();  // the engine refuses it beside explicit stages
  }
  m_rows = std::move(rows);
  fillRows();
  changed();
}

std::string PipelineBinding::adoptedRange(const std::string& proposed) const {
  auto [first, last] = pipeline_table::rangeEnds(pipeline_table::fromStd(proposed));
  bool ok = false;
  const int f = first.toInt(&ok);
  if (ok && f >= 0 && static_cast<size_t>(f) < m_layers.size())
    first = endValue(static_cast<size_t>(f), FirstLayer);
  const int l = last.toInt(&ok);
  if (ok && l >= 0 && static_cast<size_t>(l) < m_layers.size())
    last = endValue(static_cast<size_t>(l), LastLayer);
  return pipeline_table::rangeOf(first, last).toStdString();
}

void PipelineBinding::fitHeight() {
  const int rows = m_table->rowCount();
  m_table->setVisible(rows > 0);
  m_empty->setVisible(rows == 0);
  const int shown = std::min(std::max(rows, 1), pipeline_table::kRowsWithoutScrolling);
  m_table->setFixedHeight(m_table->horizontalHeader()->sizeHint().height() +
                          shown * m_table->verticalHeader()->defaultSectionSize() +
                          2 * m_table->frameWidth());
}

std::optional<std::pair<int, int>> PipelineBinding::cellOf(const std::string& issuePath) const {
  const std::string prefix = path() + (isBalanced() ? ".devices[" : ".stages[");
  if (issuePath.rfind(prefix, 0) != 0) return std::nullopt;
  const size_t close = issuePath.find(']', prefix.size());
  if (close == std::string::npos) return std::nullopt;
  bool ok = false;
  const int row = QString::fromStdString(issuePath.substr(prefix.size(), close - prefix.size())).toInt(&ok);
  if (!ok || row < 0 || row >= m_table->rowCount()) return std::nullopt;
  return std::make_pair(row, pipeline_table::columnOfIssue(issuePath.substr(close + 1), isBalanced()));
}

void PipelineBinding::markIssues(const std::vector<ValidationIssue>& issues) {
  m_issues = issues;
  markChoosers();
}

void PipelineBinding::markChoosers() {
  std::map<std::pair<int, int>, QStringList> faults;
  for (const ValidationIssue& issue : m_issues) {
    const std::optional<std::pair<int, int>> cell = cellOf(issue.path);
    if (!cell) continue;
    for (int column = 0; column < m_table->columnCount(); ++column) {
      // A stage's layers are one key: both choosers show its message.
      const bool layers = cell->second == FirstLayer && column == LastLayer;
      if (cell->second < 0 || cell->second == column || layers)
        faults[{cell->first, column}] << pipeline_table::fromStd(issue.message);
    }
  }
  for (int row = 0; row < m_table->rowCount(); ++row) {
    for (int column = 0; column < m_table->columnCount(); ++column) {
      const auto found = faults.find({row, column});
      pipeline_table::markChooser(chooser(row, column),
                                  found == faults.end() ? QString() : found->second.join(QLatin1Char('\n')));
    }
  }
}

void PipelineBinding::focusPart(const std::string& issuePath) {
  FieldBinding::focusPart(issuePath);
  const std::optional<std::pair<int, int>> cell = cellOf(issuePath);
  if (!cell) return;
  const int column = cell->second >= 0 ? cell->second : static_cast<int>(Device);
  m_table->setCurrentCell(cell->first, column);
  chooser(cell->first, column)->setFocus(Qt::OtherFocusReason);
}

}  // namespace wb::gui
