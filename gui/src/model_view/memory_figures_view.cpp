#include "model_view/memory_figures_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QPalette>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include "workbench/finders.h"

namespace wb::gui {
namespace {

const QString kDoesNotFitStyle = QStringLiteral("color: #b91c1c;");
const QColor kDoesNotFitColor(0xb9, 0x1c, 0x1c);
// Rows the table shows before it scrolls: two devices under every choice fit, the tab keeps its layer table.
constexpr int kMemoryRowsShown = 8;

QStandardItem* bytesItem(int64_t bytes) {
  auto* item = new QStandardItem(bytesText(bytes));
  item->setData(static_cast<qlonglong>(bytes), Qt::UserRole);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace

QString bytesText(int64_t bytes) {
  return QString::fromStdString(formatBytes(bytes));
}

QString memoryChoiceSummary(const MemoryChoice& choice) {
  if (!choice.possible())
    return QObject::tr("%1: %2").arg(QString::fromStdString(choice.name),
                                     QString::fromStdString(choice.problem));
  return QObject::tr("%1 — %2 per device%3")
      .arg(QString::fromStdString(choice.name), bytesText(choice.largestDevice()),
           choice.fits() ? QString() : QObject::tr(", does not fit"));
}

MemoryFiguresView::MemoryFiguresView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("memoryFigures"));
  m_heading = new QLabel(this);
  m_heading->setObjectName(QStringLiteral("memoryHeading"));
  m_heading->setWordWrap(true);
  m_heading->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_model = new QStandardItemModel(0, kMemoryColumns, this);
  m_model->setHorizontalHeaderLabels({tr("Choice"), tr("Device"), tr("Parameters"), tr("Gradients"),
                                      tr("Optimizer"), tr("Activations"), tr("Total"), tr("Device holds")});
  m_table = new QTableView(this);
  m_table->setObjectName(QStringLiteral("memoryTable"));
  m_table->setModel(m_model);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setWordWrap(false);
  m_table->verticalHeader()->setVisible(false);
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
  m_table->horizontalHeader()->setStretchLastSection(false);
  m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  m_table->setMaximumHeight((kMemoryRowsShown + 1) * (m_table->fontMetrics().height() + 6) + 4);
  m_verdict = new QLabel(this);
  m_verdict->setObjectName(QStringLiteral("memoryVerdict"));
  m_verdict->setWordWrap(true);
  m_verdict->setTextFormat(Qt::PlainText);
  m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(m_heading);
  layout->addWidget(m_table);
  layout->addWidget(m_verdict);
  clear();
}

void MemoryFiguresView::clear() {
  m_model->removeRows(0, m_model->rowCount());
  m_heading->clear();
  m_verdict->clear();
  m_refuses = false;
  hide();
}

void MemoryFiguresView::addChoiceRows(const MemoryChoice& choice) {
  const QString name = QString::fromStdString(choice.name);
  if (!choice.possible() && choice.devices.empty()) {
    QList<QStandardItem*> items{new QStandardItem(name),
                                new QStandardItem(QString::fromStdString(choice.problem))};
    for (int c = 2; c < kMemoryColumns; ++c) items << new QStandardItem();
    m_model->appendRow(items);
    m_table->setSpan(m_model->rowCount() - 1, kMemoryDeviceColumn, 1, kMemoryColumns - 1);
    return;
  }
  for (size_t d = 0; d < choice.devices.size(); ++d) {
    const DeviceMemoryEstimate& device = choice.devices[d];
    // A choice the trainer does not offer keeps its figures, greyed, its label saying so: a level this
    // version does not train is "not available yet"; one it refuses for this model (stage 3 of a TorchScript
    // model, which has no layers to gather one by one) is "not possible here", the tooltip saying why.
    const bool notYet = !choice.pipeline && !shardLevelTrains(choice.shard);
    const QString refused = notYet ? tr("%1 (not available yet)") : tr("%1 (not possible here)");
    QString label = d == 0 ? (choice.possible() ? name : refused.arg(name)) : QString();
    if (!device.stage.empty())
      label = (d == 0 ? name + QStringLiteral(" · ") : QStringLiteral("  ")) +
              tr("stage %1").arg(QString::fromStdString(device.stage));
    QList<QStandardItem*> items{
        new QStandardItem(label),
        new QStandardItem(QString::fromStdString(device.device)),
        bytesItem(device.parameters),
        bytesItem(device.gradients),
        bytesItem(device.optimizer_state),
        bytesItem(device.activations),
        bytesItem(device.total()),
        device.capacity > 0 ? bytesItem(device.capacity) : new QStandardItem(tr("unknown"))};
    if (!choice.possible()) {
      for (QStandardItem* item : items) {
        item->setForeground(QPalette().color(QPalette::Disabled, QPalette::Text));
        item->setToolTip(QString::fromStdString(choice.problem));
      }
    } else if (!device.fits()) {
      items[kMemoryTotalColumn]->setForeground(kDoesNotFitColor);
      items[kMemoryTotalColumn]->setToolTip(
          tr("Does not fit: %1 holds %2")
              .arg(QString::fromStdString(device.device), bytesText(device.capacity)));
    }
    if (choice.chosen) {
      for (QStandardItem* item : items) {
        QFont bold = item->font();
        bold.setBold(true);
        item->setFont(bold);
      }
    }
    m_model->appendRow(items);
  }
}

void MemoryFiguresView::showMemory(const TrainingMemory& memory) {
  clear();
  if (!memory.problem.empty()) return;  // the layer table above already says what is wrong
  m_heading->setText(tr("<b>Memory per device</b> (estimated; bold: this experiment's choice): %1")
                         .arg(QString::fromStdString(memory.assumptions).toHtmlEscaped()));
  m_table->clearSpans();
  for (const MemoryChoice& choice : memory.choices) addChoiceRows(choice);
  m_table->resizeColumnsToContents();
  const std::string refusal = memoryRefusal(memory);
  m_refuses = !refusal.empty();
  if (m_refuses) {
    m_verdict->setText(QString::fromStdString(refusal));
  } else if (const MemoryChoice* chosen = memory.chosen()) {
    const bool known = std::all_of(chosen->devices.begin(), chosen->devices.end(),
                                   [](const DeviceMemoryEstimate& d) { return d.capacity > 0; });
    m_verdict->setText(
        known ? tr("%1 fits: at most %2 on a device.")
                    .arg(QString::fromStdString(chosen->name), bytesText(chosen->largestDevice()))
              : tr("A device's memory is unknown here: nothing is refused."));
  }
  m_verdict->setStyleSheet(m_refuses ? kDoesNotFitStyle : QString());
  show();
}

QString MemoryFiguresView::headingText() const {
  return m_heading->text();
}

QString MemoryFiguresView::verdictText() const {
  return m_verdict->text();
}

}  // namespace wb::gui
