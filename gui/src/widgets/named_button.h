#pragma once
// A push button as the views make them: its text, the object name tests and screenshots find it by, and its
// tip.

#include <QPushButton>
#include <QString>

namespace wb::gui {

inline QPushButton* namedButton(const QString& text, const char* objectName, const QString& tip,
                                QWidget* parent) {
  auto* button = new QPushButton(text, parent);
  button->setObjectName(QLatin1String(objectName));
  if (!tip.isEmpty()) button->setToolTip(tip);
  return button;
}

}  // namespace wb::gui
