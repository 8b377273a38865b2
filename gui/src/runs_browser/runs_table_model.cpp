#include "runs_browser/runs_table_model.h"

#include <QApplication>
#include <QColor>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QPalette>

#include "compression_view/compression_view.h"
#include "run/run_status_words.h"
#include "workbench/compression.h"

namespace wb::gui {
namespace {

// A child row's internal id is its run's row + 1; a run's is 0.
constexpr quintptr kRunId = 0;

QColor statusColor(RunIndexStatus status, bool dark) {
  switch (status) {
    case RunIndexStatus::Running:
      return dark ? QColor(0x64, 0xb5, 0xf6) : QColor(0x15, 0x65, 0xc0);
    case RunIndexStatus::Finished:
      return dark ? QColor(0x81, 0xc7, 0x84) : QColor(0x2e, 0x7d, 0x32);
    case RunIndexStatus::Failed:
      return dark ? QColor(0xe5, 0x73, 0x73) : QColor(0xc6, 0x28, 0x28);
    case RunIndexStatus::Interrupted:
      return dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0xe6, 0x51, 0x00);
    case RunIndexStatus::Unknown:
      break;
  }
  return {};
}

QString joined(const std::vector<std::string>& words) {
  QStringList list;
  for (const std::string& w : words) list << QString::fromStdString(w);
  return list.join(QStringLiteral(", "));
}

// Seconds a run has trained: its summary's wall time once it ended; while it runs, the time since it started.
double durationOf(const RunRecord& r) {
  if (r.wall_s >= 0) return r.wall_s;
  if (r.status != RunIndexStatus::Running) return -1;
  const QDateTime started = QDateTime::fromString(QString::fromStdString(r.started_at), Qt::ISODate);
  return started.isValid() ? started.secsTo(QDateTime::currentDateTimeUtc()) : -1;
}

}  // namespace

std::vector<RunRow> loadRunRows(const QString& runsDir) {
  std::vector<RunRow> rows;
  if (runsDir.isEmpty()) return rows;
  for (RunRecord& r : listRuns(runsDir.toStdString())) {
    RunRow row;
    const QFileInfo model(QDir(QString::fromStdString(r.folder)).filePath(QStringLiteral("model.pt")));
    row.modelBytes = model.exists() ? model.size() : 0;
    if (r.status == RunIndexStatus::Finished) {
      try {
        for (ArtifactFigures& a : readCompressionReport(r.folder)) {
          if (a.pass) row.artifacts.push_back(std::move(a));
        }
      } catch (const std::exception&) {
        // A damaged compress.json hides the compressed models; the Compression view says what is wrong.
      }
    }
    row.record = std::move(r);
    rows.push_back(std::move(row));
  }
  return rows;
}

RunsTableModel::RunsTableModel(QObject* parent) : QAbstractItemModel(parent) {}

QString RunsTableModel::formatMetric(double value, bool percent) {
  if (value < 0) return QStringLiteral("—");
  return percent ? QStringLiteral("%1 %").arg(value * 100, 0, 'f', 2) : QString::number(value, 'f', 4);
}

QString RunsTableModel::formatDuration(double seconds) {
  if (seconds < 0) return QStringLiteral("—");
  const qint64 s = qRound64(seconds);
  if (s < 60) return QStringLiteral("%1 s").arg(s);
  if (s < 3600) return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
  return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

void RunsTableModel::setRows(std::vector<RunRow> rows) {
  m_dark = QApplication::palette().color(QPalette::Base).lightness() < 128;
  // The index is read again every time it changes (a run elsewhere reports its steps): when the same runs
  // come back, their rows are updated in place, so the selection, the scroll position and a name being edited
  // survive. A run added or deleted, or compressed models added, resets the rows (the browser selects again).
  bool same = rows.size() == m_rows.size() && !m_rows.empty();
  for (size_t i = 0; same && i < m_rows.size(); ++i) {
    same = rows[i].record.folder == m_rows[i].record.folder &&
           rows[i].artifacts.size() == m_rows[i].artifacts.size();
  }
  if (!same) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
    return;
  }
  m_rows = std::move(rows);
  emit dataChanged(index(0, 0), index(static_cast<int>(m_rows.size()) - 1, kColumnCount - 1));
  for (size_t i = 0; i < m_rows.size(); ++i) {
    if (m_rows[i].artifacts.empty()) continue;
    const QModelIndex parent = index(static_cast<int>(i), 0);
    emit dataChanged(index(0, 0, parent),
                     index(static_cast<int>(m_rows[i].artifacts.size()) - 1, kColumnCount - 1, parent));
  }
}

const RunRecord* RunsTableModel::record(const QString& folder) const {
  const int row = runRow(folder);
  return row < 0 ? nullptr : &m_rows[static_cast<size_t>(row)].record;
}

