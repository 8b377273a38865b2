#pragma once
// The Model tab's memory figures: the training state's bytes on each device (parameters, gradients,
// optimizer state, estimated activations) under each way of spreading it — every device holding it all, the
// three train.shard levels, a pipeline cut — against what each device holds, as `workbench-cli check` prints
// them (workbench/training_memory.h). The experiment's own choice is in bold; a device it does not fit is
// red, and the line under the table says what would fit.

#include <QWidget>

#include "workbench/training_memory.h"

class QLabel;
class QStandardItemModel;
class QTableView;

namespace wb::gui {

enum MemoryFiguresColumn {
  kMemoryChoiceColumn,
  kMemoryDeviceColumn,
  kMemoryParametersColumn,
  kMemoryGradientsColumn,
  kMemoryOptimizerColumn,
  kMemoryActivationsColumn,
  kMemoryTotalColumn,
  kMemoryHoldsColumn,
  kMemoryColumns
};

class MemoryFiguresView : public QWidget {
  Q_OBJECT

 public:
  explicit MemoryFiguresView(QWidget* parent = nullptr);

  void showMemory(const TrainingMemory& memory);
  void clear();

  QStandardItemModel* tableModel() const { return m_model; }
  QTableView* table() const { return m_table; }
  QString headingText() const;
  // The refusal with what would fit, or that the experiment's choice fits; "" without figures.
  QString verdictText() const;
  bool verdictRefuses() const { return m_refuses; }

 private:
  void addChoiceRows(const MemoryChoice& choice);

  QLabel* m_heading;
  QTableView* m_table;
  QStandardItemModel* m_model;
  QLabel* m_verdict;
  bool m_refuses = false;
};

// "1.5 GiB" as the engine formats bytes (workbench/finders.h's formatBytes).
QString bytesText(int64_t bytes);
// One line for the device picker: the choice's largest device and whether every device holds it.
QString memoryChoiceSummary(const MemoryChoice& choice);

}  // namespace wb::gui
