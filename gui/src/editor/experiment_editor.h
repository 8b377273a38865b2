#pragma once
// The experiment editor: a form for every section of the experiment file, bound key by key to the same JSON
// document the CLI runs. After each edit the document goes through the engine's own checks — parseExperiment
// at once, checkExperiment and the learning-rate preview on a worker thread — and every issue is shown next
// to the field its JSON path names.

#include <QFutureWatcher>
#include <QTimer>
#include <QWidget>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "editor/field_binding.h"
#include "editor/unknown_key.h"
#include "workbench/experiment.h"
#include "workbench/lr_preview.h"

class QComboBox;
class QFormLayout;
class QVBoxLayout;
class QLabel;
class QListWidget;
class QPushButton;
class QScrollArea;
class QTabWidget;

namespace wb::gui {

class LrPreview;

class ExperimentEditor : public QWidget {
  Q_OBJECT

 public:
  explicit ExperimentEditor(QWidget* parent = nullptr);
  ~ExperimentEditor() override;

  // Loads a document (a file's contents, possibly partial or invalid); missing keys show their defaults.
  void setDocument(const nlohmann::json& doc);
  // The complete document the form describes: every key, as a run folder's experiment.json has them.
  nlohmann::json document() const;
  void markSaved();
  bool isModified() const { return m_modified; }

  // Parses the form now (the engine's parseExperiment); nullopt when the form has issues.
  std::optional<Experiment> experiment() const;
  // Re-validates at once (parse now, engine checks in the background).
  void validateNow();
  bool checksPending() const { return m_checkRunning || m_checkQueued; }
  const std::vector<ValidationIssue>& issues() const { return m_issues; }
  // Shows the engine's checks of the experiment about to start (Run ▸ Start ran them) as the form's own: at
  // the fields and in the list. The next edit checks the form again.
  void showEngineIssues(const std::vector<ValidationIssue>& issues);

  FieldBinding* binding(const std::string& path) const;
  // The bindings that show an issue at `path`: the field itself, the field of the list or section above it,
  // or the fields below it (an issue at optimizer.betas shows at both betas).
  std::vector<FieldBinding*> bindingsFor(const std::string& path) const;
  void focusIssue(const std::string& path);
  LrPreview* lrPreview() const { return m_lrPreview; }
  // Keys of the document the experiment does not have (a typo such as "trian"), from the engine's own checks.
  // No field shows them: the problem list does, with a bar under it to rename each to the suggested key or
  // remove it (an edit like any other: Save writes the fixed key).
  std::vector<UnknownKey> unknownKeys() const;
  bool renameUnknownKeyToSuggestion(const std::string& path);
  bool removeUnknownKey(const std::string& path);
  QWidget* unknownKeyBar() const { return m_keyFix; }

  // While a run trains, the form shows the experiment it trains and takes no edits (tabs and scrolling still
  // work), under a note saying so; an empty note unlocks it. No field can then disagree with the run in
  // progress.
  void setLocked(const QString& note);
  bool isLocked() const { return m_locked; }
  QString runsDir() const;
  // Sets one key as if it were typed into its field (the finders' Apply): the field shows it, the edit counts
  // as unsaved and is checked. False (nothing changes) while the form is locked or when no field edits
  // `path`.
  bool setValue(const std::string& path, const nlohmann::json& value);

 signals:
  void edited();
  void modifiedChanged(bool modified);
  void validated();  // issues() changed (after the parse, and again after the background checks)

 private:
  struct CheckResult {
    int generation = 0;
    std::vector<ValidationIssue> issues;
    std::optional<LrCurve> curve;
    QString curveError;
  };

