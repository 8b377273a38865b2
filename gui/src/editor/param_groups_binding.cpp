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

}  // namespace param_groups

ParamGroupsBinding::ParamGroupsBinding(std::string path)
    : FieldBinding(std::move(path), new QWidget),
      m_table(new QTableWidget(0, 4, input())),
      m_empty(new QLabel(input())),
      m_add(new QPushButton(QObject::tr("Add group"), input())),
      m_remove(new QPushButton(QObject::tr("Remove"), input())) {
  auto* caption = new QLabel(QObject::tr("Parameter groups"), input());
  caption->setToolTip(
      QObject::tr("Parameters picked by name pattern train with their own learning rate and weight decay, as "
                  "torch.optim's param groups; every other parameter stays in the optimizer's own group."));
  m_add->setObjectName(QStringLiteral("addParamGroup"));
  m_remove->setObjectName(QStringLiteral("removeParamGroup"));
  m_add->setToolTip(QObject::tr("A new group: type its name patterns, then its learning rate."));
  m_remove->setToolTip(QObject::tr("Remove the selected group; its parameters go back to the optimizer's."));
  m_empty->setText(QObject::tr("None: every parameter trains at optimizer.lr and optimizer.weight_decay."));
  m_empty->setWordWrap(true);
  m_empty->setForegroundRole(QPalette::PlaceholderText);

  m_table->setObjectName(QStringLiteral("paramGroupsTable"));
  m_table->setHorizontalHeaderLabels(
      // Two lines: the numbers' columns are narrow, so the patterns keep the width.
      {QObject::tr("Parameters"), QObject::tr("Learning\nrate"), QString(), QObject::tr("Weight\ndecay")});
  for (int column = 0; column < m_table->columnCount(); ++column)
    m_table->horizontalHeaderItem(column)->setToolTip(param_groups::columnHelp(column));
  m_table->setItemDelegate(new param_groups::PlaceholderDelegate(m_table));
  m_table->verticalHeader()->setVisible(false);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::SelectedClicked |
                           QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed);
  m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // The form's column decides the width; the patterns take what the numbers leave.
  m_table->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  QHeaderView* header = m_table->horizontalHeader();
  header->setSectionResizeMode(Patterns, QHeaderView::Stretch);
  const int number = m_table->fontMetrics().horizontalAdvance(QStringLiteral("0.00001")) + 16;
  const QComboBox probe;  // rows as tall as the rate chooser each holds, so it is not cut
  header->setSectionResizeMode(LearningRate, QHeaderView::Fixed);
  header->resizeSection(LearningRate, number);
  header->setSectionResizeMode(RateKind, QHeaderView::Fixed);
  header->resizeSection(RateKind, m_table->fontMetrics().horizontalAdvance(QObject::tr("absolute")) + 36);
  header->setSectionResizeMode(WeightDecay, QHeaderView::Fixed);
  header->resizeSection(WeightDecay, number + 8);
  header->setMinimumSectionSize(24);
  m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_table->verticalHeader()->setDefaultSectionSize(
      std::max(m_table->verticalHeader()->defaultSectionSize(), probe.sizeHint().height()));

  auto* column = new QVBoxLayout(input());
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(2);
  auto* top = new QHBoxLayout;
  top->addWidget(caption, 1);
  top->addWidget(m_add);
  top->addWidget(m_remove);
  column->addLayout(top);
  column->addWidget(m_table);
  column->addWidget(m_empty);
  input()->setFocusProxy(m_table);

  QObject::connect(m_add, &QPushButton::clicked, &m_alive, [this] { addGroup(); });
  QObject::connect(m_remove, &QPushButton::clicked, &m_alive, [this] { removeSelectedGroups(); });
  QObject::connect(m_table, &QTableWidget::itemChanged, &m_alive,
                   [this](QTableWidgetItem* item) { onItemChanged(item); });
  QObject::connect(m_table, &QTableWidget::itemSelectionChanged, &m_alive,
                   [this] { m_remove->setEnabled(!m_table->selectedItems().isEmpty()); });
  fillRows();
}

