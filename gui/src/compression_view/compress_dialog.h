#pragma once
// Compress ▸ Prune…, Quantize to int8…, Distill… and Pipeline…: a form for one pass, or an ordered list of
// passes each edited with the same form. After each edit the passes go through the engine's own checks — the
// experiment reader (parseExperiment on the run's experiment with this compress section) and checkCompression
// for what needs the run — and every issue is shown at its field in the CLI's words; OK stays disabled until
// there are none.

#include <QDialog>
#include <QTimer>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "workbench/experiment.h"

class QDialogButtonBox;
class QLabel;
class QListWidget;
class QPushButton;
class QStackedWidget;
class QToolButton;

namespace wb::gui {

class PassForm;

class CompressDialog : public QDialog {
  Q_OBJECT

 public:
  enum class Kind { Prune, Quantize, Distill, Pipeline };

  CompressDialog(Kind kind, const QString& runDir, QWidget* parent = nullptr);
  ~CompressDialog() override;

  Kind kind() const { return m_kind; }
  QString runDir() const { return m_runDir; }

  // The pipeline's passes (one for a single-pass dialog).
  int passCount() const { return static_cast<int>(m_forms.size()); }
  PassForm* passForm(int index) const;
  QListWidget* passList() const { return m_list; }
  void setPasses(const nlohmann::json& passes);
  nlohmann::json passesJson() const;
  // Pipeline only: adds a pass of a type after the selected one (at the end when none is); removes and moves.
  void addPass(PassType type);
  void removePass(int index);
  void movePass(int from, int to);
  int currentPass() const;
  void setCurrentPass(int index);

  // Runs the checks now (edits run them after a short pause).
  void validateNow();
  // Every issue, with paths as the CLI prints them ("compress.passes[0].amount").
  const std::vector<ValidationIssue>& issues() const { return m_issues; }
  // The passes to run, once the engine accepts them; nullopt while there are issues.
  std::optional<CompressConfig> config() const { return m_config; }
  QPushButton* okButton() const;

  void accept() override;  // only when the checks pass

 signals:
  void validated();

 private:
  QWidget* buildPassList();
  void addForm(int at, const nlohmann::json& pass);
  void refreshList();
  void updateButtons();
  void onEdited();

  Kind m_kind;
  QString m_runDir;
  nlohmann::json m_runDoc;  // the run's experiment.json: the passes are checked as part of it
  std::vector<PassForm*> m_forms;
  QListWidget* m_list = nullptr;
  QStackedWidget* m_stack = nullptr;
  QToolButton* m_add = nullptr;
  QPushButton* m_remove = nullptr;
  QPushButton* m_up = nullptr;
  QPushButton* m_down = nullptr;
  QLabel* m_status = nullptr;
  QDialogButtonBox* m_buttons = nullptr;
  QTimer m_debounce;
  std::vector<ValidationIssue> m_issues;
  std::optional<CompressConfig> m_config;
};

}  // namespace wb::gui
