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

// What the table says of itself (json_rows_table.h).
JsonRowsTable::Look look() {
  JsonRowsTable::Look look;
  look.caption = QObject::tr("Pipeline stages");
  look.captionHelp = QObject::tr(
      "The model's top-level layers cut into stages, one device each; each batch flows through "
      "them in micro-batches (train.pipeline.stages).");
  look.tableName = QStringLiteral("pipelineStagesTable");
  look.headers = {QObject::tr("Device"), QObject::tr("First layer"), QObject::tr("Last layer")};
  for (int column = PipelineBinding::Device; column <= PipelineBinding::LastLayer; ++column)
    look.columnHelp << columnHelp(column);
  look.emptyText = QObject::tr("No stage yet: Add stage, or Balanced to let the engine cut.");
  look.addText = QObject::tr("Add stage");
  look.addName = QStringLiteral("addPipelineStage");
  look.addHelp = QObject::tr("A stage after the last: choose its device and layers.");
  look.removeName = QStringLiteral("removePipelineStage");
  look.removeHelp = QObject::tr("Remove the selected stage; its layers must go to another.");
  look.rowsWithoutScrolling = kRowsWithoutScrolling;
  return look;
}

}  // namespace pipeline_table

PipelineBinding::PipelineBinding(std::string path)
    : PipelineBinding(std::move(path), new QCheckBox(QObject::tr("Balanced"))) {}

PipelineBinding::PipelineBinding(std::string path, QCheckBox* balanced)
    : JsonRowsTable(std::move(path), pipeline_table::look(), {balanced}), m_balanced(balanced) {
  m_balanced->setObjectName(QStringLiteral("pipelineBalanced"));
  m_balanced->setToolTip(
      QObject::tr("The engine cuts the model over the stages' devices so that their forward FLOPs (plus "
                  "parameters) are as even as contiguous ranges allow (\"stages\": \"balanced\" with "
                  "train.pipeline.devices); the table shows its cut. Off: the cut is yours, starting from "
                  "the engine's."));
  guardWheel(m_balanced);
  table()->setEditTriggers(QAbstractItemView::NoEditTriggers);  // the choosers edit
  table()->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table()->verticalHeader()->setVisible(true);  // the stage's number
  QObject::connect(m_balanced, &QCheckBox::toggled, &m_alive, [this](bool on) {
    if (!m_filling) setBalanced(on);
  });
  fillRows();
}

QComboBox* PipelineBinding::chooser(int row, int column) const {
  return qobject_cast<QComboBox*>(table()->cellWidget(row, column));
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

void PipelineBinding::rowsFilled() {
  m_balanced->setChecked(isBalanced());
  QStringList numbers;  // as the engine's messages count them: train.pipeline.stages[0] is stage 0
  for (int row = 0; row < table()->rowCount(); ++row) numbers << QString::number(row);
  table()->setVerticalHeaderLabels(numbers);
  markChoosers();  // new choosers (the model's layers arrived) keep the engine's marks until it checks again
}

bool PipelineBinding::hasRowToRemove() const {
  return table()->currentRow() >= 0;
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
    table()->setCellWidget(row, column, combo);
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
  for (int r = 0; r < table()->rowCount(); ++r)
    if (table()->cellWidget(r, column) == widget) return r;
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

void PipelineBinding::addRow() {
  QString device = QStringLiteral("cpu");
  if (!m_rows.empty()) {
    const nlohmann::json& last = m_rows.back();
    const QString previous =
        isBalanced() ? (last.is_string() ? pipeline_table::fromStd(last.get<std::string>()) : QString())
                     : pipeline_table::stagePart(last, 0);
    if (!previous.isEmpty()) device = previous;
  }
  if (isBalanced()) {
    appendRow(device.toStdString(), Device);
  } else {
    appendRow(nlohmann::json::array({device.toStdString(), ""}), FirstLayer);
  }
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

std::string PipelineBinding::rowsPath() const {
  return path() + (isBalanced() ? ".devices" : ".stages");
}

int PipelineBinding::columnOfIssue(const std::string& rest) const {
  return pipeline_table::columnOfIssue(rest, isBalanced());
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
    for (int column = 0; column < table()->columnCount(); ++column) {
      // A stage's layers are one key: both choosers show its message.
      const bool layers = cell->second == FirstLayer && column == LastLayer;
      if (cell->second < 0 || cell->second == column || layers)
        faults[{cell->first, column}] << pipeline_table::fromStd(issue.message);
    }
  }
  for (int row = 0; row < table()->rowCount(); ++row) {
    for (int column = 0; column < table()->columnCount(); ++column) {
      const auto found = faults.find({row, column});
      pipeline_table::markChooser(chooser(row, column),
                                  found == faults.end() ? QString() : found->second.join(QLatin1Char('\n')));
    }
  }
}

void PipelineBinding::showCurrentCell(int row, int column) {
  chooser(row, column)->setFocus(Qt::OtherFocusReason);
}

}  // namespace wb::gui
