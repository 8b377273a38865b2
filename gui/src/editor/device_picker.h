#pragma once
// train.devices as a checklist of what this machine has: the CPU with its cores, each CUDA device with its
// name and memory. Devices named by a file that are not here stay in the list, marked, so the engine's device
// check flags them at this field. Several devices mean data parallel, one rank each; the CPU can be several
// ranks (the "CPU ranks" box: the experiment lists "cpu" that many times), which is how data parallel is
// tried on a machine without GPUs.

#include <QWidget>

#include "editor/field_binding.h"

class QLabel;
class QListWidget;
class QListWidgetItem;
class QSpinBox;

namespace wb::gui {

class DevicePicker : public QWidget {
  Q_OBJECT

 public:
  explicit DevicePicker(QWidget* parent = nullptr);
  // One id per rank, as train.devices holds them: ["cpu", "cpu", "cuda:1"]. "cpu:N" counts as N CPU ranks.
  void setDevices(const QStringList& ids);
  // One id per rank: the CPU's id repeated once per CPU rank, then the checked CUDA devices in list order.
  QStringList devices() const;

  QListWidget* list() const { return m_list; }
  QSpinBox* cpuRanks() const { return m_cpuRanks; }
  QLabel* note() const { return m_note; }

 signals:
  void devicesChanged();

 private:
  QListWidgetItem* ensureItem(const QString& id);
  QListWidgetItem* cpuItem() const;
  void updateNote();

  QListWidget* m_list;
  QSpinBox* m_cpuRanks;
  QLabel* m_note;
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
