#include "editor/param_groups_binding.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "widgets/wheel_guard.h"

namespace wb::gui {
namespace param_groups {

constexpr int kRowsWithoutScrolling = 6;

QString fromStd(const std::string& s) {
  return QString::fromStdString(s);
}

QString compact(const nlohmann::json& value) {
  return value.is_string() ? fromStd(value.get<std::string>()) : fromStd(value.dump());
}

// Text that is valid JSON becomes that value; anything else stays the string typed, for the engine to name.
nlohmann::json parseOrString(const QString& text) {
  const std::string s = text.trimmed().toStdString();
  nlohmann::json value = nlohmann::json::parse(s, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return s;
  return value;
}

QString patternsText(const nlohmann::json& params) {
  if (!params.is_array()) return params.is_null() ? QString() : compact(params);
  QStringList items;
  for (const auto& item : params) items << compact(item);
  return items.join(QStringLiteral(", "));
}

nlohmann::json patternsFrom(const QString& text) {
  nlohmann::json list = nlohmann::json::array();
  for (const QString& item : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    if (!item.trimmed().isEmpty()) list.push_back(item.trimmed().toStdString());
  }
  return list;
}

// Empty cells say what empty means (the engine's default for the key), in the placeholder colour.
class PlaceholderDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  static QString placeholderFor(int column) {
    switch (column) {
      case ParamGroupsBinding::Patterns:
        return QObject::tr("fc.*, layer4.*");
      case ParamGroupsBinding::LearningRate:
        return QStringLiteral("1");
      case ParamGroupsBinding::WeightDecay:
        return QObject::tr("optimizer's");
      default:
        return QString();
    }
  }

 protected:
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(option, index);
    if (!option->text.isEmpty()) return;
    option->text = placeholderFor(index.column());
    option->palette.setColor(QPalette::Text, option->palette.color(QPalette::PlaceholderText));
    option->palette.setColor(QPalette::HighlightedText, option->palette.color(QPalette::PlaceholderText));
  }

  // Marking a cell (its colour, its tooltip, when the engine's checks end) changes its item, and a view sets
  // an open editor's text again on any change of its item: what the user has typed in it stays.
  void setEditorData(QWidget* editor, const QModelIndex& index) const override {
    if (auto* line = qobject_cast<QLineEdit*>(editor); line != nullptr && line->isModified()) return;
    QStyledItemDelegate::setEditorData(editor, index);
  }

  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                        const QModelIndex& index) const override {
    QWidget* editor = QStyledItemDelegate::createEditor(parent, option, index);
    if (auto* line = qobject_cast<QLineEdit*>(editor))
      line->setPlaceholderText(placeholderFor(index.column()));
    return editor;
  }
};

QString columnHelp(int column) {
  switch (column) {
    case ParamGroupsBinding::Patterns:
      return QObject::tr(
          "Name patterns, comma-separated (* any run of characters, ? one): the parameters this group "
          "trains, as model.freeze's patterns (torchvision's names for its architectures: fc.*, layer4.*).");
    case ParamGroupsBinding::LearningRate:
    case ParamGroupsBinding::RateKind:
      return QObject::tr(
          "× lr: a factor on optimizer.lr (lr_scale; empty = 1), following it when it changes. "
          "absolute: the group's own learning rate (lr). The schedule runs from it either way.");
    case ParamGroupsBinding::WeightDecay:
      return QObject::tr("The group's weight decay; empty = optimizer.weight_decay.");
    default:
      return QString();
  }
}

// What a cell shows of `group` (as the file wrote it; a group that is not an object shows as JSON).
QString cellText(const nlohmann::json& group, int column) {
  if (!group.is_object()) return column == ParamGroupsBinding::Patterns ? compact(group) : QString();
  auto text = [&](const char* key) { return group.contains(key) ? compact(group[key]) : QString(); };
  switch (column) {
    case ParamGroupsBinding::Patterns:
      return patternsText(group.value("params", nlohmann::json()));
    case ParamGroupsBinding::LearningRate:
      return group.contains("lr") ? text("lr") : text("lr_scale");
    case ParamGroupsBinding::WeightDecay:
      return text("weight_decay");
    default:
      return QString();
  }
}

// Which column an issue's path names inside a group ("optimizer.param_groups[1].lr_scale" → the learning
// rate); -1: the group as a whole (a group that is not an object, "lr" and "lr_scale" both, an unknown key).
int columnOfIssue(const std::string& rest) {
  if (rest.rfind(".params", 0) == 0) return ParamGroupsBinding::Patterns;
  if (rest == ".lr" || rest == ".lr_scale") return ParamGroupsBinding::LearningRate;
  if (rest == ".weight_decay") return ParamGroupsBinding::WeightDecay;
  return -1;
}

