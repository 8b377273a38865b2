#include "profile_view/profile_view.h"

#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>
#include <optional>

#include "app/off_thread.h"
#include "profile_view/profile_table_model.h"
#include "widgets/eliding_label.h"
#include "workbench/errors.h"
#include "workbench/word_set.h"

namespace wb::gui {
namespace {

// The step's time outside every phase is drawn only when it is more than this share of the step: a rounding
// sliver would be a segment nobody can read.
constexpr double kProfileOtherShare = 0.02;

QColor phaseColor(StepPhase phase) {
  switch (phase) {
    case StepPhase::Data:
      return QColor(0xd9, 0x77, 0x06);
    case StepPhase::Forward:
      return QColor(0x25, 0x63, 0xeb);
    case StepPhase::Backward:
      return QColor(0x7c, 0x3a, 0xed);
    case StepPhase::Optimizer:
      return QColor(0x05, 0x96, 0x69);
    case StepPhase::Allreduce:
      return QColor(0xdc, 0x26, 0x26);
  }
  return Qt::gray;
}

// A run folder's newest profile, for a worker thread: none when the folder has none, a problem when the file
// cannot be read.
struct FolderProfile {
  std::optional<ProfileReport> report;
  QString problem;
};

FolderProfile readLatestProfile(const std::string& runDir) {
  FolderProfile out;
  try {
    const std::vector<std::string> paths = profileReportPaths(runDir);
    if (!paths.empty()) out.report = readProfileReport(paths.back());
  } catch (const std::exception& e) {
    out.problem = QString::fromStdString(e.what());
  }
  return out;
}

}  // namespace

std::vector<PhaseSegment> phaseSegments(const ProfileReport& report) {
  std::vector<PhaseSegment> segments;
  double measured = 0;
  for (const Word<StepPhase>& word : Words<StepPhase>::table) {
    PhaseSegment segment{QString::fromStdString(std::string(word.word)), -1, phaseColor(word.value)};
    for (const PhaseTime& time : report.phases) {
      if (time.phase == word.value) segment.ms = time.ms;
    }
    if (segment.ms > 0) measured += segment.ms;
    segments.push_back(segment);
  }
  const double other = report.step_ms - measured;
  if (report.step_ms > 0 && other > kProfileOtherShare * report.step_ms)
    segments.push_back({QObject::tr("other"), other, QColor(0x9c, 0xa3, 0xaf)});
  return segments;
}

ProfileView::ProfileView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("profileView"));
  auto* layout = new QVBoxLayout(this);
  m_pages = new QStackedWidget;
  m_pages->addWidget(buildEmptyPage());
  m_pages->addWidget(buildReportPage());
  layout->addWidget(m_pages);
  clear();
}

QWidget* ProfileView::buildEmptyPage() {
  m_empty = new QLabel(tr(
      "<p><b>No profile yet.</b></p>"
      "<p>While a run trains in this window, choose <b>Run ▸ Profile Steps…</b> to record a few of its steps "
      "with LibTorch's profiler. The step's phases and the operators that took the time appear here, and "
      "the trace is written into the run folder, to open in ui.perfetto.dev or chrome://tracing.</p>"
      "<p>From a shell: <code>workbench-cli profile EXPERIMENT --steps 10</code>, or "
      "<code>workbench-cli train EXPERIMENT --profile START:N</code>. Opening a run that has a profile shows "
      "it here too.</p>"));
  m_empty->setObjectName(QStringLiteral("profileEmpty"));
  m_empty->setWordWrap(true);
  m_empty->setAlignment(Qt::AlignCenter);
  m_empty->setMargin(24);
  m_empty->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return m_empty;
}

QWidget* ProfileView::buildReportPage() {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  m_header = new ElidingLabel;
  m_header->setObjectName(QStringLiteral("profileHeader"));
  layout->addWidget(m_header);
  m_phases = new PhaseBar;
  layout->addWidget(m_phases);

  auto* traceRow = new QHBoxLayout;
  m_trace = new ElidingLabel;
  m_trace->setObjectName(QStringLiteral("profileTrace"));
  m_trace->setTextInteractionFlags(Qt::TextSelectableByMouse);
  traceRow->addWidget(m_trace, 1);
  m_openFolder = new QPushButton(tr("Open Folder"));
  m_openFolder->setObjectName(QStringLiteral("profileOpenFolder"));
  m_openFolder->setToolTip(tr("The folder that holds the trace, in the file manager"));
  connect(m_openFolder, &QPushButton::clicked, this,
          [this] { QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(tracePath()).absolutePath())); });
  traceRow->addWidget(m_openFolder);
  layout->addLayout(traceRow);
  auto* note =
      new QLabel(tr("Open the trace in ui.perfetto.dev or chrome://tracing (drag the file onto the page)."));
  note->setObjectName(QStringLiteral("profileTraceNote"));
  note->setWordWrap(true);
  note->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(note);

  m_filter = new QLineEdit;
  m_filter->setObjectName(QStringLiteral("profileFilter"));
  m_filter->setPlaceholderText(tr("Filter operators by name or shapes (conv, addmm, [64, …)"));
  m_filter->setClearButtonEnabled(true);
  layout->addWidget(m_filter);

  m_model = new ProfileTableModel(this);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(ProfileTableModel::kSortRole);
  m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  m_proxy->setFilterRole(ProfileTableModel::kSearchRole);  // the name or the shapes, not the figures
  connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
  m_table = new QTableView;
  m_table->setObjectName(QStringLiteral("profileTable"));
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setWordWrap(false);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(false);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  m_table->setTextElideMode(Qt::ElideMiddle);
  layout->addWidget(m_table, 1);
  return page;
}

