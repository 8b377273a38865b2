#include "editor/device_picker.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include "app/system_info_cache.h"
#include "model_view/memory_figures_view.h"
#include "widgets/wheel_guard.h"

namespace wb::gui {
namespace {

const QString kCpu = QStringLiteral("cpu");
// The engine takes up to 1024 ("cpu:N"); beyond a few per core ranks only share the same cores.
constexpr int kMaxCpuRanks = 256;

QString describeDevice(const DeviceInfo& d) {
  if (d.id == "cpu") {
    return QObject::tr("CPU — %1 cores").arg(d.cores);  // the engine's name says the same count again
  }
  const double gib = static_cast<double>(d.memory_bytes) / (1024.0 * 1024.0 * 1024.0);
  return QObject::tr("%1 — %2, %3 GiB")
      .arg(QString::fromStdString(d.id), QString::fromStdString(d.name), QString::number(gib, 'f', 1));
}

// "cpu:N" is N CPU ranks (the engine's shorthand); 0 when `id` is not that.
int cpuRanksOf(const QString& id) {
  if (!id.startsWith(QLatin1String("cpu:"))) return 0;
  bool ok = false;
  const int n = id.mid(4).toInt(&ok);
  return ok && n >= 1 && n <= kMaxCpuRanks ? n : 0;
}

// A device's figures, for the tooltips.
QString memoryBreakdown(const DeviceMemoryEstimate& d) {
  return QObject::tr("%1 on %2: parameters %3, gradients %4, optimizer %5, activations %6, of %7")
      .arg(bytesText(d.total()), QString::fromStdString(d.device), bytesText(d.parameters),
           bytesText(d.gradients), bytesText(d.optimizer_state), bytesText(d.activations),
           d.capacity > 0 ? bytesText(d.capacity) : QObject::tr("unknown"));
}

// Only a choice that does not fit speaks up here (the Model tab has every figure; a form row costs room on a
// small screen): the device it overflows and what would fit.
QString memoryWarning(const TrainingMemory& memory) {
  const MemoryChoice* chosen = memory.chosen();
  if (!chosen || !chosen->possible() || chosen->fits()) return QString();
  const DeviceMemoryEstimate* fullest = &chosen->devices.front();
  for (const DeviceMemoryEstimate& d : chosen->devices) {
    if (d.total() - d.capacity > fullest->total() - fullest->capacity) fullest = &d;
  }
  const MemoryChoice* fitting = memory.firstFitting();
  return QObject::tr("⚠ Does not fit: %1 on %2, which holds %3; ")
             .arg(bytesText(fullest->total()), QString::fromStdString(fullest->device),
                  bytesText(fullest->capacity)) +
         (fitting ? QObject::tr("%1 would (%2)")
                        .arg(QString::fromStdString(fitting->name), bytesText(fitting->largestDevice()))
                  : QObject::tr("nothing fits: more devices or a smaller batch"));
}

// One id per rank, as the engine reads the list: "cpu:N" becomes N "cpu".
QStringList expandRanks(const QStringList& ids) {
  QStringList ranks;
  for (const QString& id : ids) {
    const int n = cpuRanksOf(id);
    if (n == 0) {
      ranks << id;
    } else {
      for (int i = 0; i < n; ++i) ranks << kCpu;
    }
  }
  return ranks;
}

}  // namespace

DevicePicker::DevicePicker(QWidget* parent) : QWidget(parent) {
  m_list = new QListWidget(this);
  m_list->setObjectName(QStringLiteral("deviceList"));
  m_list->setSelectionMode(QAbstractItemView::NoSelection);
  // A GPU's name is long ("cuda:0 — NVIDIA H100 80GB HBM3, 79.1 GiB") and the form's column is not: the
  // text wraps within the column rather than scrolling sideways (its whole text is the tooltip too).
  m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_list->setWordWrap(true);
  m_list->setResizeMode(QListView::Adjust);
  for (const DeviceInfo& d : systemInfo().devices) {
    auto* item = new QListWidgetItem(describeDevice(d), m_list);
    item->setToolTip(item->text());
    item->setData(Qt::UserRole, QString::fromStdString(d.id));
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
  }
  m_list->setMaximumHeight(qMax(2, m_list->count() + 1) * (fontMetrics().height() + 6));

  m_cpuRanks = new QSpinBox(this);
  guardWheel(m_cpuRanks);
  m_cpuRanks->setObjectName(QStringLiteral("cpuRanks"));
  m_cpuRanks->setRange(1, kMaxCpuRanks);
  m_cpuRanks->setValue(1);
  m_cpuRanks->setSuffix(tr(" rank(s)"));
  m_cpuRanks->setToolTip(
      tr("Data-parallel ranks on the CPU, each with its share of the cores: the experiment "
         "lists \"cpu\" this many times. 1 = ordinary training."));
  auto* ranksLabel = new QLabel(tr("CPU ranks:"), this);
  ranksLabel->setBuddy(m_cpuRanks);
  ranksLabel->setToolTip(m_cpuRanks->toolTip());

  m_note = new QLabel(tr("Several devices: data parallel, one rank each; batch size is per device"), this);
  m_note->setObjectName(QStringLiteral("dataParallelNote"));
  m_note->setWordWrap(true);
  m_note->setToolTip(
      tr("Each rank trains on its own share of every epoch and the gradients are averaged after "
         "each step: the global batch is train.batch_size × the number of ranks."));
  QFont small = m_note->font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  m_note->setFont(small);

  buildMemoryRow();

  auto* ranksRow = new QHBoxLayout;
  ranksRow->setContentsMargins(0, 0, 0, 0);
  ranksRow->addWidget(ranksLabel);
  ranksRow->addWidget(m_cpuRanks);
  ranksRow->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(m_list);
  layout->addLayout(ranksRow);
  layout->addWidget(m_note);
  layout->addWidget(m_memoryRow);
  layout->addWidget(m_memoryNote);
  setFocusProxy(m_list);

  connect(m_list, &QListWidget::itemChanged, this, [this] {
    updateNote();
    emit devicesChanged();
  });
  connect(m_cpuRanks, qOverload<int>(&QSpinBox::valueChanged), this, [this] {
    updateNote();
    emit devicesChanged();
  });
  updateNote();
}

// The memory figures: a chooser of the ways to spread the training state (several devices only) and a red
// line when the chosen way does not fit.
void DevicePicker::buildMemoryRow() {
  m_memoryRow = new QWidget(this);
  m_memoryChoice = new QComboBox(m_memoryRow);
  guardWheel(m_memoryChoice);  // scrolling the form past it must not pick another way to spread the state
  m_memoryChoice->setObjectName(QStringLiteral("memoryChoice"));
  m_memoryChoice->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_memoryChoice->setMinimumContentsLength(12);
  m_memoryChoice->setToolTip(
      tr("How the training state is spread over the devices, with the most any one device holds: every "
         "device all of it (shard none), ZeRO's shard levels (train.shard), or the model cut into stages "
         "(train.pipeline). The Model tab has every device's figures."));
  auto* memoryLabel = new QLabel(tr("State:"), m_memoryRow);
  memoryLabel->setBuddy(m_memoryChoice);
  memoryLabel->setToolTip(m_memoryChoice->toolTip());
  auto* memoryLayout = new QHBoxLayout(m_memoryRow);
  memoryLayout->setContentsMargins(0, 0, 0, 0);
  memoryLayout->addWidget(memoryLabel);
  memoryLayout->addWidget(m_memoryChoice, 1);
  m_memoryRow->hide();
  m_memoryNote = new QLabel(this);
  m_memoryNote->setObjectName(QStringLiteral("memoryNote"));
  m_memoryNote->setWordWrap(true);
  m_memoryNote->hide();

  QFont smallNote = m_memoryNote->font();
  smallNote.setPointSizeF(smallNote.pointSizeF() * 0.9);
  m_memoryNote->setFont(smallNote);
  connect(m_memoryChoice, qOverload<int>(&QComboBox::activated), this, [this](int row) {
    const QVariant index = m_memoryChoice->itemData(row);
    if (index.isValid()) emit memoryChoiceRequested(index.toInt());
  });
}

QListWidgetItem* DevicePicker::ensureItem(const QString& id) {
  for (int i = 0; i < m_list->count(); ++i) {
    if (m_list->item(i)->data(Qt::UserRole).toString() == id) return m_list->item(i);
  }
  auto* added = new QListWidgetItem(id == QLatin1String("cuda") && systemInfo().cuda_available
                                        ? tr("cuda — the current CUDA device")
                                        : tr("%1 — not found on this machine").arg(id),
                                    m_list);
  added->setData(Qt::UserRole, id);
  added->setToolTip(added->text());
  added->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
  added->setCheckState(Qt::Unchecked);
  m_list->setMaximumHeight((m_list->count() + 1) * (fontMetrics().height() + 6));
  return added;
}

QListWidgetItem* DevicePicker::cpuItem() const {
  for (int i = 0; i < m_list->count(); ++i) {
    if (m_list->item(i)->data(Qt::UserRole).toString() == kCpu) return m_list->item(i);
  }
  return nullptr;
}

void DevicePicker::setDevices(const QStringList& ids) {
  const QSignalBlocker blockList(m_list);
  const QSignalBlocker blockRanks(m_cpuRanks);
  for (int i = 0; i < m_list->count(); ++i) m_list->item(i)->setCheckState(Qt::Unchecked);
  int cpuRanks = 0;
  for (const QString& id : expandRanks(ids)) {
    if (id == kCpu) {
      ++cpuRanks;
    } else {
      ensureItem(id)->setCheckState(Qt::Checked);
    }
  }
  if (cpuRanks > 0) ensureItem(kCpu)->setCheckState(Qt::Checked);
  m_cpuRanks->setValue(qBound(1, cpuRanks, kMaxCpuRanks));
  updateNote();
}

QStringList DevicePicker::devices() const {
  QStringList ids;
  for (int i = 0; i < m_list->count(); ++i) {
    const QListWidgetItem* item = m_list->item(i);
    if (item->checkState() != Qt::Checked) continue;
    const QString id = item->data(Qt::UserRole).toString();
    const int copies = id == kCpu ? m_cpuRanks->value() : 1;
    for (int k = 0; k < copies; ++k) ids << id;
  }
  return ids;
}

void DevicePicker::updateNote() {
  const QListWidgetItem* cpu = cpuItem();
  m_cpuRanks->setEnabled(cpu && cpu->checkState() == Qt::Checked);
  // Always there to read; greyed while the choice is a single device.
  m_note->setEnabled(devices().size() > 1);
}

void DevicePicker::showMemory(const TrainingMemory& memory, bool pipelineEditable) {
  const QSignalBlocker block(m_memoryChoice);
  m_memoryChoice->clear();
  const QString warning = memoryWarning(memory);
  m_memoryNote->setText(warning);
  m_memoryNote->setStyleSheet(QStringLiteral("color: #b91c1c;"));
  const MemoryChoice* chosen = memory.chosen();
  m_memoryNote->setToolTip(chosen && chosen->possible() && !chosen->devices.empty()
                               ? memoryBreakdown(chosen->devices.front())
                               : QString());
  m_memoryNote->setVisible(!warning.isEmpty());
  for (size_t i = 0; i < memory.choices.size(); ++i) {
    const MemoryChoice& choice = memory.choices[i];
    m_memoryChoice->addItem(memoryChoiceSummary(choice), static_cast<int>(i));
    const int row = m_memoryChoice->count() - 1;
    QStringList lines;
    for (const DeviceMemoryEstimate& d : choice.devices) lines << memoryBreakdown(d);
    m_memoryChoice->setItemData(row, lines.join(QLatin1Char('\n')), Qt::ToolTipRole);
    if (!choice.possible() || (choice.pipeline && !pipelineEditable)) {
      // Listed with its figures, not selectable (a QComboBox's model is a QStandardItemModel).
      if (auto* items = qobject_cast<QStandardItemModel*>(m_memoryChoice->model()))
        items->item(row)->setEnabled(false);
    }
    if (choice.chosen) m_memoryChoice->setCurrentIndex(row);
  }
  // One device has one way: nothing to choose (the Model tab has its figures).
  m_memoryRow->setVisible(memory.choices.size() > 1);
}

DevicesBinding::DevicesBinding(std::string path, DevicePicker* picker)
    : FieldBinding(std::move(path), picker), m_picker(picker) {
  QObject::connect(picker, &DevicePicker::devicesChanged, picker, [this] { changed(); });
}

void DevicesBinding::loadValue(const nlohmann::json& value) {
  QStringList ids;
  if (value.is_string()) {
    ids << QString::fromStdString(value.get<std::string>());
  } else if (value.is_array()) {
    for (const auto& item : value) {
      if (!item.is_string()) {
        m_raw = value;
        return;
      }
      ids << QString::fromStdString(item.get<std::string>());
    }
  } else if (!value.is_null()) {
    m_raw = value;
    return;
  }
  m_picker->setDevices(ids);
  // A list the checklist cannot say as written (a CUDA device twice, ranks in another order than the list's)
  // is kept as the file has it until the user edits the field: the engine judges it, not the form.
  if (m_picker->devices() != expandRanks(ids)) m_raw = value;
}

nlohmann::json DevicesBinding::storeValue() const {
  nlohmann::json list = nlohmann::json::array();
  for (const QString& id : m_picker->devices()) list.push_back(id.toStdString());
  return list;
}

}  // namespace wb::gui
