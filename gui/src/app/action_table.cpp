#include "app/action_table.h"

#include "app/action_icons.h"

namespace wb::gui {

void makeActions(QObject* parent, const std::vector<ActionRow>& rows) {
  for (const ActionRow& row : rows) {
    auto* action = new QAction(row.icon.isEmpty() ? QIcon() : actionIcon(row.icon), row.text, parent);
    action->setShortcuts(row.shortcuts);
    if (!row.tip.isEmpty()) {
      action->setToolTip(row.tip);
      action->setStatusTip(row.tip);
    }
    if (!row.objectName.isEmpty()) action->setObjectName(row.objectName);
    action->setMenuRole(row.role);
    QObject::connect(action, &QAction::triggered, parent, [fn = row.triggered] { fn(); });
    *row.into = action;
  }
}

}  // namespace wb::gui
