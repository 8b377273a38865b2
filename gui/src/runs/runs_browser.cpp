#include "runs/runs_browser.h"

#include <QDateTime>
#include <QDesktopServices>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>

#include "workbench/errors.h"

namespace wb::gui {
namespace {

enum Column { kName, kStatus, kValLoss, kValAcc, kTestAcc, kSteps, kStarted, kFolder, kColumns };

// Numbers sort as numbers, not as text.
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(double value, const QString& text) : QTableWidgetItem(text) {
    setData(Qt::UserRole + 1, value);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    return data(Qt::UserRole + 1).toDouble() < other.data(Qt::UserRole + 1).toDouble();
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

  m_table = new QTableWidget(0, kColumns, this);
  m_table->setHorizontalHeaderLabels({tr("Name"), tr("Status"), tr("Best val loss"), tr("Best val acc"),
                                      tr("Test acc"), tr("Steps"), tr("Started"), tr("Folder")});
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->setVisible(false);
  m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setAlternatingRowColors(true);
  m_table->setSortingEnabled(true);
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
  connect(m_table, &QTableWidget::itemSelectionChanged, this, &RunsBrowser::updateButtons);
  connect(m_table, &QTableWidget::itemDoubleClicked, this, [this] { openSelected(); });
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
  m_table->setSortingEnabled(false);
  m_table->clearContents();
  m_table->setRowCount(static_cast<int>(m_records.size()));
  for (int row = 0; row < static_cast<int>(m_records.size()); ++row) {
    const RunRecord& r = m_records[row];
    const QString folder = QString::fromStdString(r.folder);
    auto* name = new QTableWidgetItem(QString::fromStdString(r.name));
    name->setData(Qt::UserRole, folder);
    name->setToolTip(folder);
    m_table->setItem(row, kName, name);
    auto* status = new QTableWidgetItem(QString::fromStdString(r.status));
    status->setForeground(statusColor(r.status, dark));
    m_table->setItem(row, kStatus, status);
    m_table->setItem(row, kValLoss, new NumberItem(r.best_val_loss < 0 ? 1e300 : r.best_val_loss,
                                                    formatMetric(r.best_val_loss, false)));
    m_table->setItem(row, kValAcc, new NumberItem(r.best_val_accuracy, formatMetric(r.best_val_accuracy, true)));
    m_table->setItem(row, kTestAcc, new NumberItem(r.test_accuracy, formatMetric(r.test_accuracy, true)));
    m_table->setItem(row, kSteps, new NumberItem(static_cast<double>(r.steps), QLocale().toString(static_cast<qlonglong>(r.steps))));
    const QDateTime started = QDateTime::fromString(QString::fromStdString(r.started_at), Qt::ISODate);
    auto* date = new QTableWidgetItem(started.isValid() ? QLocale().toString(started.toLocalTime(), QLocale::ShortFormat)
                                                        : QString::fromStdString(r.started_at));
    date->setData(Qt::UserRole + 1, QString::fromStdString(r.started_at));
    m_table->setItem(row, kStarted, date);
    m_table->setItem(row, kFolder, new QTableWidgetItem(QDir(folder).dirName()));
  }
  m_table->setSortingEnabled(true);
  m_table->resizeColumnsToContents();
  selectFolders(keepSelection);
  updateButtons();
}

int RunsBrowser::rowCount() const { return m_table->rowCount(); }

QStringList RunsBrowser::selectedFolders() const {
  QStringList folders;
  for (const QModelIndex& index : m_table->selectionModel()->selectedRows(kName)) {
    folders << m_table->item(index.row(), kName)->data(Qt::UserRole).toString();
  }
  return folders;
}

void RunsBrowser::selectFolders(const QStringList& folders) {
  m_table->clearSelection();
  for (int row = 0; row < m_table->rowCount(); ++row) {
    QTableWidgetItem* item = m_table->item(row, kName);
    if (item && folders.contains(item->data(Qt::UserRole).toString())) {
      m_table->selectionModel()->select(m_table->model()->index(row, 0),
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
  }
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
