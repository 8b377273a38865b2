#include "runs/runs_browser.h"

#include <QDateTime>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSet>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

#include "compress/compression_view.h"
#include "workbench/compression.h"
#include "workbench/errors.h"

namespace wb::gui {
namespace {

enum Column { kName, kStatus, kValLoss, kValAcc, kTestAcc, kSteps, kStarted, kSize, kFolder, kColumns };

constexpr int kSortRole = Qt::UserRole + 1;

// Columns with a sort key sort by it (numbers as numbers, dates as ISO text); the others by their text.
// Only runs are sorted: a run's compressed models stay under it, in their order.
class RunItem : public QTreeWidgetItem {
 public:
  using QTreeWidgetItem::QTreeWidgetItem;
  void setCell(int column, const QString& text, const QVariant& sortKey = QVariant()) {
    setText(column, text);
    if (sortKey.isValid()) setData(column, kSortRole, sortKey);
    if (sortKey.typeId() == QMetaType::Double) setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTreeWidgetItem& other) const override {
    const int column = treeWidget() ? treeWidget()->sortColumn() : 0;
    const QVariant a = data(column, kSortRole);
    const QVariant b = other.data(column, kSortRole);
    if (a.typeId() == QMetaType::Double && b.typeId() == QMetaType::Double) return a.toDouble() < b.toDouble();
    if (a.isValid() && b.isValid()) return a.toString() < b.toString();
    return text(column) < other.text(column);
  }
};

QString formatMetric(double value, bool percent) {
  if (value < 0) return QStringLiteral("—");
  return percent ? QStringLiteral("%1 %").arg(value * 100, 0, 'f', 2) : QString::number(value, 'f', 4);
}

QColor statusColor(const std::string& status, bool dark) {
  if (status == "running") return dark ? QColor(0x64, 0xb5, 0xf6) : QColor(0x15, 0x65, 0xc0);
  if (status == "finished") return dark ? QColor(0x81, 0xc7, 0x84) : QColor(0x2e, 0x7d, 0x32);
  if (status == "failed") return dark ? QColor(0xe5, 0x73, 0x73) : QColor(0xc6, 0x28, 0x28);
  if (status == "interrupted") return dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0xe6, 0x51, 0x00);
  return {};
}

}  // namespace

RunsBrowser::RunsBrowser(QWidget* parent) : QWidget(parent) {
  m_header = new QLabel(this);
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* refresh = new QPushButton(tr("Refresh"), this);
  refresh->setObjectName(QStringLiteral("refreshRuns"));
  m_open = new QPushButton(tr("Open"), this);
  m_open->setObjectName(QStringLiteral("openRun"));
  m_open->setToolTip(tr("Show the selected runs' plots instead of the past runs shown now (also: double-click)"));
  m_overlay = new QPushButton(tr("Overlay"), this);
  m_overlay->setObjectName(QStringLiteral("overlayRuns"));
  m_overlay->setToolTip(tr("Add the selected runs to the charts, to compare them with what is shown"));
  m_clone = new QPushButton(tr("Clone into editor"), this);
  m_clone->setObjectName(QStringLiteral("cloneRun"));
  m_clone->setToolTip(tr("Load the run's experiment into the editor as a new, unsaved experiment"));
  m_resume = new QPushButton(tr("Resume"), this);
  m_resume->setObjectName(QStringLiteral("resumeRun"));
  m_resume->setToolTip(tr("Continue an interrupted run from its latest checkpoint"));
  m_showFolder = new QPushButton(tr("Show folder"), this);
  m_showFolder->setToolTip(tr("Open the run's folder in the file manager"));

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(m_header, 1);
  for (QPushButton* b : {m_open, m_overlay, m_clone, m_resume, m_showFolder, refresh}) bar->addWidget(b);

  m_table = new QTreeWidget(this);
  m_table->setObjectName(QStringLiteral("runsTree"));
  m_table->setColumnCount(kColumns);
  m_table->setHeaderLabels({tr("Name"), tr("Status"), tr("Best val loss"), tr("Best val acc"), tr("Test acc"),
                            tr("Steps"), tr("Started"), tr("Size"), tr("Folder")});
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setRootIsDecorated(true);
  m_table->setUniformRowHeights(true);
  m_table->header()->setStretchLastSection(true);
  m_table->setAlternatingRowColors(true);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(kStarted, Qt::DescendingOrder);
  m_table->setWordWrap(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(m_table, 1);

  connect(refresh, &QPushButton::clicked, this, &RunsBrowser::refresh);
  connect(m_open, &QPushButton::clicked, this, &RunsBrowser::openSelected);
  connect(m_overlay, &QPushButton::clicked, this, &RunsBrowser::overlaySelected);
  connect(m_clone, &QPushButton::clicked, this, &RunsBrowser::cloneSelected);
  connect(m_resume, &QPushButton::clicked, this, &RunsBrowser::resumeSelected);
  connect(m_showFolder, &QPushButton::clicked, this, [this] {
    for (const QString& folder : selectedFolders()) QDesktopServices::openUrl(QUrl::fromLocalFile(folder));
  });
  connect(m_table, &QTreeWidget::itemSelectionChanged, this, [this] {
    updateButtons();
    emit selectionChanged();
  });
  connect(m_table, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
    if (!item->parent()) openSelected();  // a compressed model: its row expands or collapses, nothing opens
  });
  connect(m_table, &QTreeWidget::itemCollapsed, this, [this](QTreeWidgetItem* item) {
    m_collapsed.insert(item->data(kName, Qt::UserRole).toString());
  });
  connect(m_table, &QTreeWidget::itemExpanded, this, [this](QTreeWidgetItem* item) {
    m_collapsed.remove(item->data(kName, Qt::UserRole).toString());
  });
  updateButtons();
}

