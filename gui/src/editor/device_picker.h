#pragma once
// train.devices as a checklist of what this machine has: the CPU with its cores, each CUDA device with its name
// and memory. Devices named by a file that are not here stay in the list, marked, so the engine's device check
// flags them at this field.

#include <QListWidget>

#include "editor/field_binding.h"

namespace wb::gui {

class DevicePicker : public QListWidget {
  Q_OBJECT

 public:
  explicit DevicePicker(QWidget* parent = nullptr);
  void setDevices(const QStringList& ids);
  QStringList devices() const;

 signals:
  void devicesChanged();

 private:
  QListWidgetItem* ensureItem(const QString& id);
};

class DevicesBinding : public FieldBinding {
 public:
  DevicesBinding(std::string path, DevicePicker* picker);

 protected:
  void loadValue(const nlohmann::json& value) override;
  nlohmann::json storeValue() const override;

 private:
  DevicePicker* m_picker;
};

}  // namespace wb::gui
