#pragma once
// optimizer.param_groups as a small table (json_rows_table.h): one row per group — its name patterns, its
// learning rate (a factor on optimizer.lr or a rate of its own) and its weight decay (empty: the optimizer's)
// — with Add group and Remove. An edit changes only the key it edits. Numbers are passed on as typed (as
// NumberBinding does): the engine's message for a refused one (lr_scale -1, a pattern that picks nothing)
// marks the cell at fault and shows under the table.

#include <string>
#include <vector>

#include "editor/json_rows_table.h"

class QComboBox;
class QTableWidgetItem;

namespace wb::gui {

class ParamGroupsBinding : public JsonRowsTable {
 public:
  // The table's columns; the learning rate's kind (× optimizer lr or absolute) is a chooser in its own
  // column.
  enum Column { Patterns = 0, LearningRate = 1, RateKind = 2, WeightDecay = 3 };
  enum RateKindIndex { ScaleOfOptimizerLr = 0, AbsoluteLr = 1 };

  explicit ParamGroupsBinding(std::string path);

  // Appends a group ({"params": [], "lr_scale": 1}) and opens its patterns for typing.
  void addRow() override;
  // The chooser of row `row`'s learning-rate kind.
  QComboBox* rateKindOf(int row) const;

  void markIssues(const std::vector<ValidationIssue>& issues) override;

 protected:
  void loadValue(const nlohmann::json& value) override;
  nlohmann::json storeValue() const override;
  void fillRow(int row) override;
  int columnOfIssue(const std::string& rest) const override;
  // The form scrolled to the field's top; a table taller than what is left of a laptop's form would leave the
  // cell below the edge.
  void showCurrentCell(int row, int column) override;

 private:
  void onItemChanged(QTableWidgetItem* item);
  void onRateKindChosen(int row, int kind);
  // Scrolls the form (the scroll area around the table) so the current cell is in view.
  void scrollFormToCurrentCell();
  nlohmann::json& groupAt(int row);  // the row's group, made an object if the file had something else there
};

}  // namespace wb::gui