QComboBox* ParamGroupsBinding::rateKindOf(int row) const {
  return qobject_cast<QComboBox*>(m_table->cellWidget(row, RateKind));
}

void ParamGroupsBinding::loadValue(const nlohmann::json& value) {
  m_groups.clear();
  if (value.is_array()) {
    for (const auto& group : value) m_groups.push_back(group);
  } else if (!value.is_null()) {
    m_raw = value;  // not a list: kept as written, for the engine to say so at this field
  }
  fillRows();
}

nlohmann::json ParamGroupsBinding::storeValue() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& group : m_groups) list.push_back(group);
  return list;
}

void ParamGroupsBinding::fillRows() {
  m_filling = true;
  m_table->setRowCount(static_cast<int>(m_groups.size()));
  for (int row = 0; row < m_table->rowCount(); ++row) fillRow(row);
  m_filling = false;
  m_remove->setEnabled(!m_table->selectedItems().isEmpty());
  fitHeight();
}

void ParamGroupsBinding::fillRow(int row) {
  const nlohmann::json& group = m_groups[static_cast<size_t>(row)];
  const bool absolute = group.is_object() && group.contains("lr");
  for (int column = 0; column < m_table->columnCount(); ++column) {
    auto* item = new QTableWidgetItem(param_groups::cellText(group, column));
    item->setToolTip(param_groups::columnHelp(column));
    if (column == LearningRate || column == WeightDecay)
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (column == RateKind) item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    m_table->setItem(row, column, item);
  }
  auto* kind = new QComboBox;
  kind->setObjectName(QStringLiteral("rateKind%1").arg(row));
  kind->addItem(QObject::tr("× lr"), QStringLiteral("lr_scale"));
  kind->addItem(QObject::tr("absolute"), QStringLiteral("lr"));
  kind->setCurrentIndex(absolute ? AbsoluteLr : ScaleOfOptimizerLr);
  kind->setToolTip(param_groups::columnHelp(RateKind));
  guardWheel(kind);
  m_table->setCellWidget(row, RateKind, kind);
  QObject::connect(kind, qOverload<int>(&QComboBox::currentIndexChanged), &m_alive, [this, kind](int index) {
    for (int r = 0; r < m_table->rowCount(); ++r)
      if (rateKindOf(r) == kind) onRateKindChosen(r, index);
  });
}

nlohmann::json& ParamGroupsBinding::groupAt(int row) {
  nlohmann::json& group = m_groups[static_cast<size_t>(row)];
  if (!group.is_object()) group = nlohmann::json::object();
  return group;
}

