#pragma once
// The runs list's selection in terms of runs: the run folders of the selected rows, in the order shown (a
// selected compressed model stands for its run), the one compressed model selected, and selecting runs or a
// compressed model by folder.

#include <QString>
#include <QStringList>
#include <optional>

#include "workbench/run_index.h"

class QTreeView;

namespace wb::gui {

class RunsFilterProxy;
class RunsTableModel;

class RunsSelection {
 public:
  RunsSelection(RunsTableModel* model, RunsFilterProxy* proxy, QTreeView* view);

  int rowCount() const;  // rows, compressed models included
  QStringList folders() const;
  // Selects these runs (those listed and shown), scrolled to the first.
  void select(const QStringList& folders);
  void add(const QString& folder);
  // The one selected run, when exactly one is.
  std::optional<RunRecord> run() const;
  // When exactly one row is selected and it is a compressed model: its folder relative to the run folder
  // ("compressed/02-quantize"); empty otherwise.
  QString artifact() const;
  // Selects one compressed model row ("compressed/02-quantize") under a run; false when it is not shown.
  bool selectArtifact(const QString& folder, const QString& artifact);

 private:
  RunsTableModel* m_model;
  RunsFilterProxy* m_proxy;
  QTreeView* m_view;
};

}  // namespace wb::gui
