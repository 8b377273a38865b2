#include "editor/experiment_editor.h"

#include <QFormLayout>
#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

#include "editor/data_section.h"
#include "editor/fine_tuning_fields.h"
#include "editor/form_fields.h"
#include "editor/issue_list.h"
#include "editor/json_path.h"
#include "editor/lr_preview.h"
#include "editor/model_source_fields.h"
#include "editor/optimizer_section.h"
#include "editor/output_section.h"
#include "editor/schedule_section.h"
#include "editor/schema_fields.h"
#include "editor/top_level_fields.h"
#include "editor/training_section.h"
#include "editor/unknown_key_bar.h"
#include "workbench/experiment_defaults.h"
#include "workbench/experiment_keys.h"

namespace wb::gui {
namespace {

constexpr int kEditorDebounceMs = 150;

// Shorthands such as "augment": true become objects, so every key has exactly one field.
nlohmann::json expandShorthands(nlohmann::json doc) {
  if (!doc.is_object()) return nlohmann::json::object();
  for (const auto& [section, key] : {std::pair<const char*, const char*>{"data", "augment"},
                                     {"train", "early_stopping"},
                                     {"train", "pipeline"}}) {
    auto s = doc.find(section);
    if (s == doc.end() || !s->is_object()) continue;
    auto k = s->find(key);
    if (k != s->end() && k->is_boolean()) *k = nlohmann::json{{"enabled", k->get<bool>()}};
  }
  return doc;
}

}  // namespace

ExperimentEditor::ExperimentEditor(QWidget* parent)
    : QWidget(parent), m_checks([this](const ExperimentChecks::Result& result) { onChecked(result); }) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(4, 4, 4, 4);
  outer->setSpacing(4);
  // Placed after the fields above them: Tab goes from the name and seed into the tabs.
  auto* tabs = new QTabWidget;
  tabs->setDocumentMode(true);
  m_fields = std::make_unique<FormFields>(this, tabs, [this] { onEdited(); });

  auto* header = new QVBoxLayout;
  outer->addLayout(header);
  m_sections.push_back(std::make_unique<TopLevelFields>(*m_fields, header));

  m_lockNote = new QLabel(this);
  m_lockNote->setObjectName(QStringLiteral("runningNote"));
  m_lockNote->setWordWrap(true);
  m_lockNote->setFrameShape(QFrame::StyledPanel);
  m_lockNote->setMargin(4);
  m_lockNote->setVisible(false);
  outer->insertWidget(0, m_lockNote);

  outer->addWidget(tabs, 1);
  buildSections();

  m_lrPreview = new LrPreview(this);
  outer->addWidget(m_lrPreview);

  // The problems under the form: the status line, the list that leads to each, and the unknown key's fix bar.
  m_issueList = new IssueList(this, outer);
  connect(m_issueList, &IssueList::issueChosen, this,
          [this](const QString& path) { focusIssue(path.toStdString()); });
  m_keyBar = new UnknownKeyBar(this);
  outer->addWidget(m_keyBar);
  connect(m_keyBar, &UnknownKeyBar::renameRequested, this,
          [this](const QString& path) { renameUnknownKeyToSuggestion(path.toStdString()); });
  connect(m_keyBar, &UnknownKeyBar::removeRequested, this,
          [this](const QString& path) { removeUnknownKey(path.toStdString()); });

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(kEditorDebounceMs);
  connect(&m_debounce, &QTimer::timeout, this, &ExperimentEditor::validateNow);

  setDocument(experimentToJson(Experiment{}));
}

ExperimentEditor::~ExperimentEditor() = default;

// The tabs in the file's order; the Model tab holds two groups of keys: where the model comes from, and
// what it starts from and how it is fine-tuned.
void ExperimentEditor::buildSections() {
  m_sections.push_back(std::make_unique<DataSection>(*m_fields));
  QFormLayout* model = m_fields->addSection(tr("Model"), QStringLiteral("model"));
  m_sections.push_back(std::make_unique<ModelSourceFields>(*m_fields, model));
  m_sections.push_back(std::make_unique<FineTuningFields>(*m_fields, model));
  m_sections.push_back(std::make_unique<OptimizerSection>(*m_fields));
  m_sections.push_back(std::make_unique<ScheduleSection>(*m_fields));
  m_sections.push_back(std::make_unique<TrainingSection>(*m_fields));
  m_sections.push_back(std::make_unique<OutputSection>(*m_fields));
  // Keys the engine has that the parts above have no dedicated widget for yet still get a field.
  m_sections.push_back(std::make_unique<SchemaFields>(*m_fields));
}

