#pragma once
// train.pipeline's cut as a table (issue 42, json_rows_table.h): one row per stage — its device, chosen among
// this machine's devices as the device picker lists them, and its first and last top-level layer, chosen
// among the model's layers as the Model tab names them — with Add stage and Remove, and "Balanced", where the
// engine proposes the cut over the rows' devices (train.pipeline.devices) and the table shows that cut
// read-only. The section's other keys (enabled, micro_batches, schedule) are fields of their own after this
// one.
//
// The binding's path is the section, "train.pipeline", so the engine's issues at train.pipeline,
// .stages[i][1] and .devices[i] come here, but it writes only the stages and devices keys. The engine's
// message for a refused stage marks the chooser at fault (red, its tooltip) and shows under the table.

#include <QString>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "editor/json_rows_table.h"
#include "workbench/model_summary.h"
#include "workbench/training_memory.h"

class QCheckBox;
class QComboBox;

namespace wb::gui {

// A top-level layer of the model as the table offers it.
struct PipelineLayer {
  QString name;   // its name where the list names it ("conv1", "layer2.0"); empty for an unnamed layer
  QString index;  // its place in the top-level list, "0", "1", ...
  QString text;   // what the chooser shows: the Model tab's name ("conv1", or "2 (relu)" for an unnamed one)
};

class PipelineBinding : public JsonRowsTable {
 public:
  enum Column { Device = 0, FirstLayer = 1, LastLayer = 2 };

  explicit PipelineBinding(std::string path);

  QCheckBox* balancedBox() const { return m_balanced; }
  // The chooser in `row`, `column` (a device or a layer).
  QComboBox* chooser(int row, int column) const;

  // The model's layers (the Model tab's summary) and the engine's proposed cut (the memory figures' pipeline
  // choice): the layer choosers list the layers; a balanced cut shows the proposal.
  void showModel(const ModelSummary& summary, const TrainingMemory& memory);
  const std::vector<PipelineLayer>& layers() const { return m_layers; }
  // The proposed cut, one "first..last" per stage in the engine's spelling (indices); empty when unknown.
  const std::vector<std::string>& proposedCut() const { return m_proposed; }

  // A stage after the last, on the last stage's device (the CPU for the first), its layers still to choose.
  void addRow() override;
  // On: "stages": "balanced" over the rows' devices. Off: the rows take the proposed cut, to edit.
  void setBalanced(bool on);
  // Called with the device chosen for the first stage (train.devices must name it: batches are loaded there).
  void setOnFirstDevice(std::function<void(const QString&)> onFirstDevice) {
    m_onFirstDevice = std::move(onFirstDevice);
  }

  void store(nlohmann::json& doc) const override;
  void markIssues(const std::vector<ValidationIssue>& issues) override;

 protected:
  void loadValue(const nlohmann::json& value) override;
  nlohmann::json storeValue() const override;
  void fillRow(int row) override;
  // The stages' numbers (as the engine's messages count them) and the choosers' marks.
  void rowsFilled() override;
  // The cells are choosers, not items: the current row is the one Remove acts on.
  bool hasRowToRemove() const override;
  // Balanced: the rows are the devices (train.pipeline.devices), else the stages.
  std::string rowsPath() const override;
  int columnOfIssue(const std::string& rest) const override;
  void showCurrentCell(int row, int column) override;

 private:
  // `balanced`: the Balanced switch, beside the caption.
  PipelineBinding(std::string path, QCheckBox* balanced);
  bool isBalanced() const;
  QComboBox* deviceChooser(const QString& current);
  QComboBox* layerChooser(const QString& current, int column, bool editable);
  // What the file writes for layer `i` as a stage's first or last layer: its name where that means exactly
  // this layer, else its index (a name as the last end also takes the unnamed layers after it).
  QString endValue(size_t i, int column) const;
  void onDeviceChosen(int row, const QString& device);
  void onLayerChosen(int row);
  QString layerText(const QString& value) const;  // a layer's name for the chooser ("2 (relu)")
  int layerIndexOf(const QString& value) const;   // the layer an end names exactly; -1: none (a prefix)
  // The engine's proposed range ("0..10") as the choosers write it ("conv1..10").
  std::string adoptedRange(const std::string& proposed) const;
  int rowOfWidget(const QWidget* widget, int column) const;
  void markChoosers();  // the last issues shown, at the choosers they name

  QCheckBox* m_balanced;
  nlohmann::json m_section = nlohmann::json::object();  // the section as loaded, stages and devices edited
  // m_rows: explicit, each stage's [device, layers]; balanced, each device.
  std::vector<PipelineLayer> m_layers;
  std::vector<std::string> m_proposed;
  std::vector<ValidationIssue> m_issues;
  std::function<void(const QString&)> m_onFirstDevice;
};

}  // namespace wb::gui