  QFormLayout* addSection(const QString& title, const QString& section);
  // An empty label: the field spans the form's width and names itself (the parameter-groups table).
  FieldBinding* add(QFormLayout* form, const QString& label, std::unique_ptr<FieldBinding> binding,
                    const QString& help);
  FieldBinding* addText(QFormLayout* form, const std::string& path, const QString& label,
                        const QString& help);
  FieldBinding* addPath(QFormLayout* form, const std::string& path, const QString& label, const QString& help,
                        bool directory, const QString& filter = QString());
  FieldBinding* addNumber(QFormLayout* form, const std::string& path, const QString& label,
                          const QString& help);
  FieldBinding* addInteger(QFormLayout* form, const std::string& path, const QString& label,
                           const QString& help, const QString& suffix = QString());
  FieldBinding* addBool(QFormLayout* form, const std::string& path, const QString& label,
                        const QString& help);
  // A chooser of the words the schema gives the key, in its order; `names` are how the form shows some of
  // them ("adamw" → "AdamW"), the rest show as they are spelt.
  FieldBinding* addChoice(QFormLayout* form, const std::string& path, const QString& label,
                          const std::vector<std::pair<QString, QString>>& names, const QString& help);
  // The same for a fixed word set (workbench/word_set.h): names keyed by value, so none names a lost word.
  template <typename E>
  FieldBinding* addChoice(QFormLayout* form, const std::string& path, const QString& label,
                          const std::vector<std::pair<E, QString>>& names, const QString& help) {
    std::vector<std::pair<QString, QString>> byWord;
    for (const auto& [value, name] : names)
      byWord.emplace_back(QString::fromStdString(wordString(value)), name);
    return addChoice(form, path, label, byWord, help);
  }
  FieldBinding* addList(QFormLayout* form, const std::string& path, const QString& label,
                        const QString& help);
  void addGenericFields();
  void buildModelSource(QFormLayout* form);
  void buildFineTuningFields(QFormLayout* form);
  void buildDataSection();
  void buildOptimizerSection();
  void buildScheduleSection();
  void buildTrainingSection();
  void offerTrainedShardLevels(QComboBox* combo);
  void buildPipelineFields(QFormLayout* form);
  void buildIssueArea(QVBoxLayout* outer);

  void onEdited();
  void loadDocument(const nlohmann::json& doc, bool asSaved);
  void applyKeyFix(const nlohmann::json& doc);
  void showKeyFix(const std::optional<UnknownKey>& key);
  void updateRelevance();
  // After a switch of data.dataset: the settings only the previous dataset read go back to their defaults.
  void forgetOtherDatasetsSettings();
  void showIssues();
  void startChecks(const Experiment& experiment);
  void onChecksDone();
  QString word(const std::string& path) const;  // current value of a choice field

  std::vector<std::unique_ptr<FieldBinding>> m_bindings;
  std::map<const FieldBinding*, QFormLayout*> m_formOf;
  std::map<QString, QFormLayout*> m_sectionForms;
  std::map<QString, int> m_sectionTabs;
  QTabWidget* m_tabs = nullptr;
  QComboBox* m_modelSource = nullptr;
  LrPreview* m_lrPreview = nullptr;
  QLabel* m_status = nullptr;
  QListWidget* m_issueList = nullptr;
  QWidget* m_keyFix = nullptr;  // "Unknown key "trian"  [Rename to "train"] [Remove]"
  QLabel* m_keyFixText = nullptr;
  QPushButton* m_renameKey = nullptr;
  QPushButton* m_removeKey = nullptr;
  std::optional<UnknownKey> m_fixing;
  QLabel* m_lockNote = nullptr;
  QLabel* m_ampNote = nullptr;  // what bf16 costs on this CPU (train.amp)
  bool m_locked = false;

  nlohmann::json m_base;   // the loaded document with defaults filled in; keeps keys the form does not know
  nlohmann::json m_saved;  // what the file on disk holds, to tell whether there are unsaved edits
  bool m_modified = false;
  bool m_loading = false;
  QString m_dataset;  // data.dataset as last seen, to notice a switch

  std::vector<ValidationIssue> m_parseIssues;
  std::vector<ValidationIssue> m_checkIssues;
  std::vector<ValidationIssue> m_issues;
  QTimer m_debounce;
  QFutureWatcher<CheckResult> m_checkWatcher;
  int m_generation = 0;
  bool m_checkRunning = false;
  bool m_checkQueued = false;
  std::optional<Experiment> m_pendingCheck;
};

}  // namespace wb::gui
