#pragma once
// The runs of a runs folder as a Qt item model: one row per run (what the index says: name, status, what was
// trained, metrics, tags), and under a finished run one child row per compressed model of its compress.json.
// The rows are loaded off the UI thread (loadRunRows) and handed over whole (setRows); the model itself never
// touches the disk, except to store a rename made by editing the Name cell.

#include <QAbstractItemModel>
#include <QString>
#include <functional>
#include <vector>

#include "workbench/events.h"
#include "workbench/run_index.h"

namespace wb::gui {

struct RunRow {
  RunRecord record;
  qint64 modelBytes = 0;                   // model.pt, 0 when absent
  std::vector<ArtifactFigures> artifacts;  // compressed models (not the original)
};

// Everything the list shows of a runs folder: the index (one query) and, per finished run, the size of its
// model and its compress.json. For a worker thread. Throws wb::UserError when the index cannot be read.
std::vector<RunRow> loadRunRows(const QString& runsDir);

class RunsTableModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum Column {
    kName,
    kStatus,
    kModel,
    kData,
    kOptimizer,
    kLr,
    kBatch,
    kAmp,
    kDevices,
    kDuration,
    kValLoss,
    kValAcc,
    kTestAcc,
    kSteps,
    kStarted,
    kTags,
    kSize,
    kFolder,
    kColumnCount
  };
  enum Role {
    kSortRole = Qt::UserRole + 1,  // numbers as numbers, dates as ISO text
    kFolderRole,                   // the run folder (children: their run's)
    kArtifactRole,                 // children: "compressed/02-quantize"
    kSearchTextRole,  // name, model, data, optimizer, tags, notes, folder: what the filter searches
    kStatusRole,      // the index's status word ("finished")
    kTagsRole,        // the run's tags as a QStringList
  };

  explicit RunsTableModel(QObject* parent = nullptr);

  void setRows(std::vector<RunRow> rows);
  const std::vector<RunRow>& rows() const { return m_rows; }
  const RunRecord* record(const QString& folder) const;
  int runRow(const QString& folder) const;  // -1 when absent
  // Replaces one run's name, tags and notes in the rows shown (after they were stored).
  void setRunInfo(const QString& folder, const QString& name, const std::vector<std::string>& tags,
                  const QString& notes);
  // Called by setData on the Name cell: stores the new name; returns an error message, empty when it worked.
  void setRenameHandler(std::function<QString(const QString& folder, const QString& name)> handler) {
    m_rename = std::move(handler);
  }

  QModelIndex index(int row, int column, const QModelIndex& parent = QModelIndex()) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;

  static QString formatDuration(double seconds);
  // A loss with 4 decimals, an accuracy as a percentage; "—" where the run has none (negative).
  static QString formatMetric(double value, bool percent);

 signals:
  void renameFailed(const QString& message);

 private:
  QVariant runData(const RunRow& row, int column, int role) const;
  QVariant runText(const RunRow& row, int column) const;
  QVariant runSortKey(const RunRow& row, int column) const;
  QVariant artifactData(const RunRow& run, const ArtifactFigures& a, int column, int role) const;

  std::vector<RunRow> m_rows;
  std::function<QString(const QString&, const QString&)> m_rename;
  bool m_dark = false;
};

}  // namespace wb::gui
