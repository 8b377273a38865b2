#include "window/experiment_document.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QWidget>
#include <fstream>

#include "app/action_table.h"
#include "editor/experiment_editor.h"
#include "editor/field_binding.h"
#include "window/examples_menu.h"
#include "window/new_from_pretrained_dialog.h"
#include "window/recent_files.h"
#include "workbench/experiment.h"
#include "workbench/run_info.h"

namespace wb::gui {
namespace {

// "\"trian\", \"train.epocs\"" for the save message.
QString unknownKeysText(const std::vector<UnknownKey>& keys) {
  QStringList quoted;
  for (const UnknownKey& key : keys) quoted << QStringLiteral("\"%1\"").arg(QString::fromStdString(key.path));
  return quoted.join(QStringLiteral(", "));
}

// The file's JSON, or a discarded value when it is missing or not JSON.
nlohmann::json readJson(const QString& file) {
  std::ifstream in(file.toStdString());
  if (!in) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

}  // namespace

ExperimentDocument::ExperimentDocument(ExperimentEditor* editor, QWidget* window, ErrorPresenter presentError)
    : QObject(window), m_editor(editor), m_window(window), m_presentError(std::move(presentError)) {
  using K = QKeySequence;
  makeActions(this, {
                        {&m_new,
                         "new",
                         tr("&New"),
                         {K::New},
                         tr("Start from the default experiment"),
                         [this] { newExperiment(); }},
                        {&m_newFromPretrained,
                         {},
                         tr("New from &Pretrained…"),
                         {},
                         tr("Fine-tune a torchvision architecture on your image folder, from a weights file"),
                         [this] { newFromPretrained(); },
                         QStringLiteral("newFromPretrained")},
                        {&m_open, "open", tr("&Open…"), {K::Open}, {}, [this] { openDialog(); }},
                        {&m_save, "save", tr("&Save"), {K::Save}, {}, [this] { save(); }},
                        {&m_saveAs, "save-as", tr("Save &As…"), {K::SaveAs}, {}, [this] { saveAs(); }},
                    });
  // New from Example: the example opens as a new, unsaved experiment (Save asks where; the installed file
  // stays).
  m_examples = new ExamplesMenu(window);
  connect(m_examples, &ExamplesMenu::exampleFailed, this,
          [this](const QString& message, const QString& hint) {
            m_presentError(tr("Could not open the example"), message, hint);
          });
  connect(m_examples, &ExamplesMenu::exampleChosen, this,
          [this](const QString& title, const nlohmann::json& doc) {
            if (!confirmDiscard()) return;
            load(doc, QString());
            emit broughtIn(
                tr("The example “%1” is in the editor, unsaved: File ▸ Save As… keeps your copy").arg(title));
          });
  m_recentMenu = new QMenu(tr("Open &Recent"), window);
  m_recent = new RecentFiles(m_recentMenu, this);
  connect(m_recent, &RecentFiles::fileChosen, this, [this](const QString& f) {
    if (confirmDiscard()) openFile(f);
  });
  connect(m_editor, &ExperimentEditor::modifiedChanged, this, &ExperimentDocument::updateTitle);
  connect(m_editor, &ExperimentEditor::validated, this, &ExperimentDocument::updateTitle);
  updateTitle();
}

void ExperimentDocument::load(const nlohmann::json& doc, const QString& file) {
  m_editor->setDocument(doc);
  m_file = file;
  if (!m_file.isEmpty()) m_recent->add(m_file);
  updateTitle();
}

void ExperimentDocument::newExperiment() {
  if (!confirmDiscard()) return;
  load(experimentToJson(Experiment{}), QString());
}

void ExperimentDocument::newFromPretrained() {
  auto* dialog = new NewFromPretrainedDialog(m_window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    if (m_editor->isLocked()) {  // a run started while the dialog was open
      m_presentError(tr("A run is training"),
                     tr("The form shows the experiment being trained until the run ends."),
                     tr("Use File ▸ New from Pretrained… again once this run has ended."));
      return;
    }
    if (!confirmDiscard()) return;
    const Experiment experiment = dialog->experiment();
    load(experimentToJson(experiment), QString());
    emit broughtIn(tr("A fine-tune of %1 on %2 is in the editor, unsaved: File ▸ Save As… keeps it")
                       .arg(QString::fromStdString(experiment.model.preset),
                            QDir::toNativeSeparators(QString::fromStdString(experiment.data.path))));
  });
  // Window-modal, not exec(): the window's event loop goes on (and a test can fill the dialog).
  dialog->open();
}

void ExperimentDocument::openDialog() {
  if (!confirmDiscard()) return;
  const QString file = QFileDialog::getOpenFileName(
      m_window, tr("Open experiment"), m_file.isEmpty() ? QDir::currentPath() : QFileInfo(m_file).path(),
      tr("Experiment files (*.json);;All files (*)"));
  if (!file.isEmpty()) openFile(file);
}

bool ExperimentDocument::openFile(const QString& file) {
  const nlohmann::json doc = readJson(file);
  if (doc.is_discarded()) {
    // The engine's own reader words what is wrong with the file (missing, not JSON, where).
    const ParseResult result = loadExperimentFile(file.toStdString());
    const QString why = result.issues.empty() ? tr("The file could not be read.")
                                              : QString::fromStdString(result.issues.front().message);
    m_presentError(tr("Could not open %1").arg(QFileInfo(file).fileName()), why,
                   tr("Check the path, or fix the JSON (no comments, no trailing commas)."));
    return false;
  }
  load(doc, QFileInfo(file).absoluteFilePath());
  emit statusMessage(tr("Opened %1").arg(QDir::toNativeSeparators(m_file)), 4000);
  return true;
}

void ExperimentDocument::cloneRun(const QString& folder) {
  if (m_editor->isLocked()) {
    m_presentError(tr("A run is training"),
                   tr("The form shows the experiment being trained until the run ends."),
                   tr("Clone the run once this one has ended (or stop it with Run ▸ Stop)."));
    return;
  }
  const QString file = QDir(folder).filePath(QStringLiteral("experiment.json"));
  const nlohmann::json doc = readJson(file);
  if (doc.is_discarded()) {
    m_presentError(tr("Could not clone the run"),
                   tr("%1 is missing or not valid JSON.").arg(QDir::toNativeSeparators(file)),
                   tr("Choose a run folder made by the workbench."));
    return;
  }
  if (!confirmDiscard()) return;
  load(doc, QString());
  emit broughtIn(tr("The experiment of %1 is in the editor, unsaved").arg(QDir(folder).dirName()));
}

void ExperimentDocument::showResumedRun(const QString& folder) {
  // The form, locked while the run trains, should describe what trains. Unsaved edits are only replaced with
  // the user's consent; a run folder without a readable experiment.json is the resume's to report.
  const nlohmann::json doc = readJson(QDir(folder).filePath(QStringLiteral("experiment.json")));
  if (doc.is_discarded() || m_editor->isLocked() || !confirmDiscard()) return;
  load(doc, QString());
  emit broughtIn(tr("The experiment of %1, resuming, is in the editor").arg(QDir(folder).dirName()));
}

bool ExperimentDocument::saveFile(const QString& file) {
  QSaveFile out(file);
  const std::string text = m_editor->document().dump(2) + "\n";
  if (!out.open(QIODevice::WriteOnly) || out.write(text.data(), static_cast<qint64>(text.size())) < 0 ||
      !out.commit()) {
    m_presentError(tr("Could not save %1").arg(QFileInfo(file).fileName()), out.errorString(),
                   tr("Choose a folder you can write to (File ▸ Save As…)."));
    return false;
  }
  m_file = QFileInfo(file).absoluteFilePath();
  m_editor->markSaved();
  m_recent->add(m_file);
  updateTitle();
  emit statusMessage(tr("Saved %1").arg(QDir::toNativeSeparators(m_file)), 4000);
  if (const QString unknown = unknownKeysText(m_editor->unknownKeys()); !unknown.isEmpty()) {
    // Saved as asked (work in progress is worth keeping), but never silently with keys the engine refuses.
    emit savedWithUnknownKeys(
        tr("Saved %1 with unknown key(s) %2: the engine refuses the file until they are renamed or "
           "removed (the bar under the problem list does either).")
            .arg(QFileInfo(m_file).fileName(), unknown));
  }
  return true;
}

bool ExperimentDocument::save() {
  return m_file.isEmpty() ? saveAs() : saveFile(m_file);
}

bool ExperimentDocument::saveAs() {
  QString suggested = m_file;
  if (suggested.isEmpty()) {
    const nlohmann::json doc = m_editor->document();
    const std::string name = doc.value("name", std::string("experiment"));
    suggested = QDir::current().filePath(QString::fromStdString(name) + QStringLiteral(".json"));
  }
  QString file = QFileDialog::getSaveFileName(m_window, tr("Save experiment"), suggested,
                                              tr("Experiment files (*.json);;All files (*)"));
  if (file.isEmpty()) return false;
  if (QFileInfo(file).suffix().isEmpty()) file += QStringLiteral(".json");
  return saveFile(file);
}

bool ExperimentDocument::confirmDiscard() {
  if (!m_editor->isModified()) return true;
  const auto answer = QMessageBox::warning(
      m_window, tr("Unsaved changes"), tr("The experiment has changes that are not saved."),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void ExperimentDocument::setChangeAllowed(bool allowed) {
  for (QAction* a : {m_new, m_newFromPretrained, m_open, m_recentMenu->menuAction()}) a->setEnabled(allowed);
}

void ExperimentDocument::updateTitle() {
  const nlohmann::json doc = m_editor->document();
  const nlohmann::json name = doc.value("name", nlohmann::json());
  const QString shown = m_file.isEmpty() ? tr("Untitled") : QFileInfo(m_file).fileName();
  QString title = shown + QStringLiteral("[*]");
  if (name.is_string() && !name.get<std::string>().empty()) {
    title += QStringLiteral(" (%1)").arg(QString::fromStdString(name.get<std::string>()));
  }
  m_window->setWindowTitle(title + QStringLiteral(" — Torch Workbench"));
  m_window->setWindowModified(m_editor->isModified());
  updateNamePlaceholder();
}

void ExperimentDocument::updateNamePlaceholder() {
  FieldBinding* binding = m_editor->binding("name");
  auto* edit = binding ? qobject_cast<QLineEdit*>(binding->input()) : nullptr;
  if (!edit) return;
  // What a run of this experiment would be called, as the runs folder will number it.
  const std::optional<Experiment> experiment = m_editor->experiment();
  edit->setPlaceholderText(experiment ? tr("empty: named after the model and data (%1-0001, -0002, …)")
                                            .arg(QString::fromStdString(experimentRunName(*experiment)))
                                      : tr("empty: named after the model and data"));
}

}  // namespace wb::gui