FieldBinding* ExperimentEditor::binding(const std::string& path) const {
  return m_fields->binding(path);
}

std::vector<FieldBinding*> ExperimentEditor::bindingsFor(const std::string& path) const {
  return m_fields->bindingsFor(path);
}

QWidget* ExperimentEditor::unknownKeyBar() const {
  return m_keyBar;
}

void ExperimentEditor::setDocument(const nlohmann::json& doc) {
  loadDocument(doc, /*asSaved=*/true);
}

void ExperimentEditor::loadDocument(const nlohmann::json& doc, bool asSaved) {
  m_fields->quietly([&] {
    const nlohmann::json normalized = expandShorthands(doc);
    // Missing keys take their defaults; keys the file gives (right or wrong) are shown as written.
    nlohmann::json full = experimentToJson(parseExperiment(normalized).experiment);
    full.merge_patch(normalized);
    m_fields->setBase(full);
    nlohmann::json forFields = full;
    for (const auto& section : m_sections) section->beforeLoad(full, forFields);
    for (const auto& b : m_fields->bindings()) b->load(forFields);
    for (const auto& section : m_sections) section->afterLoad();
    if (asSaved) m_saved = document();
  });
  updateModified();
  updateRelevance();
  validateNow();
}

void ExperimentEditor::updateModified() {
  const bool modified = document() != m_saved;
  if (modified == m_modified) return;
  m_modified = modified;
  emit modifiedChanged(modified);
}

std::vector<UnknownKey> ExperimentEditor::unknownKeys() const {
  std::vector<UnknownKey> keys;
  for (const ValidationIssue& issue : m_parseIssues) {
    if (std::optional<UnknownKey> key = unknownKeyOf(issue)) keys.push_back(*key);
  }
  return keys;
}

bool ExperimentEditor::renameUnknownKeyToSuggestion(const std::string& path) {
  for (const UnknownKey& key : unknownKeys()) {
    if (key.path != path || key.suggestion.empty()) continue;
    applyKeyFix(renameUnknownKey(document(), key, key.suggestion));
    return true;
  }
  return false;
}

bool ExperimentEditor::removeUnknownKey(const std::string& path) {
  for (const UnknownKey& key : unknownKeys()) {
    if (key.path != path) continue;
    applyKeyFix(gui::removeUnknownKey(document(), key));
    return true;
  }
  return false;
}

void ExperimentEditor::applyKeyFix(const nlohmann::json& doc) {
  // An edit like a typed one: the file on disk keeps the typo until Save.
  loadDocument(doc, /*asSaved=*/false);
  emit edited();
}

nlohmann::json ExperimentEditor::document() const {
  return m_fields->document();
}

bool ExperimentEditor::setValue(const std::string& path, const nlohmann::json& value) {
  FieldBinding* field = binding(path);
  // A key edited by the field of its section (train.pipeline.stages: the pipeline's table).
  for (const auto& b : m_fields->bindings()) {
    if (field == nullptr && pathIsUnder(path, b->path())) field = b.get();
  }
  if (m_locked || !field) return false;
  nlohmann::json doc = document();
  setJsonAt(doc, path, value);
  // The field's own change signal would report the edit too: it is reported once, below.
  m_fields->quietly([&] { field->load(doc); });
  onEdited();
  return true;
}

void ExperimentEditor::markSaved() {
  m_saved = document();
  if (m_modified) {
    m_modified = false;
    emit modifiedChanged(false);
  }
}

QString ExperimentEditor::runsDir() const {
  const nlohmann::json doc = document();
  const nlohmann::json* dir = jsonAt(doc, "output.runs_dir");
  return dir && dir->is_string() ? QString::fromStdString(dir->get<std::string>()) : QString();
}

