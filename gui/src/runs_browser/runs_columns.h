#pragma once
// The runs list's columns: which show (the header's right-click menu; the name always does, steps and size
// are hidden at first so the rest fit a 1,500-pixel-wide window), and their widths, set once when runs are
// first listed: later loads keep the widths the user set.

#include <QObject>

class QPoint;
class QTreeView;

namespace wb::gui {

class RunsTableModel;

class RunsColumns : public QObject {
  Q_OBJECT

 public:
  RunsColumns(QTreeView* view, RunsTableModel* model);

  // The first time the list has runs: each column as wide as its contents, at least as typical values need.
  void fitOnce();

 private:
  void showMenu(const QPoint& at);

  QTreeView* m_view;
  RunsTableModel* m_model;
  bool m_fitted = false;
};

}  // namespace wb::gui
