#pragma once
// optimizer.param_groups as a small table: one row per group — its name patterns, its learning rate (a factor
// on optimizer.lr or a rate of its own) and its weight decay (empty: the optimizer's) — with Add group and
// Remove. Each row keeps the group's JSON as the file wrote it and an edit changes only the key it edits, so
// a document goes through the form unchanged. Numbers are passed on as typed (as NumberBinding does): the
// engine's message for a refused one (lr_scale -1, a pattern that picks nothing) marks the cell at fault and
// shows under the table.

#include <QObject>
#include <QWidget>
#include <optional>
#include <utility>
#include <vector>

#include "editor/field_binding.h"

class QLabel;
class QPushButton;
class QTableWidget;
class QTableWidgetItem;

namespace wb::gui {

class ParamGroupsBinding : public FieldBinding {
 public:
  // The table's columns; the learning rate's kind (× optimizer lr or absolute) is a chooser in its own
  // column.
  enum Column { Patterns = 0, LearningRate = 1, RateKind = 2, WeightDecay = 3 };
  enum RateKindIndex { ScaleOfOptimizerLr = 0, AbsoluteLr = 1 };

  explicit ParamGroupsBinding(std::string path);

  QTableWidget* table() const { return m_table; }
  QPushButton* addButton() const { return m_add; }
  QPushButton* removeButton() const { return m_remove; }
  // Appends a group ({"params": [], "lr_scale": 1}) and opens its patterns for typing.
  void addGroup();
  // Removes the selected groups (or the one holding the current cell).
  void removeSelectedGroups();
  // The chooser of row `row`'s learning-rate kind.
  QComboBox* rateKindOf(int row) const;

  void markIssues(const std::vector<ValidationIssue>& issues) override;
  // Goes to the cell the issue's path names (optimizer.param_groups[1].lr_scale: row 1's learning rate).
  void focusPart(const std::string& issuePath) override;

 protected:
  void loadValue(const nlohmann::json& value) override;
  nlohmann::json storeValue() const override;

 private:
  void fillRows();
  void fillRow(int row);
  void onItemChanged(QTableWidgetItem* item);
  void onRateKindChosen(int row, int kind);
  void fitHeight();
  // Scrolls the form (the scroll area around the table) so the current cell is in view.
  void scrollFormToCurrentCell();
  // The row and column an issue's path names (column -1: the whole group); nullopt: no row of this table.
  std::optional<std::pair<int, int>> cellOf(const std::string& issuePath) const;
  nlohmann::json& groupAt(int row);  // the row's group, made an object if the file had something else there

  QTableWidget* m_table;
  QLabel* m_empty;  // shown instead of the table while there is no group
  QPushButton* m_add;
  QPushButton* m_remove;
  std::vector<nlohmann::json> m_groups;  // one per row, as loaded and edited
  bool m_filling = false;
  // The context of the widgets' connections: the widgets outlive the binding (the form owns them), and a cell
  // still being edited commits as the window closes, after the editor has deleted its bindings.
  QObject m_alive;
};

}  // namespace wb::gui
