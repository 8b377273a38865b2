#pragma once
// The Model tab: the layer table of the experiment in the editor — each layer's output shape, parameters and
// forward FLOPs, with the totals — before anything trains. It follows the editor: a short pause after the
// last edit, the engine's summarizeModel runs on a worker thread (it reads the dataset's headers, and loads a
// TorchScript file), and the table is replaced when it answers. An experiment with problems shows what to fix
// instead of a stale table.

#include <QFutureWatcher>
#include <QTimer>
#include <QWidget>
#include <optional>
#include <string>

#include "workbench/experiment.h"
#include "workbench/model_summary.h"

class QLabel;
class QStandardItemModel;
class QTableView;

namespace wb::gui {

class ExperimentEditor;

// Table columns, in order.
enum ModelSummaryColumn {
  kModelLayerColumn,
  kModelTypeColumn,
  kModelShapeColumn,
  kModelParamsColumn,
  kModelFlopsColumn,
  kModelColumns
};

class ModelSummaryView : public QWidget {
  Q_OBJECT

 public:
  explicit ModelSummaryView(ExperimentEditor* editor, QWidget* parent = nullptr);

  // Summarizes the editor's experiment now (no pause); the answer still comes from the worker.
  void refreshNow();
  bool isComputing() const { return m_running || m_queued.has_value() || m_debounce.isActive(); }
  // The last summary shown (empty rows and no issues before the first).
  const ModelSummary& summary() const { return m_summary; }
  QTableView* table() const { return m_table; }
  QStandardItemModel* tableModel() const { return m_model; }
  QString totalsText() const;
  QString messageText() const;

 signals:
  void summaryShown();  // the table (or the message) now shows the editor's experiment

 private:
  void schedule();
  void compute();
  void start(const Experiment& experiment, std::string key);
  void onComputed();
  void show(const ModelSummary& summary);
  void showMessage(const QString& text);

  ExperimentEditor* m_editor;
  QLabel* m_totals;
  QLabel* m_message;
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
};

}  // namespace wb::gui
