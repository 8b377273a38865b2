#include "runs_browser/interrupted_runs_dialog.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run/run_status_words.h"
#include "widgets/screen_fit.h"
#include "workbench/event_json.h"
#include "workbench/experiment.h"
#include "workbench/run_index.h"

namespace wb::gui {
namespace {

enum ResumeColumn { kName, kReached, kCheckpoint, kModel, kFolder, kResumeColumns };

// "MLP (preset)", "layer list (6 layers)", "TorchScript model.pt": what the run trains, from its
// experiment.json.
QString describeModel(const QString& runDir) {
  const ParseResult parsed =
      loadExperimentFile(QDir(runDir).filePath(QStringLiteral("experiment.json")).toStdString());
  if (!parsed.ok()) return InterruptedRunsDialog::tr("(experiment.json unreadable)");
  const ModelConfig& m = parsed.experiment.model;
  if (!m.torchscript.empty()) {
    return InterruptedRunsDialog::tr("TorchScript %1")
        .arg(QFileInfo(QString::fromStdString(m.torchscript)).fileName());
  }
  if (!m.preset.empty())
    return InterruptedRunsDialog::tr("%1 (preset)").arg(QString::fromStdString(m.preset));
  return InterruptedRunsDialog::tr("layer list");
}

// The newest file under checkpoints/: when the run last wrote one.
QDateTime lastCheckpointTime(const QString& runDir) {
  const QDir dir(QDir(runDir).filePath(QStringLiteral("checkpoints")));
  const QFileInfoList files = dir.entryInfoList(QDir::Files, QDir::Time);
  return files.isEmpty() ? QDateTime() : files.front().lastModified();
}

}  // namespace

InterruptedRunsDialog::InterruptedRunsDialog(const QString& runsDir, QWidget* parent)
    : QDialog(parent), m_runsDir(runsDir) {
  setObjectName(QStringLiteral("interruptedRunsDialog"));
  setWindowTitle(tr("Resume an Interrupted Run"));
  m_header = new QLabel(this);
  m_header->setWordWrap(true);
  m_list = new QTreeWidget(this);
  m_list->setObjectName(QStringLiteral("interruptedRuns"));
  m_list->setColumnCount(kResumeColumns);
  m_list->setHeaderLabels({tr("Name"), tr("Reached"), tr("Last checkpoint"), tr("Model"), tr("Folder")});
  m_list->setRootIsDecorated(false);
  m_list->setAllColumnsShowFocus(true);
  m_list->setSelectionMode(QAbstractItemView::SingleSelection);
  m_list->header()->setStretchLastSection(true);
  auto* buttons = new QDialogButtonBox(this);
  m_resume = buttons->addButton(tr("Resume"), QDialogButtonBox::AcceptRole);
  m_resume->setObjectName(QStringLiteral("resumeChosenRun"));
  QPushButton* other = buttons->addButton(tr("Other Folder…"), QDialogButtonBox::ActionRole);
  other->setObjectName(QStringLiteral("resumeOtherFolder"));
  other->setToolTip(tr("A run folder outside %1").arg(QDir::toNativeSeparators(runsDir)));
  buttons->addButton(QDialogButtonBox::Cancel);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_header);
  layout->addWidget(m_list, 1);
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &InterruptedRunsDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(other, &QPushButton::clicked, this, [this] {
    reject();
    emit otherFolderRequested();
  });
  connect(m_list, &QTreeWidget::itemSelectionChanged, this,
          [this] { m_resume->setEnabled(!selectedFolder().isEmpty()); });
  connect(m_list, &QTreeWidget::itemDoubleClicked, this, [this] { accept(); });
  fitDialogToScreen(this, QSize(820, 360));
  fill();
}