// What the table says of itself (json_rows_table.h).
JsonRowsTable::Look look() {
  QStringList help;
  for (int column = ParamGroupsBinding::Patterns; column <= ParamGroupsBinding::WeightDecay; ++column)
    help << columnHelp(column);
  JsonRowsTable::Look look;
  look.caption = QObject::tr("Parameter groups");
  look.captionHelp = QObject::tr(
      "Parameters picked by name pattern train with their own learning rate and weight decay, as "
      "torch.optim's param groups; every other parameter stays in the optimizer's own group.");
  look.tableName = QStringLiteral("paramGroupsTable");
  // Two lines: the numbers' columns are narrow, so the patterns keep the width.
  look.headers = {QObject::tr("Parameters"), QObject::tr("Learning\nrate"), QString(),
                  QObject::tr("Weight\ndecay")};
  look.columnHelp = help;
  look.emptyText = QObject::tr("None: every parameter trains at optimizer.lr and optimizer.weight_decay.");
  look.addText = QObject::tr("Add group");
  look.addName = QStringLiteral("addParamGroup");
  look.addHelp = QObject::tr("A new group: type its name patterns, then its learning rate.");
  look.removeName = QStringLiteral("removeParamGroup");
  look.removeHelp = QObject::tr("Remove the selected group; its parameters go back to the optimizer's.");
  look.rowsWithoutScrolling = kRowsWithoutScrolling;
  return look;
}

}  // namespace param_groups

ParamGroupsBinding::ParamGroupsBinding(std::string path)
    : JsonRowsTable(std::move(path), param_groups::look()) {
  table()->setItemDelegate(new param_groups::PlaceholderDelegate(table()));
  table()->verticalHeader()->setVisible(false);
  table()->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::SelectedClicked |
                           QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed);
  // The patterns take what the numbers leave.
  QHeaderView* header = table()->horizontalHeader();
  header->setSectionResizeMode(Patterns, QHeaderView::Stretch);
  const int number = table()->fontMetrics().horizontalAdvance(QStringLiteral("0.00001")) + 16;
  header->setSectionResizeMode(LearningRate, QHeaderView::Fixed);
  header->resizeSection(LearningRate, number);
  header->setSectionResizeMode(RateKind, QHeaderView::Fixed);
  header->resizeSection(RateKind, table()->fontMetrics().horizontalAdvance(QObject::tr("absolute")) + 36);
  header->setSectionResizeMode(WeightDecay, QHeaderView::Fixed);
  header->resizeSection(WeightDecay, number + 8);
  header->setMinimumSectionSize(24);

  QObject::connect(table(), &QTableWidget::itemChanged, &m_alive,
                   [this](QTableWidgetItem* item) { onItemChanged(item); });
  fillRows();
}

QComboBox* ParamGroupsBinding::rateKindOf(int row) const {
  return qobject_cast<QComboBox*>(table()->cellWidget(row, RateKind));
}

void ParamGroupsBinding::loadValue(const nlohmann::json& value) {
  m_rows.clear();
  if (value.is_array()) {
    for (const auto& group : value) m_rows.push_back(group);
  } else if (!value.is_null()) {
    m_raw = value;  // not a list: kept as written, for the engine to say so at this field
  }
  fillRows();
}

nlohmann::json ParamGroupsBinding::storeValue() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& group : m_rows) list.push_back(group);
  return list;
}

void ParamGroupsBinding::fillRow(int row) {
  const nlohmann::json& group = m_rows[static_cast<size_t>(row)];
  const bool absolute = group.is_object() && group.contains("lr");
  for (int column = 0; column < table()->columnCount(); ++column) {
    auto* item = new QTableWidgetItem(param_groups::cellText(group, column));
    item->setToolTip(columnHelp(column));
    if (column == LearningRate || column == WeightDecay)
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (column == RateKind) item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    table()->setItem(row, column, item);
  }
  auto* kind = new QComboBox;
  kind->setObjectName(QStringLiteral("rateKind%1").arg(row));
  kind->addItem(QObject::tr("× lr"), QStringLiteral("lr_scale"));
  kind->addItem(QObject::tr("absolute"), QStringLiteral("lr"));
  kind->setCurrentIndex(absolute ? AbsoluteLr : ScaleOfOptimizerLr);
  kind->setToolTip(columnHelp(RateKind));
  guardWheel(kind);
  table()->setCellWidget(row, RateKind, kind);
  QObject::connect(kind, qOverload<int>(&QComboBox::currentIndexChanged), &m_alive, [this, kind](int index) {
    for (int r = 0; r < table()->rowCount(); ++r)
      if (rateKindOf(r) == kind) onRateKindChosen(r, index);
  });
}

nlohmann::json& ParamGroupsBinding::groupAt(int row) {
  nlohmann::json& group = m_rows[static_cast<size_t>(row)];
  if (!group.is_object()) group = nlohmann::json::object();
  return group;
}