int RunsTableModel::runRow(const QString& folder) const {
  const std::string wanted = folder.toStdString();
  for (size_t i = 0; i < m_rows.size(); ++i) {
    if (m_rows[i].record.folder == wanted) return static_cast<int>(i);
  }
  return -1;
}

void RunsTableModel::setRunInfo(const QString& folder, const QString& name,
                                const std::vector<std::string>& tags, const QString& notes) {
  const int row = runRow(folder);
  if (row < 0) return;
  RunRecord& r = m_rows[static_cast<size_t>(row)].record;
  r.name = name.toStdString();
  r.tags = tags;
  r.notes = notes.toStdString();
  emit dataChanged(index(row, 0), index(row, kColumnCount - 1));
}

QModelIndex RunsTableModel::index(int row, int column, const QModelIndex& parent) const {
  if (column < 0 || column >= kColumnCount || row < 0) return {};
  if (!parent.isValid()) {
    return row < static_cast<int>(m_rows.size()) ? createIndex(row, column, kRunId) : QModelIndex();
  }
  if (parent.internalId() != kRunId) return {};  // compressed models have no children
  const RunRow& run = m_rows[static_cast<size_t>(parent.row())];
  if (row >= static_cast<int>(run.artifacts.size())) return {};
  return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex RunsTableModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kRunId) return {};
  return createIndex(static_cast<int>(child.internalId() - 1), 0, kRunId);
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(m_rows.size());
  if (parent.internalId() != kRunId || parent.column() != 0) return 0;
  return static_cast<int>(m_rows[static_cast<size_t>(parent.row())].artifacts.size());
}

int RunsTableModel::columnCount(const QModelIndex&) const {
  return kColumnCount;
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  if (index.internalId() == kRunId)
    return runData(m_rows[static_cast<size_t>(index.row())], index.column(), role);
  const RunRow& run = m_rows[static_cast<size_t>(index.internalId() - 1)];
  return artifactData(run, run.artifacts[static_cast<size_t>(index.row())], index.column(), role);
}

QVariant RunsTableModel::runData(const RunRow& row, int column, int role) const {
  const RunRecord& r = row.record;
  const QString folder = QString::fromStdString(r.folder);
  switch (role) {
    case kFolderRole:
      return folder;
    case kStatusRole:
      return QString::fromStdString(wordString(r.status));
    case kTagsRole: {
      QStringList tags;
      for (const std::string& tag : r.tags) tags << QString::fromStdString(tag);
      return tags;
    }
    case kSearchTextRole:
      return QStringList{QString::fromStdString(r.name),
                         QString::fromStdString(r.model),
                         QString::fromStdString(r.dataset),
                         QString::fromStdString(r.optimizer),
                         joined(r.tags),
                         QString::fromStdString(r.notes),
                         QDir(folder).dirName(),
                         runStatusWord(r.status)}
          .join(QLatin1Char('\n'));
    case Qt::ForegroundRole:
      return column == kStatus ? QVariant(statusColor(r.status, m_dark)) : QVariant();
    case Qt::TextAlignmentRole:
      switch (column) {
        case kLr:
        case kBatch:
        case kDuration:
        case kValLoss:
        case kValAcc:
        case kTestAcc:
        case kSteps:
        case kSize:
          return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        default:
          return {};
      }
    case Qt::ToolTipRole:
      if (column == kName)
        return QStringLiteral("%1\n%2").arg(QString::fromStdString(r.name), QDir::toNativeSeparators(folder));
      if (column == kTags && !r.notes.empty()) return QString::fromStdString(r.notes);
      if (column == kDevices) return QString::fromStdString(r.devices);
      return {};
    case Qt::EditRole:
      if (column == kName) return QString::fromStdString(r.name);
      [[fallthrough]];
    case Qt::DisplayRole:
      return runText(row, column);
    case kSortRole:
      return runSortKey(row, column);
    default:
      return {};
  }
}

// A run's cell as the list shows it.
QVariant RunsTableModel::runText(const RunRow& row, int column) const {
  const RunRecord& r = row.record;
  const QString folder = QString::fromStdString(r.folder);
  switch (column) {
    case kName:
      return QString::fromStdString(r.name);
    case kStatus:
      return runStatusWord(r.status);
    case kModel:
      return QString::fromStdString(r.model);
    case kData:
      return QString::fromStdString(r.dataset);
    case kOptimizer:
      return QString::fromStdString(r.optimizer);
    case kLr:
      return r.lr > 0 ? QString::number(r.lr, 'g', 3) : QStringLiteral("—");
    case kBatch:
      return r.batch_size > 0 ? QString::number(r.batch_size) : QStringLiteral("—");
    case kAmp:
      return QString::fromStdString(r.amp);
    case kDevices:
      return QString::fromStdString(r.devices);
    case kDuration:
      return formatDuration(durationOf(r));
    case kValLoss:
      return RunsTableModel::formatMetric(r.best_val_loss, false);
    case kValAcc:
      return RunsTableModel::formatMetric(r.best_val_accuracy, true);
    case kTestAcc:
      return RunsTableModel::formatMetric(r.test_accuracy, true);
    case kSteps:
      return QLocale().toString(static_cast<qlonglong>(r.steps));
    case kStarted: {
      const QDateTime started = QDateTime::fromString(QString::fromStdString(r.started_at), Qt::ISODate);
      return started.isValid() ? QLocale().toString(started.toLocalTime(), QLocale::ShortFormat)
                               : QString::fromStdString(r.started_at);
    }
    case kTags:
      return joined(r.tags) + (r.notes.empty() ? QString() : QStringLiteral("  ✎"));
    case kSize:
      return formatMiB(row.modelBytes);
    case kFolder:
      return QDir(folder).dirName();
    default:
      return {};
  }
}

