#pragma once
// train.devices as a checklist of what this machine has: the CPU with its cores, each CUDA device with its
// name and memory. Devices named by a file that are not here stay in the list, marked, so the engine's device
// check flags them at this field. Several devices mean data parallel, one rank each; the CPU can be several
// ranks (the "CPU ranks" box: the experiment lists "cpu" that many times), which is how data parallel is
// tried on a machine without GPUs.
//
// Issue 42: with several devices, under the list a chooser of the ways to spread the training state — every
// device holding it all, the train.shard levels, a pipeline cut — each with its largest device's bytes
// (workbench/training_memory.h, figured by the Model tab from its summary); picking one asks for it
// (memoryChoiceRequested) and the Model tab sets the keys. A choice that does not fit its devices says so in
// red with what would; one that fits costs no row (1366x768 screens keep their form rows).

#include <QWidget>

#include "editor/field_binding.h"
#include "workbench/training_memory.h"

class QComboBox;
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

  // The figures for the experiment in the form; an empty `memory` (no choices) hides them. Choices the form
  // cannot set (a pipeline without its fields) are listed, not selectable.
  void showMemory(const TrainingMemory& memory, bool pipelineEditable);
  QComboBox* memoryChoice() const { return m_memoryChoice; }
  QLabel* memoryNote() const { return m_memoryNote; }

 signals:
  void devicesChanged();
  // The user picked choices[index] of the TrainingMemory last shown.
  void memoryChoiceRequested(int index);

 private:
  QListWidgetItem* ensureItem(const QString& id);
  QListWidgetItem* cpuItem() const;
  void updateNote();
  void buildMemoryRow();

  QListWidget* m_list;
  QSpinBox* m_cpuRanks;
  QLabel* m_note;
  QWidget* m_memoryRow;
  QComboBox* m_memoryChoice;
  QLabel* m_memoryNote;
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
