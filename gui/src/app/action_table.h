#pragma once
// A window's actions as a table, one row each: what the user sees (icon, text, shortcuts, tip), the name
// tests and screenshots find it by, and what it does. The window lists its rows; makeActions makes the
// QActions, the same way for every row.

#include <QAction>
#include <QKeySequence>
#include <QList>
#include <QString>
#include <functional>
#include <vector>

namespace wb::gui {

struct ActionRow {
  QAction** into;  // where the action is kept (a window member)
  QString icon;    // an action_icons.h name; empty: none
  QString text;
  QList<QKeySequence> shortcuts;
  QString tip;  // the tooltip and the status bar's line; empty: the text
  std::function<void()> triggered;
  QString objectName = {};
  QAction::MenuRole role = QAction::NoRole;
};

// Parented to `parent`; triggered in its context (no call once it is gone).
void makeActions(QObject* parent, const std::vector<ActionRow>& rows);

}  // namespace wb::gui
