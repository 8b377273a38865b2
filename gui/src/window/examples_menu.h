#pragma once
// File ▸ New from Example: the example experiments installed with the workbench
// (share/torch-workbench/examples, or the source tree's resources/examples), each with its description.
// Choosing one hands its experiment over as a new, unsaved document: the installed file is never the one
// saved to.

#include <QMenu>
#include <QString>
#include <nlohmann/json.hpp>

namespace wb::gui {

class ExamplesMenu : public QMenu {
  Q_OBJECT

 public:
  explicit ExamplesMenu(QWidget* parent = nullptr);

  // Lists the examples again (the menu is filled once when built).
  void reload();

 signals:
  // `document` has the example's data paths made absolute, so it trains from anywhere and saves anywhere.
  void exampleChosen(const QString& title, const nlohmann::json& document);
  void exampleFailed(const QString& message, const QString& hint);

 private:
  void choose(const QString& id);
};

}  // namespace wb::gui
