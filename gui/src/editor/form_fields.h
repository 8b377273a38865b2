#pragma once
// The experiment form's fields: a tab per section of the file, each a form of labelled rows, every row bound
// to its key (field_binding.h), and the document they edit together. The form's parts (form_section.h) add
// their fields here in the form's order; the editor loads and stores the document through them, finds them by
// path and shows the engine's issues at them.

#include <QCoreApplication>
#include <QObject>
#include <QString>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "editor/field_binding.h"
#include "workbench/word_set.h"

class QFormLayout;
class QTabWidget;
class QWidget;

namespace wb::gui {

class FormFields {
  Q_DECLARE_TR_FUNCTIONS(FormFields)

 public:
  // `owner` is the editor (the file dialogs' parent); `onEdit` runs after each edit typed into a field, not
  // after the loads below.
  FormFields(QWidget* owner, QTabWidget* tabs, std::function<void()> onEdit);
  ~FormFields();
  FormFields(const FormFields&) = delete;
  FormFields& operator=(const FormFields&) = delete;

  // A tab holding the form of one section of the file ("data", "train").
  QFormLayout* addSection(const QString& title, const QString& section);
  // The section's form; null when the section has no tab.
  QFormLayout* sectionForm(const std::string& section) const;

  // An empty label: the field spans the form's width and names itself (the parameter-groups table).
  FieldBinding* add(QFormLayout* form, const QString& label, std::unique_ptr<FieldBinding> binding,
                    const QString& help);
  FieldBinding* addText(QFormLayout* form, const std::string& path, const QString& label,
                        const QString& help);
  // A path typed or browsed for: a folder or a file, or a file where `fileInstead` says so as Browse… is
  // clicked (the CSV dataset's file where the other datasets have a folder).
  FieldBinding* addPath(QFormLayout* form, const std::string& path, const QString& label, const QString& help,
                        bool directory, const QString& filter = QString(),
                        std::function<bool()> fileInstead = nullptr);
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

  const std::vector<std::unique_ptr<FieldBinding>>& bindings() const { return m_bindings; }
  FieldBinding* binding(const std::string& path) const;
  // The fields that show an issue at `path`: the field itself, the field of the list or section above it,
  // or the first field below it (an issue at optimizer.betas shows at β₁).
  std::vector<FieldBinding*> bindingsFor(const std::string& path) const;
  QString word(const std::string& path) const;  // the current value of a choice field
  QFormLayout* formOf(const FieldBinding* binding) const { return m_formOf.at(binding); }

  // The document as loaded, with the defaults filled in: it keeps the keys no field edits.
  void setBase(nlohmann::json base) { m_base = std::move(base); }
  // The base with every field's value stored over it.
  nlohmann::json document() const;
  // Runs `load` without reporting the fields' change signals as edits: a load, or an edit that its caller
  // reports once.
  void quietly(const std::function<void()>& load);
  // What a field's change calls: the editor's onEdit, unless quiet.
  void reportEdit();

  // Each issue at its fields (their messages, the table cells at fault) and a warning on the tabs that have
  // any.
  void showIssues(const std::vector<ValidationIssue>& issues);
  // Brings the field's tab forward, scrolls to it and focuses the part `path` names.
  void focusField(FieldBinding* binding, const std::string& path);
  // Each field's row (its input, Browse button, message), not the tabs: a locked form still scrolls and
  // reads.
  void setLocked(bool locked);

 private:
  QWidget* m_owner;
  QTabWidget* m_tabs;
  std::function<void()> m_onEdit;
  bool m_quiet = false;
  std::vector<std::unique_ptr<FieldBinding>> m_bindings;
  std::map<const FieldBinding*, QFormLayout*> m_formOf;
  std::map<std::string, QFormLayout*> m_sectionForms;
  std::map<std::string, int> m_sectionTabs;
  nlohmann::json m_base;
  // The context of the Browse buttons' connections: the buttons outlive the fields (the editor owns them).
  QObject m_alive;
};

}  // namespace wb::gui
