#include "editor/json_rows_table.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace wb::gui {

JsonRowsTable::JsonRowsTable(std::string path, const Look& look, const std::vector<QWidget*>& besideCaption)
    : FieldBinding(std::move(path), new QWidget),
      m_table(new QTableWidget(0, static_cast<int>(look.headers.size()), input())),
      m_columnHelp(look.columnHelp),
      m_rowsWithoutScrolling(look.rowsWithoutScrolling) {
  for (QWidget* widget : besideCaption) widget->setParent(input());
  m_empty = new QLabel(input());
  m_add = new QPushButton(look.addText, input());
  m_remove = new QPushButton(QObject::tr("Remove"), input());
  auto* caption = new QLabel(look.caption, input());
  caption->setToolTip(look.captionHelp);
  m_add->setObjectName(look.addName);
  m_remove->setObjectName(look.removeName);
  m_add->setToolTip(look.addHelp);
  m_remove->setToolTip(look.removeHelp);
  m_empty->setText(look.emptyText);
  m_empty->setWordWrap(true);
  m_empty->setForegroundRole(QPalette::PlaceholderText);

  m_table->setObjectName(look.tableName);
  m_table->setHorizontalHeaderLabels(look.headers);
  for (int column = 0; column < m_table->columnCount(); ++column)
    m_table->horizontalHeaderItem(column)->setToolTip(columnHelp(column));
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // The form's column decides the width.
  m_table->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  const QComboBox probe;  // rows as tall as the choosers they hold, so none is cut
  m_table->verticalHeader()->setDefaultSectionSize(
      std::max(m_table->verticalHeader()->defaultSectionSize(), probe.sizeHint().height()));

  auto* column = new QVBoxLayout(input());
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(2);
  auto* top = new QHBoxLayout;
  top->addWidget(caption, 1);
  for (QWidget* widget : besideCaption) top->addWidget(widget);
  top->addWidget(m_add);
  top->addWidget(m_remove);
  column->addLayout(top);
  column->addWidget(m_table);
  column->addWidget(m_empty);
  input()->setFocusProxy(m_table);

  QObject::connect(m_add, &QPushButton::clicked, &m_alive, [this] { addRow(); });
  QObject::connect(m_remove, &QPushButton::clicked, &m_alive, [this] { removeSelectedRow(); });
  QObject::connect(m_table, &QTableWidget::itemSelectionChanged, &m_alive, [this] { updateRemove(); });
  QObject::connect(m_table, &QTableWidget::currentCellChanged, &m_alive, [this] { updateRemove(); });
}

QString JsonRowsTable::columnHelp(int column) const {
  return column >= 0 && column < m_columnHelp.size() ? m_columnHelp[column] : QString();
}

void JsonRowsTable::fillRows() {
  m_filling = true;
  m_table->setRowCount(static_cast<int>(m_rows.size()));
  for (int row = 0; row < m_table->rowCount(); ++row) fillRow(row);
  rowsFilled();
  m_filling = false;
  updateRemove();
  fitHeight();
}

void JsonRowsTable::appendRow(nlohmann::json row, int column) {
  m_rows.push_back(std::move(row));
  fillRows();
  m_table->setCurrentCell(m_table->rowCount() - 1, column);
}

void JsonRowsTable::removeSelectedRow() {
  int row = m_table->currentRow();
  const QList<QTableWidgetItem*> selected = m_table->selectedItems();
  if (!selected.isEmpty()) row = selected.front()->row();
  if (row < 0 || row >= static_cast<int>(m_rows.size())) return;
  m_rows.erase(m_rows.begin() + row);
  fillRows();
  changed();
}

bool JsonRowsTable::hasRowToRemove() const {
  return !m_table->selectedItems().isEmpty();
}

void JsonRowsTable::updateRemove() {
  m_remove->setEnabled(hasRowToRemove());
}

void JsonRowsTable::fitHeight() {
  const int rows = m_table->rowCount();
  m_table->setVisible(rows > 0);
  m_empty->setVisible(rows == 0);
  const int shown = std::min(std::max(rows, 1), m_rowsWithoutScrolling);
  m_table->setFixedHeight(m_table->horizontalHeader()->sizeHint().height() +
                          shown * m_table->verticalHeader()->defaultSectionSize() +
                          2 * m_table->frameWidth());
}

std::optional<std::pair<int, int>> JsonRowsTable::cellOf(const std::string& issuePath) const {
  const std::string prefix = rowsPath() + "[";
  if (issuePath.rfind(prefix, 0) != 0) return std::nullopt;
  const size_t close = issuePath.find(']', prefix.size());
  if (close == std::string::npos) return std::nullopt;
  bool ok = false;
  const int row = QString::fromStdString(issuePath.substr(prefix.size(), close - prefix.size())).toInt(&ok);
  if (!ok || row < 0 || row >= m_table->rowCount()) return std::nullopt;
  return std::make_pair(row, columnOfIssue(issuePath.substr(close + 1)));
}

void JsonRowsTable::focusPart(const std::string& issuePath) {
  FieldBinding::focusPart(issuePath);
  const std::optional<std::pair<int, int>> cell = cellOf(issuePath);
  if (!cell) return;
  const int column = std::max(cell->second, 0);  // the whole row: its first cell
  m_table->setCurrentCell(cell->first, column);
  showCurrentCell(cell->first, column);
}

}  // namespace wb::gui