void ProfileView::clear() {
  m_hasReport = false;
  ++m_loadGeneration;
  m_model->setReport(ProfileReport{});
  m_phases->setPhases({});
  m_header->setText(QString());
  m_trace->setText(QString());
  m_pages->setCurrentIndex(0);
}

const ProfileReport& ProfileView::report() const {
  return m_model->report();
}

void ProfileView::showReport(const ProfileReport& report, const QString& run) {
  ++m_loadGeneration;  // a folder load still in flight is older than this
  m_hasReport = true;
  m_model->setReport(report);
  m_phases->setPhases(phaseSegments(report));
  QString header = tr("Steps %1–%2").arg(report.first_step + 1).arg(report.first_step + report.steps);
  if (!run.isEmpty()) header += tr(" of %1").arg(run);
  header += tr(" on %1 (%2 profiler): %3 a step, operators %4 self CPU")
                .arg(QString::fromStdString(report.device),
                     QString::fromStdString(wordString(report.profiler)), profileTimeText(report.step_ms),
                     profileTimeText(report.steps > 0 ? m_model->selfCpuTotalMs() / report.steps : -1));
  if (report.cuda_activities)
    header += tr(", kernels %1 self CUDA")
                  .arg(profileTimeText(report.steps > 0 ? m_model->selfCudaTotalMs() / report.steps : -1));
  if (report.world_size > 1) header += tr("; rank %1 of %2 profiled").arg(report.rank).arg(report.world_size);
  m_header->setText(header);
  m_header->setToolTip(
      tr("Times in the table are summed over the %n profiled step(s); the bar's are per step.", nullptr,
         static_cast<int>(report.steps)));
  m_trace->setText(report.trace_path.empty()
                       ? tr("No trace was written.")
                       : tr("Trace: %1").arg(QString::fromStdString(report.trace_path)));
  m_openFolder->setEnabled(!report.trace_path.empty());
  showColumns();
  m_table->sortByColumn(ProfileTableModel::kSelfCpu, Qt::DescendingOrder);  // the engine's order
  m_table->resizeColumnsToContents();
  // A long operator name or shape list does not push the figures out of sight.
  for (const int column : {ProfileTableModel::kOperator, ProfileTableModel::kShapes})
    m_table->setColumnWidth(column, std::min(m_table->columnWidth(column), 320));
  m_pages->setCurrentIndex(1);
}

void ProfileView::showColumns() {
  // On a CPU run there is nothing to show in the CUDA columns; shapes and memory only when recorded.
  const bool cuda = m_model->hasCuda();
  m_table->setColumnHidden(ProfileTableModel::kSelfCuda, !cuda);
  m_table->setColumnHidden(ProfileTableModel::kCudaTotal, !cuda);
  m_table->setColumnHidden(ProfileTableModel::kShapes, !m_model->hasShapes());
  m_table->setColumnHidden(ProfileTableModel::kCpuMemory, !m_model->hasMemory());
  m_table->setColumnHidden(ProfileTableModel::kCudaMemory, !(cuda && m_model->hasMemory()));
}

void ProfileView::loadRunFolder(const QString& runDir) {
  const int generation = ++m_loadGeneration;
  const std::string dir = QDir(runDir).absolutePath().toStdString();
  runOffThread(
      this, [dir] { return readLatestProfile(dir); },
      [this, runDir, generation](const FolderProfile& loaded) {
        if (generation != m_loadGeneration) return;  // another profile or folder was asked for since
        if (loaded.report) showReport(*loaded.report, QDir(runDir).dirName());
        emit this->loaded(runDir, loaded.report.has_value(), loaded.problem);
      });
}

QString ProfileView::headerText() const {
  return m_header->text();
}

QString ProfileView::emptyText() const {
  return m_pages->currentIndex() == 0 ? m_empty->text() : QString();
}

QString ProfileView::tracePath() const {
  return QString::fromStdString(report().trace_path);
}

}  // namespace wb::gui
