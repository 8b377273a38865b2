#include "editor/field_binding.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

#include "editor/json_path.h"
#include "widgets/wheel_guard.h"
#include "workbench/experiment_keys.h"

namespace wb::gui {
namespace {

QString fromStd(const std::string& s) {
  return QString::fromStdString(s);
}

// Text that is valid JSON becomes that value; anything else stays the string the user typed.
nlohmann::json parseOrString(const QString& text) {
  const std::string s = text.trimmed().toStdString();
  nlohmann::json value = nlohmann::json::parse(s, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return s;
  return value;
}

QString compact(const nlohmann::json& value) {
  return value.is_string() ? fromStd(value.get<std::string>()) : fromStd(value.dump());
}

}  // namespace

FieldBinding::FieldBinding(std::string path, QWidget* input)
    : m_path(std::move(path)),
      m_input(input),
      m_row(new QWidget),
      m_message(new QLabel),
      m_defaultMark(new QLabel) {
  m_row->setObjectName(fromStd(m_path) + QStringLiteral("#row"));
  auto* column = new QVBoxLayout(m_row);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(1);
  auto* line = new QHBoxLayout;
  line->setContentsMargins(0, 0, 0, 0);
  line->addWidget(input, 1);
  m_defaultMark->setObjectName(QStringLiteral("defaultMark"));
  m_defaultMark->setText(QObject::tr("default"));
  m_defaultMark->setForegroundRole(QPalette::PlaceholderText);
  m_defaultMark->setVisible(false);
  line->addWidget(m_defaultMark);
  column->addLayout(line);
  m_message->setObjectName(QStringLiteral("fieldMessage"));
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_message->setVisible(false);
  column->addWidget(m_message);
  input->setObjectName(fromStd(m_path));
  guardWheel(input);
  if (auto* combo = qobject_cast<QComboBox*>(input)) {
    // A chooser as narrow as the form's column allows (its longest word elided): the form never needs a
    // horizontal scroll bar, which hid the fields' "default" marks on a laptop screen.
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(8);
  }
}

void FieldBinding::addBeside(QWidget* widget) {
  auto* column = static_cast<QVBoxLayout*>(m_row->layout());
  static_cast<QHBoxLayout*>(column->itemAt(0)->layout())->addWidget(widget);
}

void FieldBinding::load(const nlohmann::json& doc) {
  const nlohmann::json* value = jsonAt(doc, m_path);
  m_raw.reset();
  loadValue(value ? *value : nlohmann::json());
}

void FieldBinding::store(nlohmann::json& doc) const {
  if (m_isActive && !m_isActive()) {
    setJsonAt(doc, m_path, m_inactiveValue);
  } else {
    setJsonAt(doc, m_path, m_raw ? *m_raw : storeValue());
  }
}

void FieldBinding::showDefault(const nlohmann::json& doc, const nlohmann::json& defaults) {
  const nlohmann::json* value = jsonAt(doc, m_path);
  const nlohmann::json* def = jsonAt(defaults, m_path);
  // nlohmann compares numbers by value across integer and float, so a spin box's 15 matches 15.0.
  m_atDefault = value && def && *value == *def;
  m_defaultMark->setVisible(m_atDefault);
  m_defaultMark->setToolTip(
      def ? QObject::tr(
                "The default, %1: what runs when the experiment file does not write %2. Where PyTorch "
                "has a default (torch.optim's options, no augmentation, no scheduler), it is PyTorch's.")
                .arg(compact(*def), fromStd(m_path))
          : QString());
}

void FieldBinding::setInactiveValue(std::function<bool()> isActive, nlohmann::json value) {
  m_isActive = std::move(isActive);
  m_inactiveValue = std::move(value);
}

void FieldBinding::changed() {
  m_raw.reset();
  if (m_onChange) m_onChange();
}

void FieldBinding::setMessages(const QStringList& messages) {
  m_messages = messages;
  if (messages.isEmpty()) {
    m_message->clear();
    m_message->setVisible(false);
    m_input->setToolTip(m_input->property("help").toString());
    return;
  }
  const bool dark = m_row->palette().color(QPalette::Base).lightness() < 128;
  const QString color = dark ? QStringLiteral("#ff8a80") : QStringLiteral("#c62828");
  QStringList escaped;
  for (const QString& m : messages) escaped << m.toHtmlEscaped();
  m_message->setText(QStringLiteral("<span style=\"color:%1\">⚠ %2</span>")
                         .arg(color, escaped.join(QStringLiteral("<br>⚠ "))));
  m_message->setVisible(true);
}

// --- TextBinding

TextBinding::TextBinding(std::string path, QLineEdit* edit)
    : FieldBinding(std::move(path), edit), m_edit(edit) {
  QObject::connect(edit, &QLineEdit::textEdited, edit, [this] { changed(); });
}

void TextBinding::loadValue(const nlohmann::json& value) {
  if (value.is_string()) {
    m_edit->setText(fromStd(value.get<std::string>()));
  } else {
    m_edit->setText(value.is_null() ? QString() : fromStd(value.dump()));
    if (!value.is_null()) m_raw = value;
  }
}

nlohmann::json TextBinding::storeValue() const {
  return m_edit->text().toStdString();
}

// --- NumberBinding

NumberBinding::NumberBinding(std::string path, QLineEdit* edit)
    : FieldBinding(std::move(path), edit), m_edit(edit) {
  QObject::connect(edit, &QLineEdit::textEdited, edit, [this] { changed(); });
}

void NumberBinding::loadValue(const nlohmann::json& value) {
  // dump() writes the shortest text that reads back to the same double: 0.001, 1e-08, 42.
  m_edit->setText(value.is_null() ? QString() : compact(value));
}

nlohmann::json NumberBinding::storeValue() const {
  return parseOrString(m_edit->text());
}

// --- IntegerBinding

IntegerBinding::IntegerBinding(std::string path, QSpinBox* spin)
    : FieldBinding(std::move(path), spin), m_spin(spin) {
  // The range the engine accepts, from the schema: the field cannot hold a value the engine refuses (the
  // workers once went to -1 under the wheel, and Start was refused).
  const ExperimentKey* key = findExperimentKey(FieldBinding::path());
  const int64_t low = key ? key->minimum : std::numeric_limits<int>::min();
  const int64_t high = key ? key->maximum : std::numeric_limits<int>::max();
  spin->setRange(static_cast<int>(std::clamp<int64_t>(low, std::numeric_limits<int>::min(),
                                                      std::numeric_limits<int>::max())),
                 static_cast<int>(std::clamp<int64_t>(high, std::numeric_limits<int>::min(),
                                                      std::numeric_limits<int>::max())));
  spin->setGroupSeparatorShown(true);
  spin->setAccelerated(true);
  QObject::connect(spin, qOverload<int>(&QSpinBox::valueChanged), spin, [this] { changed(); });
}

void IntegerBinding::loadValue(const nlohmann::json& value) {
  const QSignalBlocker block(m_spin);
  if (value.is_number_integer() && value.get<int64_t>() >= m_spin->minimum() &&
      value.get<int64_t>() <= m_spin->maximum()) {
    m_spin->setValue(static_cast<int>(value.get<int64_t>()));
  } else if (value.is_number_float() &&
             value.get<double>() == static_cast<double>(static_cast<int64_t>(value.get<double>()))) {
    m_spin->setValue(static_cast<int>(value.get<double>()));  // "3.0" is an integer to the engine too
  } else if (!value.is_null()) {
    m_raw = value;
  }
}

nlohmann::json IntegerBinding::storeValue() const {
  return static_cast<int64_t>(m_spin->value());
}

// --- BoolBinding

BoolBinding::BoolBinding(std::string path, QCheckBox* check)
    : FieldBinding(std::move(path), check), m_check(check) {
  QObject::connect(check, &QCheckBox::toggled, check, [this] { changed(); });
}

void BoolBinding::loadValue(const nlohmann::json& value) {
  const QSignalBlocker block(m_check);
  if (value.is_boolean()) {
    m_check->setChecked(value.get<bool>());
  } else if (!value.is_null()) {
    m_raw = value;
  }
}

nlohmann::json BoolBinding::storeValue() const {
  return m_check->isChecked();
}

// --- ChoiceBinding

ChoiceBinding::ChoiceBinding(std::string path, QComboBox* combo)
    : FieldBinding(std::move(path), combo), m_combo(combo) {
  QObject::connect(combo, qOverload<int>(&QComboBox::currentIndexChanged), combo, [this] { changed(); });
}

void ChoiceBinding::loadValue(const nlohmann::json& value) {
  const QSignalBlocker block(m_combo);
  if (!value.is_string()) {
    if (!value.is_null()) m_raw = value;
    return;
  }
  const QString word = fromStd(value.get<std::string>());
  int index = m_combo->findData(word);
  if (index < 0) {
    m_combo->addItem(word, word);
    index = m_combo->count() - 1;
  }
  m_combo->setCurrentIndex(index);
}

nlohmann::json ChoiceBinding::storeValue() const {
  return m_combo->currentData().toString().toStdString();
}

// --- ListBinding

ListBinding::ListBinding(std::string path, QLineEdit* edit)
    : FieldBinding(std::move(path), edit), m_edit(edit) {
  QObject::connect(edit, &QLineEdit::textEdited, edit, [this] { changed(); });
}

void ListBinding::loadValue(const nlohmann::json& value) {
  if (value.is_array()) {
    QStringList items;
    for (const auto& item : value) items << compact(item);
    m_edit->setText(items.join(QStringLiteral(", ")));
  } else {
    m_edit->setText(value.is_null() ? QString() : compact(value));
    if (!value.is_null()) m_raw = value;
  }
}

nlohmann::json ListBinding::storeValue() const {
  const QString text = m_edit->text().trimmed();
  if (text.isEmpty()) return nlohmann::json::array();
  nlohmann::json list = nlohmann::json::parse(QStringLiteral("[%1]").arg(text).toStdString(), nullptr, false);
  if (!list.is_discarded()) return list;
  // Not JSON: each comma-separated item as typed, so the engine names the item that is not a number.
  nlohmann::json items = nlohmann::json::array();
  for (const QString& item : text.split(QLatin1Char(','))) items.push_back(parseOrString(item));
  return items;
}

// --- JsonBinding

JsonBinding::JsonBinding(std::string path, QPlainTextEdit* edit)
    : FieldBinding(std::move(path), edit), m_plain(edit) {
  QObject::connect(edit, &QPlainTextEdit::textChanged, edit, [this] { changed(); });
}

JsonBinding::JsonBinding(std::string path, QLineEdit* edit)
    : FieldBinding(std::move(path), edit), m_line(edit) {
  QObject::connect(edit, &QLineEdit::textEdited, edit, [this] { changed(); });
}

QString JsonBinding::text() const {
  return m_plain ? m_plain->toPlainText() : m_line->text();
}

void JsonBinding::loadValue(const nlohmann::json& value) {
  if (m_plain) {
    const QSignalBlocker block(m_plain);
    m_plain->setPlainText(value.is_null() ? QString() : fromStd(value.dump(2)));
  } else {
    m_line->setText(value.is_null() ? QString() : fromStd(value.dump()));
  }
}

std::vector<ValidationIssue> JsonBinding::localIssues() const {
  const std::string s = text().trimmed().toStdString();
  if (s.empty()) return {};
  try {
    const nlohmann::json parsed = nlohmann::json::parse(s);
    if (parsed.is_discarded()) return {};
  } catch (const nlohmann::json::exception& e) {
    // parse_error, and out_of_range for a number beyond a double's range (1e400), which is no syntax error.
    std::string what = e.what();
    const size_t colon = what.find(": ");
    const size_t tag = what.find("] ");
    const size_t cut = colon != std::string::npos ? colon + 2 : (tag != std::string::npos ? tag + 2 : 0);
    return {{path(), "not valid JSON: " + what.substr(cut)}};
  }
  return {};
}

nlohmann::json JsonBinding::storeValue() const {
  const std::string s = text().trimmed().toStdString();
  if (s.empty()) return nullptr;
  nlohmann::json value = nlohmann::json::parse(s, nullptr, false);
  return value.is_discarded() ? nlohmann::json(nullptr) : value;
}

}  // namespace wb::gui
