#include "editor/freeze_binding.h"

#include <QComboBox>
#include <QLineEdit>
#include <QVBoxLayout>
#include <optional>

#include "widgets/wheel_guard.h"

namespace wb::gui {
namespace freeze_field {

const char* const kBody = "body";

nlohmann::json patternsFrom(const QString& text) {
  nlohmann::json list = nlohmann::json::array();
  for (const QString& item : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    if (!item.trimmed().isEmpty()) list.push_back(item.trimmed().toStdString());
  }
  return list;
}

// The patterns as typed text, or nothing when the text would not read back as the same list (a number in
// it, a comma or a space inside a pattern).
std::optional<QString> patternsText(const nlohmann::json& value) {
  if (!value.is_array()) return std::nullopt;
  QStringList items;
  for (const auto& item : value) {
    if (!item.is_string()) return std::nullopt;
    items << QString::fromStdString(item.get<std::string>());
  }
  const QString text = items.join(QStringLiteral(", "));
  if (patternsFrom(text) != value) return std::nullopt;
  return text;
}

}  // namespace freeze_field

FreezeBinding::FreezeBinding(std::string path)
    : FieldBinding(std::move(path), new QWidget),
      m_choice(new QComboBox(input())),
      m_patterns(new QLineEdit(input())) {
  m_choice->setObjectName(QStringLiteral("freezeChoice"));
  m_choice->addItem(QObject::tr("Nothing"));
  m_choice->addItem(QObject::tr("The body (all but the head)"));
  m_choice->addItem(QObject::tr("Name patterns:"));
  m_choice->setItemData(Nothing, QObject::tr("Every parameter trains ([])."), Qt::ToolTipRole);
  m_choice->setItemData(Body,
                        QObject::tr("Every parameter but the head's (the module holding the model's last "
                                    "parameter: fc, classifier.3, heads.head): \"body\"."),
                        Qt::ToolTipRole);
  m_choice->setItemData(Patterns, QObject::tr("The parameters the patterns below pick."), Qt::ToolTipRole);
  // As narrow as the form's column allows, like the form's other choosers.
  m_choice->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_choice->setMinimumContentsLength(8);
  guardWheel(m_choice);
  m_patterns->setObjectName(QStringLiteral("freezePatterns"));
  m_patterns->setPlaceholderText(QObject::tr("comma-separated, e.g. conv1.*, layer1.*"));
  m_patterns->setClearButtonEnabled(true);

  auto* column = new QVBoxLayout(input());
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(2);
  column->addWidget(m_choice);
  column->addWidget(m_patterns);
  input()->setFocusProxy(m_choice);
  showPatterns();

  QObject::connect(m_choice, qOverload<int>(&QComboBox::currentIndexChanged), m_choice, [this] {
    showPatterns();
    if (m_choice->currentIndex() == Patterns) m_patterns->setFocus(Qt::OtherFocusReason);
    changed();
  });
  QObject::connect(m_patterns, &QLineEdit::textEdited, m_patterns, [this] { changed(); });
}

void FreezeBinding::showPatterns() {
  m_patterns->setVisible(m_choice->currentIndex() == Patterns);
}

bool FreezeBinding::freezesSomething() const {
  const nlohmann::json value = m_raw ? *m_raw : storeValue();
  return !(value.is_array() && value.empty());
}

void FreezeBinding::loadValue(const nlohmann::json& value) {
  const QSignalBlocker block(m_choice);
  m_patterns->clear();
  if (value.is_null() || (value.is_array() && value.empty())) {
    m_choice->setCurrentIndex(Nothing);
  } else if (value == freeze_field::kBody) {
    m_choice->setCurrentIndex(Body);
  } else if (std::optional<QString> text = freeze_field::patternsText(value)) {
    m_choice->setCurrentIndex(Patterns);
    m_patterns->setText(*text);
  } else {
    // Shown as its JSON and kept as written until edited: the engine says what is wrong with it.
    m_choice->setCurrentIndex(Patterns);
    m_patterns->setText(value.is_string() ? QString::fromStdString(value.get<std::string>())
                                          : QString::fromStdString(value.dump()));
    m_raw = value;
  }
  showPatterns();
}

nlohmann::json FreezeBinding::storeValue() const {
  switch (m_choice->currentIndex()) {
    case Body:
      return freeze_field::kBody;
    case Patterns:
      return freeze_field::patternsFrom(m_patterns->text());
    default:
      return nlohmann::json::array();
  }
}

}  // namespace wb::gui