void ParamGroupsBinding::onItemChanged(QTableWidgetItem* item) {
  // Marking a cell (its colour, its tooltip) is a change of the item too: only a new text is an edit.
  if (m_filling ||
      item->text() == param_groups::cellText(m_groups[static_cast<size_t>(item->row())], item->column()))
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

void ParamGroupsBinding::addGroup() {
  m_groups.push_back({{"params", nlohmann::json::array()}, {"lr_scale", 1}});
  fillRows();
  const int row = m_table->rowCount() - 1;
  m_table->setCurrentCell(row, Patterns);
  m_table->editItem(m_table->item(row, Patterns));
  scrollFormToCurrentCell();  // the new row may lie below the form's edge: the user types into it
  changed();
}

void ParamGroupsBinding::removeSelectedGroups() {
  int row = m_table->currentRow();
  const QList<QTableWidgetItem*> selected = m_table->selectedItems();
  if (!selected.isEmpty()) row = selected.front()->row();
  if (row < 0 || row >= static_cast<int>(m_groups.size())) return;
  m_groups.erase(m_groups.begin() + row);
  fillRows();
  changed();
}

void ParamGroupsBinding::fitHeight() {
  const int rows = m_table->rowCount();
  m_table->setVisible(rows > 0);
  m_empty->setVisible(rows == 0);
  const int shown = std::min(std::max(rows, 1), param_groups::kRowsWithoutScrolling);
  m_table->setFixedHeight(m_table->horizontalHeader()->sizeHint().height() +
                          shown * m_table->verticalHeader()->defaultSectionSize() +
                          2 * m_table->frameWidth());
}

std::optional<std::pair<int, int>> ParamGroupsBinding::cellOf(const std::string& issuePath) const {
  const std::string prefix = path() + "[";
  if (issuePath.rfind(prefix, 0) != 0) return std::nullopt;
  const size_t close = issuePath.find(']', prefix.size());
  if (close == std::string::npos) return std::nullopt;
  bool ok = false;
  const int row = QString::fromStdString(issuePath.substr(prefix.size(), close - prefix.size())).toInt(&ok);
  if (!ok || row < 0 || row >= m_table->rowCount()) return std::nullopt;
  return std::make_pair(row, param_groups::columnOfIssue(issuePath.substr(close + 1)));
}

void ParamGroupsBinding::focusPart(const std::string& issuePath) {
  FieldBinding::focusPart(issuePath);
  const std::optional<std::pair<int, int>> cell = cellOf(issuePath);
  if (!cell) return;
  m_table->setCurrentCell(cell->first, cell->second >= 0 ? cell->second : static_cast<int>(Patterns));
  // The form scrolled to the field's top; a table taller than what is left of a laptop's form would leave the
  // cell below the edge.
  scrollFormToCurrentCell();
}

void ParamGroupsBinding::scrollFormToCurrentCell() {
  // With the message under the table if there is room. Once the tab just brought forward (or the row just
  // added) is laid out: before, the table's rows have no place yet.
  QTimer::singleShot(0, &m_alive, [this] {
    QScrollArea* form = nullptr;
    for (QWidget* w = m_table->parentWidget(); w != nullptr && form == nullptr; w = w->parentWidget())
      form = qobject_cast<QScrollArea*>(w);
    if (form == nullptr || form->widget() == nullptr || m_table->currentItem() == nullptr) return;
    // A row just added grew the table: the layouts up to the form's page settle level by level, each level's
    // request posted by the one below; the form's range must be the grown page's before it scrolls.
    for (int level = 0; level < 4; ++level)
      QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    form->ensureWidgetVisible(messageLabel());
    const QRect rect = m_table->visualItemRect(m_table->currentItem());
    const QPoint center = m_table->viewport()->mapTo(form->widget(), rect.center());
    form->ensureVisible(center.x(), center.y(), 0, rect.height());
  });
}

void ParamGroupsBinding::markIssues(const std::vector<ValidationIssue>& issues) {
  const bool dark = m_table->palette().color(QPalette::Base).lightness() < 128;
  const QBrush fault(dark ? QColor(0x7f, 0x2a, 0x2a) : QColor(0xff, 0xcd, 0xd2));
  const QSignalBlocker block(m_table);  // colours and tooltips, not edits
  const QIcon warning = m_table->style()->standardIcon(QStyle::SP_MessageBoxWarning);
  for (int row = 0; row < m_table->rowCount(); ++row) {
    for (int column = 0; column < m_table->columnCount(); ++column) {
      m_table->item(row, column)->setBackground(QBrush());
      m_table->item(row, column)->setIcon(QIcon());
      m_table->item(row, column)->setToolTip(param_groups::columnHelp(column));
    }
  }
  for (const ValidationIssue& issue : issues) {
    const std::optional<std::pair<int, int>> cell = cellOf(issue.path);
    if (!cell) continue;
    const auto [row, only] = *cell;
    for (int column = 0; column < m_table->columnCount(); ++column) {
      if (only >= 0 && column != only) continue;
      QTableWidgetItem* item = m_table->item(row, column);
      item->setBackground(fault);
      item->setIcon(warning);  // seen in a selected row too, whose highlight hides the colour
      item->setToolTip(QStringLiteral("⚠ %1").arg(param_groups::fromStd(issue.message)));
    }
  }
}

}  // namespace wb::gui
