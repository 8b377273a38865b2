#pragma once
// The experiment editor: a form for every section of the experiment file, bound key by key to the same JSON
// document the CLI runs. After each edit the document goes through the engine's own checks — parseExperiment
// at once, checkExperiment and the learning-rate preview on a worker thread (experiment_checks.h) — and every
// issue is shown next to the field its JSON path names. The form is made of parts, one per section or group
// of keys (form_section.h: data_section.h, training_section.h, ...), over one set of fields (form_fields.h);
// the editor loads and stores the document, tells its parts of each load and edit, and shows the issues.

#include <QTimer>
#include <QWidget>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "editor/experiment_checks.h"
#include "editor/field_binding.h"
#include "editor/unknown_key.h"
#include "workbench/experiment.h"

class QLabel;

namespace wb::gui {

class FormFields;
class FormSection;
class IssueList;
class LrPreview;
class UnknownKeyBar;

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
  bool checksPending() const { return m_checks.pending(); }
  const std::vector<ValidationIssue>& issues() const { return m_issues; }
  // Shows the engine's checks of the experiment about to start (Run ▸ Start ran them) as the form's own: at
  // the fields and in the list. The next edit checks the form again.
  void showEngineIssues(const std::vector<ValidationIssue>& issues);

  FieldBinding* binding(const std::string& path) const;
  // The bindings that show an issue at `path`: the field itself, the field of the list or section above it,
  // or the first field below it (an issue at optimizer.betas shows at β₁).
  std::vector<FieldBinding*> bindingsFor(const std::string& path) const;
  void focusIssue(const std::string& path);
  LrPreview* lrPreview() const { return m_lrPreview; }
  // Keys of the document the experiment does not have (a typo such as "trian"), from the engine's own checks.
  // No field shows them: the problem list does, with a bar under it to rename each to the suggested key or
  // remove it (an edit like any other: Save writes the fixed key).
  std::vector<UnknownKey> unknownKeys() const;
  bool renameUnknownKeyToSuggestion(const std::string& path);
  bool removeUnknownKey(const std::string& path);
  QWidget* unknownKeyBar() const;

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
  void buildSections();
  void onEdited();
  void loadDocument(const nlohmann::json& doc, bool asSaved);
  void applyKeyFix(const nlohmann::json& doc);
  void updateModified();
  // Which rows show: the fields that apply as the form stands, and those with a message to show.
  void updateRelevance();
  bool applies(const FieldBinding& field) const;
  void showIssues();
  void onChecked(const ExperimentChecks::Result& result);

  std::unique_ptr<FormFields> m_fields;
  std::vector<std::unique_ptr<FormSection>> m_sections;  // in the form's order
  LrPreview* m_lrPreview = nullptr;
  IssueList* m_issueList = nullptr;
  UnknownKeyBar* m_keyBar = nullptr;
  QLabel* m_lockNote = nullptr;
  bool m_locked = false;

  nlohmann::json m_saved;  // what the file on disk holds, to tell whether there are unsaved edits
  bool m_modified = false;

  std::vector<ValidationIssue> m_parseIssues;
  std::vector<ValidationIssue> m_checkIssues;
  std::vector<ValidationIssue> m_issues;
  QTimer m_debounce;
  ExperimentChecks m_checks;
};

}  // namespace wb::gui
