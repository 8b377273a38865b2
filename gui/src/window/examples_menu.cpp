#include "window/examples_menu.h"

#include <QAction>

#include "app/action_icons.h"
#include "workbench/errors.h"
#include "workbench/examples.h"

namespace wb::gui {

ExamplesMenu::ExamplesMenu(QWidget* parent) : QMenu(tr("New from &Example"), parent) {
  setObjectName(QStringLiteral("newFromExampleMenu"));
  setIcon(actionIcon(QStringLiteral("new-from-example")));
  setToolTipsVisible(true);
  reload();
}

void ExamplesMenu::reload() {
  clear();
  try {
    int number = 0;
    for (const ExampleInfo& example : listExamples()) {
      const QString id = QString::fromStdString(example.id);
      // Numbered for the keyboard (Alt+F, then the example's digit), as Open Recent is.
      const QString title =
          QString::fromStdString(example.title).replace(QLatin1Char('&'), QStringLiteral("&&"));
      ++number;
      QAction* action = addAction(number <= 9 ? QStringLiteral("&%1 %2").arg(number).arg(title) : title);
      action->setObjectName(QStringLiteral("example-") + id);
      action->setData(id);
      action->setToolTip(QString::fromStdString(example.description));
      action->setStatusTip(QString::fromStdString(example.description));
      connect(action, &QAction::triggered, this, [this, id] { choose(id); });
    }
  } catch (const UserError& e) {
    QAction* none = addAction(tr("No examples installed"));
    none->setEnabled(false);
    none->setToolTip(QString::fromUtf8(e.what()) + QLatin1Char(' ') + QString::fromStdString(e.hint()));
  }
}

void ExamplesMenu::choose(const QString& id) {
  // Read again when chosen: the list may be older than the files.
  try {
    const std::vector<ExampleInfo> examples = listExamples();
    const std::optional<ExampleInfo> example = findExample(id.toStdString(), examples);
    if (!example) {
      emit exampleFailed(tr("The example %1 is no longer installed.").arg(id),
                         tr("Reinstall Torch Workbench."));
      return;
    }
    emit exampleChosen(QString::fromStdString(example->title), loadExampleDocument(*example));
  } catch (const UserError& e) {
    emit exampleFailed(QString::fromUtf8(e.what()), QString::fromStdString(e.hint()));
  }
}

}  // namespace wb::gui
