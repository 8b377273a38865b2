#pragma once
// A form field bound to one path of the experiment document: it loads its widget from the document, stores
// the widget's value back, and shows the engine's validation messages for its path inline, under the widget.
// Values the widget cannot read are stored as typed (text stays text), so the engine — not the form — says
// what is wrong, in the same words as the CLI.

#include <QStringList>
#include <QWidget>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workbench/experiment.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace wb::gui {

class FieldBinding {
 public:
  FieldBinding(std::string path, QWidget* input);
  virtual ~FieldBinding() = default;
  FieldBinding(const FieldBinding&) = delete;
  FieldBinding& operator=(const FieldBinding&) = delete;

  const std::string& path() const { return m_path; }
  QWidget* input() const { return m_input; }  // the widget that takes focus
  QWidget* row() const { return m_row; }  // what the form lays out: the input (and extras) over the message
  QLabel* messageLabel() const { return m_message; }

  void load(const nlohmann::json& doc);
  // Writes the field's value at its path. A field that edits some keys of a section (the pipeline's table)
  // writes only those: the section's other keys have fields of their own.
  virtual void store(nlohmann::json& doc) const;
  // Problems the engine cannot report because the text does not even reach it as JSON (layer list syntax).
  virtual std::vector<ValidationIssue> localIssues() const { return {}; }
  // The issues shown at this field, with their paths: a field made of parts (a table's rows) marks the part
  // at fault. The messages under the field come apart, through setMessages.
  virtual void markIssues(const std::vector<ValidationIssue>& issues) { (void)issues; }
  // Focus for an issue at `issuePath` (this field's path or one below it): the input, or the part at fault.
  virtual void focusPart(const std::string& issuePath) {
    (void)issuePath;
    m_input->setFocus(Qt::OtherFocusReason);
  }

  void setMessages(const QStringList& messages);
  QStringList messages() const { return m_messages; }

  // A grey "default" beside the input while the field's value in `doc` equals the one in `defaults` (the
  // engine's experimentDefaults(doc): torch's where torch has one, such as the chosen optimizer's lr).
  void showDefault(const nlohmann::json& doc, const nlohmann::json& defaults);
  bool isAtDefault() const { return m_atDefault; }
  QLabel* defaultMark() const { return m_defaultMark; }

  // When the predicate says the field does not apply (a layer list while a preset is chosen), `value` is
  // stored instead of the widget's content.
  void setInactiveValue(std::function<bool()> isActive, nlohmann::json value);
  bool isActive() const { return !m_isActive || m_isActive(); }
  // Adds a widget beside the input (a "Browse…" button).
  void addBeside(QWidget* widget);
  void setOnChange(std::function<void()> onChange) { m_onChange = std::move(onChange); }

 protected:
  virtual void loadValue(const nlohmann::json& value) = 0;  // value is null when the key is absent
  virtual nlohmann::json storeValue() const = 0;
  void changed();
  // A value of the wrong type from a file is kept as it was until the user edits the field.
  std::optional<nlohmann::json> m_raw;

 private:
  std::string m_path;
  QWidget* m_input;
  QWidget* m_row;
  QLabel* m_message;
  QLabel* m_defaultMark;
  bool m_atDefault = false;
  QStringList m_messages;
  std::function<bool()> m_isActive;
  nlohmann::json m_inactiveValue;
  std::function<void()> m_onChange;
};

// Free text: names, paths.
class TextBinding : public FieldBinding {
 public:
  TextBinding(std::string path, QLineEdit* edit);

 protected:
  void loadValue(const nlohmann::json& value) override;
  nlohmann::json storeValue() const override;

 private:
  QLineEdit* m_edit;
};

// Numbers typed as text so 1e-3 and 3e-4 read naturally; what does not parse is passed on as a string.
class NumberBinding : public FieldBinding {
 public:
  NumberBinding(std::string path, QLineEdit* edit);

 protected:
  void loadValue(const nlohmann::json& value) override;
  nlohmann::json storeValue() const override;

 private:
  QLineEdit* m_edit;
};

class IntegerBinding : public FieldBinding {
 public:
  IntegerBinding(std::string path, QSpinBox* spin);

 protected:
  void loadValue(const nlohmann::json& value) override;
  nlohmann::json storeValue() const override;

 private:
  QSpinBox* m_spin;
};

class BoolBinding : public FieldBinding {
 public:
  BoolBinding(std::string path, QCheckBox* check);

 protected:
  void loadValue(const nlohmann::json& value) override;
  nlohmann::json storeValue() const override;

 private:
  QCheckBox* m_check;
};

// One of the engine's allowed words; a word from a file that is not among them is added so the engine can say
// "did you mean".
class ChoiceBinding : public FieldBinding {
 public:
  ChoiceBinding(std::string path, QComboBox* combo);

 protected:
  void loadValue(const nlohmann::json& value) override;
  nlohmann::json storeValue() const override;

 private:
  QComboBox* m_combo;
};

// A list typed without brackets: "3000, 6000" or "1, 28, 28".
class ListBinding : public FieldBinding {
 public:
  ListBinding(std::string path, QLineEdit* edit);

 protected:
  void loadValue(const nlohmann::json& value) override;
  nlohmann::json storeValue() const override;

 private:
  QLineEdit* m_edit;
};

// Any JSON value as text (the layer list, and settings the form has no dedicated widget for).
class JsonBinding : public FieldBinding {
 public:
  JsonBinding(std::string path, QPlainTextEdit* edit);
  JsonBinding(std::string path, QLineEdit* edit);
  std::vector<ValidationIssue> localIssues() const override;

 protected:
  void loadValue(const nlohmann::json& value) override;
  nlohmann::json storeValue() const override;

 private:
  QString text() const;
  QPlainTextEdit* m_plain = nullptr;
  QLineEdit* m_line = nullptr;
};

}  // namespace wb::gui