void RunsBrowser::setRunsDir(const QString& dir) {
  if (dir == m_dir) return;
  m_dir = dir;
  refresh();
}

void RunsBrowser::refresh() {
  const QStringList keepSelection = selectedFolders();
  m_records.clear();
  QString problem;
  try {
    if (!m_dir.isEmpty()) m_records = listRuns(m_dir.toStdString());
  } catch (const std::exception& e) {
    problem = QString::fromUtf8(e.what());
  }
  const QString shown = QDir(m_dir).absolutePath();
  if (!problem.isEmpty()) {
    m_header->setText(tr("Runs in %1: %2").arg(shown, problem));
  } else if (m_records.empty()) {
    m_header->setText(tr("No runs in %1 yet: start one with Run ▸ Start (F5).").arg(shown));
  } else {
    m_header->setText(tr("%n run(s) in %1", nullptr, static_cast<int>(m_records.size())).arg(shown));
  }

  const bool dark = palette().color(QPalette::Base).lightness() < 128;
  const QSignalBlocker block(m_table);  // one selectionChanged after the rebuild, not one per row
  m_table->setSortingEnabled(false);
  m_table->clear();
  for (const RunRecord& r : m_records) {
    const QString folder = QString::fromStdString(r.folder);
    auto* item = new RunItem(m_table);
    item->setCell(kName, QString::fromStdString(r.name));
    item->setData(kName, Qt::UserRole, folder);
    item->setToolTip(kName, folder);
    item->setCell(kStatus, QString::fromStdString(r.status));
    item->setForeground(kStatus, statusColor(r.status, dark));
    item->setCell(kValLoss, formatMetric(r.best_val_loss, false), r.best_val_loss < 0 ? 1e300 : r.best_val_loss);
    item->setCell(kValAcc, formatMetric(r.best_val_accuracy, true), r.best_val_accuracy);
    item->setCell(kTestAcc, formatMetric(r.test_accuracy, true), r.test_accuracy);
    item->setCell(kSteps, QLocale().toString(static_cast<qlonglong>(r.steps)), static_cast<double>(r.steps));
    const QDateTime started = QDateTime::fromString(QString::fromStdString(r.started_at), Qt::ISODate);
    item->setCell(kStarted,
                  started.isValid() ? QLocale().toString(started.toLocalTime(), QLocale::ShortFormat)
                                    : QString::fromStdString(r.started_at),
                  QString::fromStdString(r.started_at));
    const QFileInfo model(QDir(folder).filePath(QStringLiteral("model.pt")));
    const qint64 modelBytes = model.exists() ? model.size() : 0;
    item->setCell(kSize, formatMiB(modelBytes), static_cast<double>(modelBytes));
    item->setCell(kFolder, QDir(folder).dirName());

    // The run's compressed models (compress.json is small: read here, as the index is).
    if (r.status != "finished") continue;
    std::vector<ArtifactFigures> artifacts;
    try {
      artifacts = readCompressionReport(r.folder);
    } catch (const std::exception&) {
    }
    for (const ArtifactFigures& a : artifacts) {
      if (a.pass == "original") continue;
      auto* child = new RunItem(item);
      child->setCell(kName, QString::fromStdString(a.name));
      child->setData(kName, Qt::UserRole + 2, QString::fromStdString(a.path));
      child->setToolTip(kName, QString::fromStdString(a.description));
      child->setCell(kStatus, QString::fromStdString(a.pass));
      child->setToolTip(kStatus, QString::fromStdString(a.description));
      child->setCell(kTestAcc, formatMetric(a.test_accuracy, true), a.test_accuracy);
      child->setCell(kSize, formatMiB(a.size_bytes), static_cast<double>(a.size_bytes));
      child->setCell(kFolder, QString::fromStdString(a.path));
    }
    if (item->childCount() > 0 && !m_collapsed.contains(folder)) item->setExpanded(true);
  }
  m_table->setSortingEnabled(true);
  for (int c = 0; c < kColumns - 1; ++c) m_table->resizeColumnToContents(c);
  selectFolders(keepSelection);
  updateButtons();
  emit selectionChanged();
}

