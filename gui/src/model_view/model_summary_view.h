#pragma once
// The Model tab: the layer table of the experiment in the editor — each layer's output shape, parameters and
// forward FLOPs, with the totals — before anything trains. It follows the editor: a short pause after the
// last edit, the engine's summarizeModel runs on a worker thread (it reads the dataset's headers, and loads a
// TorchScript file), and the table is replaced when it answers. An experiment with problems shows what to fix
// instead of a stale table.
//
// Issue 40: each layer says whether it trains (model.freeze as the run applies it; "partly" for a block with
// some of its layers frozen), the layers carry their torchvision names, and under the table the Weights
// section says what model.weights loads — the engine's load report, made off the UI thread on its own (a
// large file does not hold the table back), a refusal in red with the engine's words — or that the model
// starts from a fresh initialization.
//
// Issue 42: under it, the training state's memory per device under each way of spreading it
// (memory_figures_view.h), for the editor's devices, batch, optimizer and precision; the same figures feed
// the editor's device picker, whose chooser sets train.shard or train.pipeline through the editor.

#include <QFutureWatcher>
#include <QTimer>
#include <QWidget>
#include <optional>
#include <string>

#include "app/serial_reload.h"
#include "workbench/experiment.h"
#include "workbench/model_summary.h"
#include "workbench/training_memory.h"

class QLabel;
class QStandardItemModel;
class QTableView;

namespace wb::gui {

class DevicePicker;
class ExperimentEditor;
class MemoryFiguresView;

// Table columns, in order.
enum ModelSummaryColumn {
  kModelLayerColumn,
  kModelTypeColumn,
  kModelShapeColumn,
  kModelParamsColumn,
  kModelTrainsColumn,  // "trains", "frozen", "partly (N frozen)"; empty for a layer without parameters
  kModelFlopsColumn,
  kModelColumns
};

class ModelSummaryView : public QWidget {
  Q_OBJECT

 public:
  explicit ModelSummaryView(ExperimentEditor* editor, QWidget* parent = nullptr);

  // Summarizes the editor's experiment now (no pause); the answer still comes from the worker.
  void refreshNow();
  bool isComputing() const {
    return m_running || m_queued.has_value() || m_debounce.isActive() || m_weightsLoads.loading();
  }
  // The last summary shown (empty rows and no issues before the first).
  const ModelSummary& summary() const { return m_summary; }
  QTableView* table() const { return m_table; }
  QStandardItemModel* tableModel() const { return m_model; }
  QString totalsText() const;
  QString messageText() const;
  // model.freeze's problems (a pattern that picks nothing), shown in red above the table; "" without.
  QString freezeIssuesText() const;
  // The Weights section: the load report's lines, the refusal, or the fresh initialization.
  QString weightsText() const;
  bool weightsRefused() const { return m_weightsRefused; }
  QLabel* weightsLabel() const { return m_weights; }
  // The memory figures last shown (no choices while the model or the form has problems).
  const TrainingMemory& memory() const { return m_memory; }
  MemoryFiguresView* memoryFigures() const { return m_memoryFigures; }

 signals:
  void summaryShown();  // the table (or the message) now shows the editor's experiment
  void weightsShown();  // the Weights section now shows the editor's model.weights, no load in flight

 private:
  void schedule();
  void compute();
  void start(const Experiment& experiment, std::string key);
  void onComputed();
  void show(const ModelSummary& summary);
  void showMessage(const QString& text);
  void followWeights(const Experiment& experiment, const std::string& key);
  void startWeightsLoad();
  void forgetWeights();
  void showWeights(const QString& text, bool refused);
  void updateMemory();
  void applyMemoryChoice(int index);

  ExperimentEditor* m_editor;
  QLabel* m_totals;
  QLabel* m_message;
  QLabel* m_freezeIssues;
  QLabel* m_weights;
  QTableView* m_table;
  QStandardItemModel* m_model;
  QTimer m_debounce;
  QFutureWatcher<ModelSummary> m_watcher;
  bool m_running = false;
  bool m_showingMessage = false;
  std::optional<std::pair<Experiment, std::string>> m_queued;  // asked for while another was computing
  std::string m_runningKey;
  std::string m_shownKey;  // the data and model sections the table shows; the same again is not recomputed
  ModelSummary m_summary;
  // The Weights section's loads: one at a time, a stale one dropped (serial_reload.h).
  SerialReload m_weightsLoads;
  std::optional<Experiment> m_weightsWanted;  // the experiment whose weights the section should show next
  std::string m_weightsKey;                   // the data and model sections it was asked for
  bool m_weightsRefused = false;
  MemoryFiguresView* m_memoryFigures;
  DevicePicker* m_picker = nullptr;  // the editor's train.devices field, shown the same figures
  TrainingMemory m_memory;
};

}  // namespace wb::gui
