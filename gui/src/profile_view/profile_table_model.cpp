#include "profile_view/profile_table_model.h"

#include <QLocale>
#include <algorithm>
#include <cmath>
#include <limits>

namespace wb::gui {

QString profileTimeText(double ms) {
  if (ms < 0) return QStringLiteral("—");
  if (ms < 1) return QStringLiteral("%1 µs").arg(ms * 1000, 0, 'f', ms < 0.01 ? 2 : 1);
  return QStringLiteral("%1 ms").arg(ms, 0, 'f', ms < 100 ? 3 : 1);
}

QString profileBytesText(int64_t bytes, bool recorded) {
  if (!recorded || bytes == -1) return QStringLiteral("—");
  const double magnitude = std::abs(static_cast<double>(bytes));
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  for (double m = magnitude; m >= 1024 && unit < 3; m /= 1024, ++unit) value /= 1024;
  return unit == 0 ? QStringLiteral("%1 B").arg(bytes)
                   : QStringLiteral("%1 %2").arg(value, 0, 'f', 1).arg(QLatin1String(units[unit]));
}

ProfileTableModel::ProfileTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProfileTableModel::setReport(const ProfileReport& report) {
  beginResetModel();
  m_report = report;
  endResetModel();
}

double ProfileTableModel::selfCpuTotalMs() const {
  double total = 0;
  for (const ProfileOperatorRow& row : m_report.operators) total += row.self_cpu_ms;
  return total;
}

double ProfileTableModel::selfCudaTotalMs() const {
  if (!hasCuda()) return -1;
  double total = 0;
  for (const ProfileOperatorRow& row : m_report.operators) total += std::max(0.0, row.self_cuda_ms);
  return total;
}

int ProfileTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_report.operators.size());
}

int ProfileTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant ProfileTableModel::display(const ProfileOperatorRow& row, int column) const {
  switch (column) {
    case kOperator:
      return QString::fromStdString(row.name);
    case kShapes:
      return QString::fromStdString(row.input_shapes);
    case kCalls:
      return QLocale(QLocale::English, QLocale::UnitedStates).toString(static_cast<qlonglong>(row.calls));
    case kSelfCpu:
      return profileTimeText(row.self_cpu_ms);
    case kCpuTotal:
      return profileTimeText(row.cpu_total_ms);
    case kSelfCuda:
      return profileTimeText(hasCuda() ? row.self_cuda_ms : -1);
    case kCudaTotal:
      return profileTimeText(hasCuda() ? row.cuda_total_ms : -1);
    case kCpuMemory:
      return profileBytesText(row.cpu_memory_bytes, hasMemory());
    case kCudaMemory:
      return profileBytesText(row.cuda_memory_bytes, hasMemory() && hasCuda());
    default:
      return {};
  }
}

QVariant ProfileTableModel::sortValue(const ProfileOperatorRow& row, int column) const {
  // A figure that was not recorded sorts below every recorded one, whichever way the column is sorted up.
  const double missing = -std::numeric_limits<double>::infinity();
  switch (column) {
    case kOperator:
      return QString::fromStdString(row.name);
    case kShapes:
      return QString::fromStdString(row.input_shapes);
    case kCalls:
      return static_cast<qlonglong>(row.calls);
    case kSelfCpu:
      return row.self_cpu_ms;
    case kCpuTotal:
      return row.cpu_total_ms;
    case kSelfCuda:
      return hasCuda() && row.self_cuda_ms >= 0 ? row.self_cuda_ms : missing;
    case kCudaTotal:
      return hasCuda() && row.cuda_total_ms >= 0 ? row.cuda_total_ms : missing;
    case kCpuMemory:
      return hasMemory() ? static_cast<double>(row.cpu_memory_bytes) : missing;
    case kCudaMemory:
      return hasMemory() && hasCuda() && row.cuda_memory_bytes != -1
                 ? static_cast<double>(row.cuda_memory_bytes)
                 : missing;
    default:
      return {};
  }
}

QVariant ProfileTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const ProfileOperatorRow& row = m_report.operators[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return display(row, index.column());
    case kSortRole:
      return sortValue(row, index.column());
    case kSearchRole:
      return QString::fromStdString(row.name + ' ' + row.input_shapes);
    case Qt::TextAlignmentRole:
      return index.column() >= kCalls ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ToolTipRole:
      if (index.column() == kSelfCpu && selfCpuTotalMs() > 0)
        return tr("%1 % of the operators' self CPU time")
            .arg(100 * row.self_cpu_ms / selfCpuTotalMs(), 0, 'f', 1);
      if (index.column() == kSelfCuda && hasCuda() && selfCudaTotalMs() > 0 && row.self_cuda_ms >= 0)
        return tr("%1 % of the kernels' time").arg(100 * row.self_cuda_ms / selfCudaTotalMs(), 0, 'f', 1);
      if (index.column() <= kShapes) return display(row, index.column());  // long names and shapes, whole
      return {};
    default:
      return {};
  }
}

QVariant ProfileTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case kOperator:
        return tr("Operator");
      case kShapes:
        return tr("Input shapes");
      case kCalls:
        return tr("Calls");
      case kSelfCpu:
        return tr("Self CPU");
      case kCpuTotal:
        return tr("CPU total");
      case kSelfCuda:
        return tr("Self CUDA");
      case kCudaTotal:
        return tr("CUDA total");
      case kCpuMemory:
        return tr("CPU memory");
      case kCudaMemory:
        return tr("CUDA memory");
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case kSelfCpu:
      case kSelfCuda:
        return tr(
            "Time in the operator itself, the operators it called left out, summed over the profiled "
            "steps");
      case kCpuTotal:
      case kCudaTotal:
        return tr("Time in the operator and the operators it called, summed over the profiled steps");
      case kCpuMemory:
      case kCudaMemory:
        return tr("Bytes allocated minus bytes freed, by the operator and those it called");
      default:
        return {};
    }
  }
  return {};
}

}  // namespace wb::gui
