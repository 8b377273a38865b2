#include "runs_browser/run_compare_window.h"

#include <QDialog>
#include <QVBoxLayout>
#include <algorithm>

#include "runs_browser/run_compare_view.h"
#include "widgets/screen_fit.h"

namespace wb::gui {

RunCompareWindow::RunCompareWindow(QWidget* parent) : m_parent(parent) {}

void RunCompareWindow::show(const std::vector<RunRecord>& runs) {
  if (!m_window) {
    auto* dialog = new QDialog(m_parent, Qt::Window);
    dialog->setObjectName(QStringLiteral("compareRunsWindow"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_view = new RunCompareView(dialog);
    auto* layout = new QVBoxLayout(dialog);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    fitDialogToScreen(dialog, QSize(420 + 180 * static_cast<int>(std::min<size_t>(runs.size(), 5)), 720));
    m_window = dialog;
  }
  m_window->setWindowTitle(tr("Compare %n run(s)", nullptr, static_cast<int>(runs.size())));
  m_view->setRuns(runs);
  m_window->show();
  m_window->raise();
}

RunCompareView* RunCompareWindow::view() const {
  return m_view;
}

}  // namespace wb::gui