void ParamGroupsBinding::onItemChanged(QTableWidgetItem* item) {
  // Marking a cell (its colour, its tooltip) is a change of the item too: only a new text is an edit.
  if (m_filling ||
      item->text() == param_groups::cellText(m_rows[static_cast<size_t>(item->row())], item->column()))
    return;
  nlohmann::json& group = groupAt(item->row());
  const QString text = item->text().trimmed();
  switch (item->column()) {
    case Patterns:
      group["params"] = param_groups::patternsFrom(text);
      break;
    case LearningRate: {
      const bool absolute = rateKindOf(item->row())->currentIndex() == AbsoluteLr;
      group.erase(absolute ? "lr_scale" : "lr");
      if (text.isEmpty()) {
        group.erase(absolute ? "lr" : "lr_scale");  // empty: the engine's lr_scale 1
      } else {
        group[absolute ? "lr" : "lr_scale"] = param_groups::parseOrString(text);
      }
      break;
    }
    case WeightDecay:
      if (text.isEmpty()) {
        group.erase("weight_decay");  // the optimizer's
      } else {
        group["weight_decay"] = param_groups::parseOrString(text);
      }
      break;
    default:
      return;
  }
  changed();
}

void ParamGroupsBinding::onRateKindChosen(int row, int kind) {
  if (m_filling) return;
  // The number typed stays; only the key it is stored under changes (lr_scale ↔ lr).
  nlohmann::json& group = groupAt(row);
  const char* from = kind == AbsoluteLr ? "lr_scale" : "lr";
  const char* to = kind == AbsoluteLr ? "lr" : "lr_scale";
  if (group.contains(from)) {
    group[to] = group[from];
    group.erase(from);
  }
  changed();
}

void ParamGroupsBinding::addRow() {
  appendRow({{"params", nlohmann::json::array()}, {"lr_scale", 1}}, Patterns);
  const int row = table()->rowCount() - 1;
  table()->editItem(table()->item(row, Patterns));
  scrollFormToCurrentCell();  // the new row may lie below the form's edge: the user types into it
  changed();
}

int ParamGroupsBinding::columnOfIssue(const std::string& rest) const {
  return param_groups::columnOfIssue(rest);
}

void ParamGroupsBinding::showCurrentCell(int row, int column) {
  (void)row;
  (void)column;
  scrollFormToCurrentCell();
}

void ParamGroupsBinding::scrollFormToCurrentCell() {
  // With the message under the table if there is room. Once the tab just brought forward (or the row just
  // added) is laid out: before, the table's rows have no place yet.
  QTimer::singleShot(0, &m_alive, [this] {
    QScrollArea* form = nullptr;
    for (QWidget* w = table()->parentWidget(); w != nullptr && form == nullptr; w = w->parentWidget())
      form = qobject_cast<QScrollArea*>(w);
    if (form == nullptr || form->widget() == nullptr || table()->currentItem() == nullptr) return;
    // A row just added grew the table: the layouts up to the form's page settle level by level, each level's
    // request posted by the one below; the form's range must be the grown page's before it scrolls.
    for (int level = 0; level < 4; ++level)
      QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    form->ensureWidgetVisible(messageLabel());
    const QRect rect = table()->visualItemRect(table()->currentItem());
    const QPoint center = table()->viewport()->mapTo(form->widget(), rect.center());
    form->ensureVisible(center.x(), center.y(), 0, rect.height());
  });
}

void ParamGroupsBinding::markIssues(const std::vector<ValidationIssue>& issues) {
  const bool dark = table()->palette().color(QPalette::Base).lightness() < 128;
  const QBrush fault(dark ? QColor(0x7f, 0x2a, 0x2a) : QColor(0xff, 0xcd, 0xd2));
  const QSignalBlocker block(table());  // colours and tooltips, not edits
  const QIcon warning = table()->style()->standardIcon(QStyle::SP_MessageBoxWarning);
  for (int row = 0; row < table()->rowCount(); ++row) {
    for (int column = 0; column < table()->columnCount(); ++column) {
      table()->item(row, column)->setBackground(QBrush());
      table()->item(row, column)->setIcon(QIcon());
      table()->item(row, column)->setToolTip(columnHelp(column));
    }
  }
  for (const ValidationIssue& issue : issues) {
    const std::optional<std::pair<int, int>> cell = cellOf(issue.path);
    if (!cell) continue;
    const auto [row, only] = *cell;
    for (int column = 0; column < table()->columnCount(); ++column) {
      if (only >= 0 && column != only) continue;
      QTableWidgetItem* item = table()->item(row, column);
      item->setBackground(fault);
      item->setIcon(warning);  // seen in a selected row too, whose highlight hides the colour
      item->setToolTip(QStringLiteral("⚠ %1").arg(param_groups::fromStd(issue.message)));
    }
  }
}

}  // namespace wb::gui
