#include "editor/device_picker.h"

#include "app/system_info_cache.h"

namespace wb::gui {
namespace {

QString describeDevice(const DeviceInfo& d) {
  if (d.id == "cpu") {
    return QObject::tr("CPU — %1 (%2 cores)").arg(QString::fromStdString(d.name)).arg(d.cores);
  }
  const double gib = static_cast<double>(d.memory_bytes) / (1024.0 * 1024.0 * 1024.0);
  return QObject::tr("%1 — %2, %3 GiB")
      .arg(QString::fromStdString(d.id), QString::fromStdString(d.name), QString::number(gib, 'f', 1));
}

}  // namespace

DevicePicker::DevicePicker(QWidget* parent) : QListWidget(parent) {
  setSelectionMode(QAbstractItemView::NoSelection);
  for (const DeviceInfo& d : systemInfo().devices) {
    auto* item = new QListWidgetItem(describeDevice(d), this);
    item->setData(Qt::UserRole, QString::fromStdString(d.id));
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
  }
  setMaximumHeight(qMax(2, count() + 1) * (fontMetrics().height() + 6));
  connect(this, &QListWidget::itemChanged, this, [this] { emit devicesChanged(); });
}

QListWidgetItem* DevicePicker::ensureItem(const QString& id) {
  for (int i = 0; i < count(); ++i) {
    if (item(i)->data(Qt::UserRole).toString() == id) return item(i);
  }
  auto* added = new QListWidgetItem(
      id == QLatin1String("cuda") && systemInfo().cuda_available ? tr("cuda — the current CUDA device")
                                                                 : tr("%1 — not found on this machine").arg(id),
      this);
  added->setData(Qt::UserRole, id);
  added->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
  added->setCheckState(Qt::Unchecked);
  setMaximumHeight((count() + 1) * (fontMetrics().height() + 6));
  return added;
}

void DevicePicker::setDevices(const QStringList& ids) {
  const QSignalBlocker block(this);
  for (int i = 0; i < count(); ++i) item(i)->setCheckState(Qt::Unchecked);
  for (const QString& id : ids) ensureItem(id)->setCheckState(Qt::Checked);
}

QStringList DevicePicker::devices() const {
  QStringList ids;
  for (int i = 0; i < count(); ++i) {
    if (item(i)->checkState() == Qt::Checked) ids << item(i)->data(Qt::UserRole).toString();
  }
  return ids;
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
}

nlohmann::json DevicesBinding::storeValue() const {
  nlohmann::json list = nlohmann::json::array();
  for (const QString& id : m_picker->devices()) list.push_back(id.toStdString());
  return list;
}

}  // namespace wb::gui