std::optional<Experiment> ExperimentEditor::experiment() const {
  for (const auto& b : m_fields->bindings())
    if (b->isActive() && !b->localIssues().empty()) return std::nullopt;
  ParseResult parsed = parseExperiment(document());
  if (!parsed.ok()) return std::nullopt;
  return parsed.experiment;
}

void ExperimentEditor::onEdited() {
  for (const auto& section : m_sections) section->afterEdit();
  updateRelevance();
  updateModified();
  emit edited();
  m_debounce.start();
}

void ExperimentEditor::updateRelevance() {
  for (const auto& b : m_fields->bindings()) {
    const bool show = applies(*b) || !b->messages().isEmpty();
    m_fields->formOf(b.get())->setRowVisible(b->row(), show);
  }
  for (const auto& section : m_sections) section->updateInputs();
}

bool ExperimentEditor::applies(const FieldBinding& field) const {
  for (const auto& section : m_sections) {
    if (const std::optional<bool> decided = section->applies(field)) return *decided;
  }
  // As the schema says (experiment_keys.h: optimizer.betas while optimizer.name is adam or adamw, ...).
  const ExperimentKey* key = findExperimentKey(field.path());
  if (key == nullptr || key->applies_when.path.empty()) return true;
  return key->applies_when.heldBy(m_fields->word(key->applies_when.path).toStdString());
}

void ExperimentEditor::validateNow() {
  m_debounce.stop();
  m_parseIssues.clear();
  for (const auto& b : m_fields->bindings()) {
    if (!b->isActive()) continue;  // a layer list being drafted while a preset is chosen is not an error
    for (const ValidationIssue& issue : b->localIssues()) m_parseIssues.push_back(issue);
  }
  const nlohmann::json doc = document();
  const ParseResult parsed = parseExperiment(doc);
  m_parseIssues.insert(m_parseIssues.end(), parsed.issues.begin(), parsed.issues.end());
  // Each field left at its default says so; the defaults follow the keys they depend on (the optimizer's lr).
  const nlohmann::json defaults = experimentDefaults(doc);
  for (const auto& b : m_fields->bindings()) b->showDefault(doc, defaults);
  if (m_parseIssues.empty()) {
    m_checks.start(parsed.experiment);
  } else {
    m_checks.drop();
    m_checkIssues.clear();
    m_lrPreview->setUnavailable(tr("Fix the marked fields to see the schedule"));
  }
  showIssues();
}

void ExperimentEditor::onChecked(const ExperimentChecks::Result& result) {
  m_checkIssues = result.issues;
  if (result.curve) {
    const std::optional<Experiment> e = experiment();
    m_lrPreview->setCurve(*result.curve, e ? e->schedule.warmup_steps : 0,
                          e && e->schedule.name == ScheduleName::Plateau);
  } else {
    m_lrPreview->setUnavailable(tr("No preview: %1").arg(result.curveError));
  }
  showIssues();
}

void ExperimentEditor::showEngineIssues(const std::vector<ValidationIssue>& issues) {
  m_checkIssues = issues;
  showIssues();
}

void ExperimentEditor::showIssues() {
  m_issues = m_parseIssues;
  m_issues.insert(m_issues.end(), m_checkIssues.begin(), m_checkIssues.end());
  m_fields->showIssues(m_issues);
  const std::vector<UnknownKey> unknown = unknownKeys();
  m_issueList->show(m_issues, static_cast<int>(unknown.size()), checksPending());
  m_keyBar->offer(unknown);
  updateRelevance();
  emit validated();
}

void ExperimentEditor::focusIssue(const std::string& path) {
  for (const UnknownKey& key : unknownKeys()) {
    if (key.path != path) continue;
    m_keyBar->focusKey(key);
    return;
  }
  const std::vector<FieldBinding*> targets = bindingsFor(path);
  if (!targets.empty()) m_fields->focusField(targets.front(), path);
}

void ExperimentEditor::setLocked(const QString& note) {
  m_locked = !note.isEmpty();
  m_lockNote->setText(note);
  m_lockNote->setVisible(m_locked);
  m_fields->setLocked(m_locked);
  for (const auto& section : m_sections) section->setLocked(m_locked);
  m_keyBar->setEnabled(!m_locked);
}

}  // namespace wb::gui
