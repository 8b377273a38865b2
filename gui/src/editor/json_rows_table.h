#pragma once
// The rows of an array key edited as a table (optimizer.param_groups, train.pipeline's stages): a caption
// over Add and Remove, the table, and in its place while there is no row a line saying what none means. Each
// row keeps its JSON as the file wrote it and an edit changes only what it edits, so a document goes through
// the form unchanged; the engine's issues at a row (`<rows>[i]...`) are shown at the cell they name, and lead
// there. What a row's cells show and how an edit changes its JSON is each table's own
// (param_groups_binding.h, pipeline_binding.h).

#include <QObject>
#include <QStringList>
#include <QWidget>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "editor/field_binding.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace wb::gui {

class JsonRowsTable : public FieldBinding {
 public:
  // What the table says of itself, and the object names tests and the keyboard find its parts by.
  struct Look {
    QString caption;
    QString captionHelp;
    QString tableName;
    QStringList headers;
    QStringList columnHelp;  // each column's tooltip, in the header and its cells
    QString emptyText;       // what no row means
    QString addText;
    QString addName;
    QString addHelp;
    QString removeName;
    QString removeHelp;
    int rowsWithoutScrolling = 4;  // the table grows to this many rows, then scrolls
  };

  QTableWidget* table() const { return m_table; }
  QPushButton* addButton() const { return m_add; }
  QPushButton* removeButton() const { return m_remove; }
  // A row after the last (each table says what a new row holds), its first cell to fill in current.
  virtual void addRow() = 0;
  // Removes the selected row (or the one holding the current cell).
  void removeSelectedRow();
  // Goes to the cell the issue's path names (optimizer.param_groups[1].lr_scale: row 1's learning rate).
  void focusPart(const std::string& issuePath) override;

 protected:
  // `besideCaption`: widgets between the caption and Add (the pipeline's Balanced), in tab order after the
  // table. The table's own setup beyond the shared one (columns' widths, edit triggers) is the table's.
  JsonRowsTable(std::string path, const Look& look, const std::vector<QWidget*>& besideCaption = {});

  // The table filled again from m_rows (row by row: fillRow); what changes on the way is not an edit.
  void fillRows();
  virtual void fillRow(int row) = 0;
  // After every row is filled, still while filling.
  virtual void rowsFilled() {}
  // Appends `row`, fills the table and makes `column` of the new row current.
  void appendRow(nlohmann::json row, int column);
  // Whether Remove has a row to act on: a selected cell.
  virtual bool hasRowToRemove() const;

  // The array whose rows the table shows ("optimizer.param_groups"): issues at its items go to the rows.
  virtual std::string rowsPath() const { return path(); }
  // Which column an issue names below its row (".lr_scale", "[1]"); -1: the whole row.
  virtual int columnOfIssue(const std::string& rest) const = 0;
  // The row and column an issue's path names (column -1: the whole row); nullopt: no row of the table.
  std::optional<std::pair<int, int>> cellOf(const std::string& issuePath) const;
  // After focusPart made the cell current: what else brings it to the user (a chooser's focus).
  virtual void showCurrentCell(int row, int column) {
    (void)row;
    (void)column;
  }
  QString columnHelp(int column) const;

  std::vector<nlohmann::json> m_rows;  // one per row, as loaded and edited
  bool m_filling = false;
  // The context of the widgets' connections: the widgets outlive the binding (the form owns them), and a cell
  // still being edited commits as the window closes, after the editor has deleted its bindings.
  QObject m_alive;

 private:
  void updateRemove();
  void fitHeight();

  QTableWidget* m_table;
  QLabel* m_empty;
  QPushButton* m_add;
  QPushButton* m_remove;
  QStringList m_columnHelp;
  int m_rowsWithoutScrolling;
};

}  // namespace wb::gui