int RunsBrowser::rowCount() const { return m_table->topLevelItemCount(); }

QStringList RunsBrowser::selectedFolders() const {
  QStringList folders;
  for (QTreeWidgetItem* item : m_table->selectedItems()) {
    QTreeWidgetItem* run = item->parent() ? item->parent() : item;
    const QString folder = run->data(kName, Qt::UserRole).toString();
    if (!folders.contains(folder)) folders << folder;
  }
  return folders;
}

void RunsBrowser::selectFolders(const QStringList& folders) {
  m_table->clearSelection();
  for (int row = 0; row < m_table->topLevelItemCount(); ++row) {
    QTreeWidgetItem* item = m_table->topLevelItem(row);
    if (folders.contains(item->data(kName, Qt::UserRole).toString())) item->setSelected(true);
  }
}

std::optional<RunRecord> RunsBrowser::selectedRun() const {
  const QStringList folders = selectedFolders();
  if (folders.size() != 1) return std::nullopt;
  for (const RunRecord& r : m_records) {
    if (QString::fromStdString(r.folder) == folders.front()) return r;
  }
  return std::nullopt;
}

QString RunsBrowser::selectedArtifact() const {
  const QList<QTreeWidgetItem*> items = m_table->selectedItems();
  if (items.size() != 1 || !items.front()->parent()) return {};
  return items.front()->data(kName, Qt::UserRole + 2).toString();
}

bool RunsBrowser::selectArtifact(const QString& folder, const QString& artifact) {
  for (int row = 0; row < m_table->topLevelItemCount(); ++row) {
    QTreeWidgetItem* item = m_table->topLevelItem(row);
    if (item->data(kName, Qt::UserRole).toString() != folder) continue;
    for (int i = 0; i < item->childCount(); ++i) {
      if (item->child(i)->data(kName, Qt::UserRole + 2).toString() != artifact) continue;
      m_table->clearSelection();
      item->child(i)->setSelected(true);
      return true;
    }
  }
  return false;
}

QStringList RunsBrowser::artifactNames(const QString& folder) const {
  QStringList names;
  for (int row = 0; row < m_table->topLevelItemCount(); ++row) {
    QTreeWidgetItem* item = m_table->topLevelItem(row);
    if (item->data(kName, Qt::UserRole).toString() != folder) continue;
    for (int i = 0; i < item->childCount(); ++i) names << item->child(i)->text(kName);
  }
  return names;
}

void RunsBrowser::updateButtons() {
  const QStringList folders = selectedFolders();
  m_open->setEnabled(!folders.isEmpty());
  m_overlay->setEnabled(!folders.isEmpty());
  m_clone->setEnabled(folders.size() == 1);
  m_showFolder->setEnabled(!folders.isEmpty());
  bool interrupted = false;
  if (folders.size() == 1) {
    for (const RunRecord& r : m_records) {
      if (QString::fromStdString(r.folder) == folders.front()) interrupted = r.status == "interrupted";
    }
  }
  m_resume->setEnabled(interrupted);
}

void RunsBrowser::openSelected() {
  const QStringList folders = selectedFolders();
  if (!folders.isEmpty()) emit openRequested(folders, true);
}

void RunsBrowser::overlaySelected() {
  const QStringList folders = selectedFolders();
  if (!folders.isEmpty()) emit openRequested(folders, false);
}

void RunsBrowser::cloneSelected() {
  const QStringList folders = selectedFolders();
  if (folders.size() == 1) emit cloneRequested(folders.front());
}

void RunsBrowser::resumeSelected() {
  const QStringList folders = selectedFolders();
  if (folders.size() == 1) emit resumeRequested(folders.front());
}

}  // namespace wb::gui
