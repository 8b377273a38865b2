#pragma once
// Run ▸ Queue Sweep…: a sweep built in the window instead of a JSON file written by hand. Keys come from the
// experiment's schema (workbench/experiment_keys.h: its kind and its words), each with its values as a list
// or a range (from, to, a count, linear or log scale), grid or random search, the trial count, the seed, the
// metric and ASHA; the first trials are previewed as the engine plans them over the experiment in the editor
// (wb::planSweep, off the UI thread), and a problem is shown in the engine's words. Save writes the sweep
// file (atomically) and Queue queues its trials, both only for a draft the engine's parser and planner have
// just accepted, so neither can make a file or a queue the engine refuses. Open… loads an existing sweep file
// to edit. The draft itself is plain data (sweep_draft.h).

#include <QDialog>
#include <QTimer>
#include <optional>
#include <vector>

#include "sweep_view/sweep_draft.h"
#include "workbench/sweep.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace wb::gui {

class ExperimentEditor;
class QueueActions;

class SweepBuilderDialog : public QDialog {
  Q_OBJECT

 public:
  SweepBuilderDialog(ExperimentEditor* editor, QueueActions* queue, QWidget* parent = nullptr);

  // The dialog's fields, as the user set them; throws wb::UserError naming a value it cannot read.
  SweepDraft draft() const;
  void setDraft(const SweepDraft& draft);
  // A row for another key: `key` with the experiment's current value, or the first key not yet swept.
  void addKey(const std::string& key = {});
  void removeKey(int row);

  // Whether the preview for the fields as they are now is the engine's plan (Save and Queue need it).
  bool isPlanned() const { return m_planned.has_value() && !m_planning && !m_debounce.isActive(); }
  bool isPlanning() const { return m_planning || m_debounce.isActive(); }
  QString problem() const;  // the engine's refusal (or a value the fields cannot read), empty when none
  // Writes the planned sweep to `file` (atomically); false with `error` set when there is nothing planned or
  // the file cannot be written.
  bool saveTo(const QString& file, QString* error);
  // Loads a sweep file read by the engine's parser; false with `error` set when it refuses it.
  bool loadFrom(const QString& file, QString* error);
  // Queues the planned sweep's trials over the editor's experiment (QueueActions::queueSweepSpec) and closes.
  bool queuePlanned();

  QTableWidget* keyTable() const { return m_keys; }
  QTableWidget* previewTable() const { return m_preview; }
  QLabel* previewSummary() const { return m_summary; }
  QPushButton* saveButton() const { return m_save; }
  QPushButton* queueButton() const { return m_queueButton; }

 private:
  struct KeyRow {
    QComboBox* key;
    QComboBox* form;  // list or range
    QLineEdit* values;
    QLineEdit* from;
    QLineEdit* to;
    QSpinBox* count;
    QComboBox* scale;
  };
  struct Plan {
    SweepSpec spec;
    std::vector<SweepTrial> trials;
    QString error;
  };

  void buildSettings(class QGridLayout* grid);
  void buildButtons(class QHBoxLayout* row);
  int appendRow();
  void fillRow(int row, const SweepDraftKey& key);
  void keyChosen(int row);
  void updateRowForm(int row);
  void changed();
  void plan();
  void showPlan(const Plan& plan, int generation);
  void updateButtons();
  void chooseFileToOpen();
  void chooseFileToSave();
  std::string baseValueText(const std::string& key) const;

  ExperimentEditor* m_editor;
  QueueActions* m_queue;
  QLineEdit* m_name;
  QComboBox* m_search;
  QSpinBox* m_trials;
  QSpinBox* m_seed;
  QComboBox* m_metric;
  QCheckBox* m_asha;
  QDoubleSpinBox* m_eta;
  QSpinBox* m_grace;
  QTableWidget* m_keys;
  std::vector<KeyRow> m_rows;
  QLabel* m_summary;
  QTableWidget* m_preview;
  QLabel* m_problem;
  QPushButton* m_open;
  QPushButton* m_save;
  QPushButton* m_queueButton;
  QTimer m_debounce;
  bool m_planning = false;
  bool m_loading = false;  // setDraft fills the fields: one plan after, not one per field
  int m_generation = 0;
  std::optional<SweepSpec> m_planned;
  QString m_problemText;
  QString m_file;  // the file opened or saved last: Save offers it again
};

}  // namespace wb::gui