// What a run's column sorts by: the number behind the text where there is one.
QVariant RunsTableModel::runSortKey(const RunRow& row, int column) const {
  const RunRecord& r = row.record;
  switch (column) {
    case kLr:
      return r.lr;
    case kBatch:
      return static_cast<double>(r.batch_size);
    case kDuration:
      return durationOf(r);
    // Not measured sorts last when ascending (best loss first).
    case kValLoss:
      return r.best_val_loss < 0 ? 1e300 : r.best_val_loss;
    case kValAcc:
      return r.best_val_accuracy;
    case kTestAcc:
      return r.test_accuracy;
    case kSteps:
      return static_cast<double>(r.steps);
    case kStarted:
      return QString::fromStdString(r.started_at);
    case kSize:
      return static_cast<double>(row.modelBytes);
    case kStatus:
      return runStatusWord(r.status);
    default:
      return runText(row, column).toString().toLower();
  }
}

QVariant RunsTableModel::artifactData(const RunRow& run, const ArtifactFigures& a, int column,
                                      int role) const {
  switch (role) {
    case kFolderRole:
      return QString::fromStdString(run.record.folder);
    case kArtifactRole:
      return QString::fromStdString(a.path);
    case Qt::ToolTipRole:
      return column == kName || column == kStatus ? QString::fromStdString(a.description) : QVariant();
    case Qt::TextAlignmentRole:
      return column == kTestAcc || column == kSize ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::DisplayRole:
      switch (column) {
        case kName:
          return QString::fromStdString(a.name);
        case kStatus:
          return QString::fromStdString(artifactPassWord(a.pass));
        case kTestAcc:
          return RunsTableModel::formatMetric(a.test_accuracy, true);
        case kSize:
          return formatMiB(a.size_bytes);
        case kFolder:
          return QString::fromStdString(a.path);
        default:
          return {};
      }
    case kSortRole:
      return QString::fromStdString(a.name);
    default:
      return {};
  }
}

bool RunsTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || index.internalId() != kRunId || index.column() != kName || role != Qt::EditRole) {
    return false;
  }
  RunRecord& r = m_rows[static_cast<size_t>(index.row())].record;
  const QString name = value.toString().trimmed();
  if (name == QString::fromStdString(r.name)) return false;
  const QString problem =
      m_rename ? m_rename(QString::fromStdString(r.folder), name) : tr("Renaming is not set up");
  if (!problem.isEmpty()) {
    emit renameFailed(problem);
    return false;
  }
  r.name = name.toStdString();
  emit dataChanged(index, index);
  return true;
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case kName:
        return tr("Name");
      case kStatus:
        return tr("Status");
      case kModel:
        return tr("Model");
      case kData:
        return tr("Data");
      case kOptimizer:
        return tr("Optimizer");
      case kLr:
        return tr("LR");
      case kBatch:
        return tr("Batch");
      case kAmp:
        return tr("AMP");
      case kDevices:
        return tr("Devices");
      case kDuration:
        return tr("Duration");
      case kValLoss:
        return tr("Best val loss");
      case kValAcc:
        return tr("Best val acc");
      case kTestAcc:
        return tr("Test acc");
      case kSteps:
        return tr("Steps");
      case kStarted:
        return tr("Started");
      case kTags:
        return tr("Tags");
      case kSize:
        return tr("Size");
      case kFolder:
        return tr("Folder");
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case kLr:
        return tr("optimizer.lr: the peak learning rate of the schedule");
      case kBatch:
        return tr("train.batch_size (per device)");
      case kDuration:
        return tr("Training time (the summary's wall time; while running, the time since it started)");
      case kTags:
        return tr("Tags; ✎: the run has notes (hover to read them)");
      case kSize:
        return tr("Size of model.pt");
      default:
        return {};
    }
  }
  return {};
}

Qt::ItemFlags RunsTableModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (index.internalId() == kRunId && index.column() == kName) f |= Qt::ItemIsEditable;
  return f;
}

}  // namespace wb::gui
