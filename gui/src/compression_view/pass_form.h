#pragma once
// The keys of one compression pass (an item of the experiment's compress.passes) as a form. Each field is
// bound to its key of the pass object, as the experiment editor binds keys of the experiment file; the dialog
// that holds the form runs the engine's checks and hands back each issue for this pass, shown at its field in
// the engine's own words.

#include <QStringList>
#include <QWidget>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "editor/field_binding.h"
#include "workbench/experiment.h"

class QFormLayout;
class QLabel;

namespace wb::gui {

// The engine's defaults for a pass of this type (a PassType word: "prune", "finetune", …), as the experiment
// file writes it.
nlohmann::json defaultPassJson(const std::string& type);
// A few words for lists: "prune: unstructured, 50 %, 1 epoch".
QString describePassJson(const nlohmann::json& pass);
QString passTypeTitle(PassType type);  // "Prune", "Fine-tune", …

class PassForm : public QWidget {
  Q_OBJECT

 public:
  PassForm(const nlohmann::json& pass, QWidget* parent = nullptr);
  ~PassForm() override;

  QString type() const { return m_type; }
  nlohmann::json pass() const;  // {"type": …, every key of the form}
  FieldBinding* binding(const std::string& key) const;
  // What the form itself can tell (text that is not JSON where JSON is expected), with paths in the pass.
  std::vector<ValidationIssue> localIssues() const;

  // Issues of this pass with paths relative to it ("amount", "layer_types[1]", "" for the pass as a whole):
  // each at its field, those no field owns at the top of the form.
  void setIssues(const std::vector<ValidationIssue>& issues);
  QStringList passMessages() const { return m_passMessages; }
  bool hasIssues() const { return m_issueCount > 0; }

 signals:
  void edited();

 private:
  // The fields of each pass type, after which come those every pass has (epochs, steps, learning rate).
  void addPruneFields();
  void addDistillFields();
  void addQuantizeFields();
  FieldBinding* add(const QString& label, std::unique_ptr<FieldBinding> binding, const QString& help);
  FieldBinding* addNumber(const std::string& key, const QString& label, const QString& help);
  FieldBinding* addInteger(const std::string& key, const QString& label, const QString& help,
                           const QString& suffix = QString());
  FieldBinding* addChoice(const std::string& key, const QString& label,
                          const std::vector<std::pair<QString, QString>>& choices, const QString& help);
  // A choice of E's words (workbench/compression_words.h), in its table's order; `titles` names those a
  // bare word would not explain.
  template <typename E>
  FieldBinding* addWordChoice(const std::string& key, const QString& label,
                              const std::vector<std::pair<E, QString>>& titles, const QString& help);
  void updateRelevance();
  QString word(const std::string& key) const;
  // The value of the choice `key` holds; none while it holds no word of E.
  template <typename E>
  std::optional<E> chosen(const std::string& key) const {
    return fromWord<E>(word(key).toStdString());
  }

  QString m_type;
  std::optional<PassType> m_kind;  // m_type's value; none for a word that names no pass type
  QFormLayout* m_form = nullptr;
  QLabel* m_passMessage = nullptr;
  nlohmann::json m_base;
  std::vector<std::unique_ptr<FieldBinding>> m_bindings;
  QStringList m_passMessages;
  int m_issueCount = 0;
};

}  // namespace wb::gui