void InterruptedRunsDialog::fill() {
  std::vector<RunRecord> records;
  QString problem;
  try {
    if (!m_runsDir.isEmpty()) records = listRuns(m_runsDir.toStdString());
  } catch (const std::exception& e) {
    problem = QString::fromUtf8(e.what());
  }
  const QLocale locale;
  for (const RunRecord& r : records) {
    if (r.status != RunIndexStatus::Interrupted) continue;
    const QString folder = QString::fromStdString(r.folder);
    auto* item = new QTreeWidgetItem(m_list);
    item->setText(kName, QString::fromStdString(r.name));
    item->setData(kName, Qt::UserRole, folder);
    item->setText(
        kReached,
        tr("step %1, epoch %2").arg(locale.toString(static_cast<qlonglong>(r.steps))).arg(r.epochs));
    const QDateTime when = lastCheckpointTime(folder);
    item->setText(kCheckpoint, when.isValid() ? locale.toString(when, QLocale::ShortFormat) : tr("none"));
    item->setText(kModel, describeModel(folder));
    item->setText(kFolder, QDir(folder).dirName());
    item->setToolTip(kFolder, folder);
  }
  const QString shown = QDir::toNativeSeparators(QDir(m_runsDir).absolutePath());
  if (!problem.isEmpty()) {
    m_header->setText(tr("The runs of %1 could not be read: %2").arg(shown, problem));
  } else if (m_list->topLevelItemCount() == 0) {
    m_header->setText(
        tr("No interrupted run in %1. A run stopped with Run ▸ Stop (or closed with the window) is "
           "listed here; Other Folder… resumes one kept elsewhere.")
            .arg(shown));
  } else {
    m_header->setText(
        tr("Interrupted runs in %1: each continues from its latest checkpoint, exactly where it "
           "stopped.")
            .arg(shown));
    m_list->setCurrentItem(m_list->topLevelItem(0));
  }
  for (int c = 0; c < kResumeColumns - 1; ++c) m_list->resizeColumnToContents(c);
  m_resume->setEnabled(!selectedFolder().isEmpty());
}

int InterruptedRunsDialog::runCount() const {
  return m_list->topLevelItemCount();
}

bool InterruptedRunsDialog::selectFolder(const QString& folder) {
  for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
    QTreeWidgetItem* item = m_list->topLevelItem(i);
    if (QDir(item->data(kName, Qt::UserRole).toString()) == QDir(folder)) {
      m_list->setCurrentItem(item);
      return true;
    }
  }
  return false;
}

QString InterruptedRunsDialog::selectedFolder() const {
  const QList<QTreeWidgetItem*> items = m_list->selectedItems();
  return items.isEmpty() ? QString() : items.front()->data(kName, Qt::UserRole).toString();
}

void InterruptedRunsDialog::accept() {
  const QString folder = selectedFolder();
  if (folder.isEmpty()) return;
  QDialog::accept();
  emit resumeRequested(folder);
}

ResumeRefusal checkResumable(const QString& runDir) {
  const QDir dir(runDir);
  if (!QFileInfo::exists(dir.filePath(QStringLiteral("experiment.json")))) {
    return {
        InterruptedRunsDialog::tr("Not a run folder"),
        InterruptedRunsDialog::tr("%1 has no experiment.json: it is not a folder the workbench ran.")
            .arg(QDir::toNativeSeparators(runDir)),
        InterruptedRunsDialog::tr("Choose a run folder (a folder of the runs folder, named <date>-<name>).")};
  }
  std::ifstream in(dir.filePath(QStringLiteral("summary.json")).toStdString());
  const nlohmann::json summary = in ? nlohmann::json::parse(in, nullptr, false) : nlohmann::json();
  if (!summary.is_object()) return {};
  const RunStatus status = summaryFromJson(summary).status;
  if (status != RunStatus::Completed && status != RunStatus::EarlyStopped) return {};
  return {
      InterruptedRunsDialog::tr("This run has already finished"),
      InterruptedRunsDialog::tr("%1 is %2: it trained to its end, so there is nothing to resume.")
          .arg(dir.dirName(), runStatusWord(status)),
      InterruptedRunsDialog::tr("To train it further or again, select it in the Runs panel and Clone it into "
                                "the editor (raise the epochs there), then Run ▸ Start.")};
}

}  // namespace wb::gui
