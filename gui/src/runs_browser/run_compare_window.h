#pragma once
// The Compare window: the selected runs' settings and results side by side (run_compare_view.h), in one
// window of its own that a later Compare fills again and brings to the front.

#include <QCoreApplication>
#include <QPointer>
#include <QWidget>
#include <vector>

#include "workbench/run_index.h"

namespace wb::gui {

class RunCompareView;

class RunCompareWindow {
  Q_DECLARE_TR_FUNCTIONS(RunCompareWindow)

 public:
  explicit RunCompareWindow(QWidget* parent);

  void show(const std::vector<RunRecord>& runs);
  RunCompareView* view() const;  // null before the first Compare and after the window closes

 private:
  QWidget* m_parent;
  QPointer<QWidget> m_window;
  // Guarded (nulled when the window closes): a lambda on destroyed() ran while the browser was itself being
  // destroyed (its children go last), touching a member of a half-destroyed object (UBSan).
  QPointer<RunCompareView> m_view;
};

}  // namespace wb::gui
