#pragma once
// A profile's operator table as a Qt item model: one row per operator (and input shapes), its calls and its
// self and total CPU and CUDA time over the profiled steps, and the memory it allocated. Sorted and filtered
// by a QSortFilterProxyModel over it (kSortRole: numbers as numbers). The CUDA columns show "—" when CUDA was
// not profiled; the view hides them then.

#include <QAbstractTableModel>
#include <vector>

#include "workbench/profile_report.h"

namespace wb::gui {

class ProfileTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kOperator,
    kShapes,
    kCalls,
    kSelfCpu,
    kCpuTotal,
    kSelfCuda,
    kCudaTotal,
    kCpuMemory,
    kCudaMemory,
    kColumnCount
  };
  enum Role {
    kSortRole = Qt::UserRole + 1,  // times and counts as numbers; a missing figure sorts below every one
    kSearchRole,                   // the operator's name and input shapes: what the filter box searches
  };

  explicit ProfileTableModel(QObject* parent = nullptr);

  void setReport(const ProfileReport& report);
  const ProfileReport& report() const { return m_report; }
  bool hasCuda() const { return m_report.cuda_activities; }
  bool hasShapes() const { return m_report.record_shapes; }
  bool hasMemory() const { return m_report.profile_memory; }
  // The totals over every row: self CPU time summed (what the profiled steps spent in operators).
  double selfCpuTotalMs() const;
  double selfCudaTotalMs() const;  // -1 without CUDA

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QVariant display(const ProfileOperatorRow& row, int column) const;
  QVariant sortValue(const ProfileOperatorRow& row, int column) const;

  ProfileReport m_report;
};

// "12.345 ms", "812 µs", "—" for a missing figure (< 0).
QString profileTimeText(double ms);
// "1.2 MiB", "-512 KiB" (memory freed), "—" for a missing figure.
QString profileBytesText(int64_t bytes, bool recorded);

}  // namespace wb::gui
