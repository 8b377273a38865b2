#include "runs_browser/runs_browser_actions.h"

#include <QAction>
#include <QDesktopServices>
#include <QItemSelectionModel>
#include <QKeySequence>
#include <QMenu>
#include <QPushButton>
#include <QTreeView>
#include <QUrl>
#include <optional>

#include "runs_browser/run_compare_window.h"
#include "runs_browser/run_folder_edits.h"
#include "runs_browser/runs_browser.h"
#include "runs_browser/runs_table_model.h"

namespace wb::gui {

RunsBrowserActions::RunsBrowserActions(RunsBrowser* browser, QTreeView* view)
    : QObject(browser),
      m_browser(browser),
      m_view(view),
      m_compareWindow(std::make_unique<RunCompareWindow>(browser)) {
  buildButtons();
  buildActions();
  connect(m_view, &QTreeView::customContextMenuRequested, this, &RunsBrowserActions::showContextMenu);
}

RunsBrowserActions::~RunsBrowserActions() = default;

void RunsBrowserActions::buildButtons() {
  m_open = new QPushButton(tr("Open"), m_browser);
  m_open->setObjectName(QStringLiteral("openRun"));
  m_open->setToolTip(
      tr("Show the selected runs' plots instead of the past runs shown now (also: double-click)"));
  m_overlay = new QPushButton(tr("Overlay"), m_browser);
  m_overlay->setObjectName(QStringLiteral("overlayRuns"));
  m_overlay->setToolTip(tr("Add the selected runs to the charts, each in its own colour"));
  m_compare = new QPushButton(tr("Compare"), m_browser);
  m_compare->setObjectName(QStringLiteral("compareRuns"));
  m_compare->setToolTip(tr("The selected runs' settings and results side by side, differences marked"));
  m_resume = new QPushButton(tr("Resume"), m_browser);
  m_resume->setObjectName(QStringLiteral("resumeRun"));
  m_resume->setToolTip(tr("Continue an interrupted run from its latest checkpoint"));
  m_backToLive = new QPushButton(tr("Back to Live Run"), m_browser);
  m_backToLive->setObjectName(QStringLiteral("backToLiveRun"));
  m_backToLive->setToolTip(tr("Remove the past runs from the charts and show the run training now"));
  m_backToLive->setVisible(false);
  connect(m_open, &QPushButton::clicked, this, &RunsBrowserActions::openSelected);
  connect(m_overlay, &QPushButton::clicked, this, &RunsBrowserActions::overlaySelected);
  connect(m_compare, &QPushButton::clicked, this, &RunsBrowserActions::compareSelected);
  connect(m_resume, &QPushButton::clicked, this, &RunsBrowserActions::resumeSelected);
  connect(m_backToLive, &QPushButton::clicked, this, &RunsBrowserActions::backToLiveRequested);
}

QList<QPushButton*> RunsBrowserActions::buttons() const {
  return {m_backToLive, m_open, m_overlay, m_compare, m_resume};
}

void RunsBrowserActions::buildActions() {
  struct Spec {
    const char* name;
    QString text;
    QKeySequence key;
    void (RunsBrowserActions::*slot)();
  };
  const Spec specs[] = {
      {"runOpen", tr("&Open"), QKeySequence(), &RunsBrowserActions::openSelected},  // also: double-click
      {"runOverlay", tr("O&verlay on the Charts"), QKeySequence(), &RunsBrowserActions::overlaySelected},
      {"runCompare", tr("&Compare Settings…"), QKeySequence(), &RunsBrowserActions::compareSelected},
      {"runEvaluate", tr("&Evaluate…"), QKeySequence(), &RunsBrowserActions::evaluateSelected},
      {"runRename", tr("&Rename"), QKeySequence(Qt::Key_F2), &RunsBrowserActions::renameSelected},
      {"runNotes", tr("&Tags and Notes…"), QKeySequence(), &RunsBrowserActions::editNotesSelected},
      {"runClone", tr("C&lone into Editor"), QKeySequence(), &RunsBrowserActions::cloneSelected},
      {"runResume", tr("Res&ume"), QKeySequence(), &RunsBrowserActions::resumeSelected},
      {"runReveal", tr("Reveal &Folder"), QKeySequence(), nullptr},
      {"runDelete", tr("&Delete…"), QKeySequence(QKeySequence::Delete), &RunsBrowserActions::deleteSelected},
  };
  for (const Spec& spec : specs) {
    auto* a = new QAction(spec.text, m_browser);
    a->setObjectName(QLatin1String(spec.name));
    if (!spec.key.isEmpty()) {
      a->setShortcut(spec.key);
      a->setShortcutContext(Qt::WidgetWithChildrenShortcut);  // the list's keys, not the window's
      m_view->addAction(a);
    }
    if (spec.slot) {
      connect(a, &QAction::triggered, this, spec.slot);
    } else {
      connect(a, &QAction::triggered, this, [this] {
        for (const QString& folder : m_browser->selectedFolders())
          QDesktopServices::openUrl(QUrl::fromLocalFile(folder));
      });
    }
    m_actions << a;
  }
}

QAction* RunsBrowserActions::action(const QString& objectName) const {
  for (QAction* a : m_actions) {
    if (a->objectName() == objectName) return a;
  }
  return nullptr;
}

void RunsBrowserActions::setLiveRunActive(bool active) {
  m_liveActive = active;
  update();
}

void RunsBrowserActions::setPastRunsShown(bool shown) {
  m_pastRunsShown = shown;
  update();
}

void RunsBrowserActions::update() {
  const QStringList folders = m_browser->selectedFolders();
  const bool any = !folders.isEmpty();
  const bool one = folders.size() == 1;
  const std::optional<RunRecord> r = one ? m_browser->run(folders.front()) : std::nullopt;
  const bool interrupted = r && r->status == RunIndexStatus::Interrupted;
  m_open->setEnabled(any);
  m_overlay->setEnabled(any);
  m_compare->setEnabled(folders.size() >= 2);
  m_compare->setToolTip(folders.size() >= 2 ? tr("The selected runs' settings and results side by side, "
                                                 "differences marked")
                                            : tr("Select two or more runs (Ctrl+click) to compare them"));
  m_resume->setEnabled(interrupted);
  m_backToLive->setVisible(m_liveActive && m_pastRunsShown);
  action(QStringLiteral("runOpen"))->setEnabled(any);
  action(QStringLiteral("runOverlay"))->setEnabled(any);
  action(QStringLiteral("runCompare"))->setEnabled(folders.size() >= 2);
  action(QStringLiteral("runRename"))->setEnabled(one && m_browser->selectedArtifact().isEmpty());
  action(QStringLiteral("runNotes"))->setEnabled(one);
  action(QStringLiteral("runClone"))->setEnabled(one);
  action(QStringLiteral("runResume"))->setEnabled(interrupted);
  action(QStringLiteral("runEvaluate"))->setEnabled(r && r->status == RunIndexStatus::Finished);
  action(QStringLiteral("runReveal"))->setEnabled(any);
  action(QStringLiteral("runDelete"))->setEnabled(any);
}

void RunsBrowserActions::addContextSubmenu(QMenu* menu) {
  m_contextSubmenus.append(menu);
}

void RunsBrowserActions::showContextMenu(const QPoint& at) {
  const QModelIndex index = m_view->indexAt(at);
  if (index.isValid() && !m_view->selectionModel()->isRowSelected(index.row(), index.parent())) {
    m_view->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  }
  if (QMenu* menu = contextMenu()) menu->popup(m_view->viewport()->mapToGlobal(at));
}

QMenu* RunsBrowserActions::contextMenu() {
  if (m_browser->selectedFolders().isEmpty()) return nullptr;
  auto* menu = new QMenu(m_browser);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  int i = 0;
  for (QAction* a : m_actions) {
    if (a->objectName() == QLatin1String("runResume") && !a->isEnabled())
      continue;  // only for interrupted runs
    menu->addAction(a);
    if (++i == 3 || a->objectName() == QLatin1String("runReveal")) menu->addSeparator();
  }
  for (const QPointer<QMenu>& submenu : m_contextSubmenus) {
    if (submenu) menu->insertMenu(action(QStringLiteral("runReveal")), submenu);
  }
  if (!m_contextSubmenus.isEmpty()) menu->insertSeparator(action(QStringLiteral("runReveal")));
  return menu;
}

void RunsBrowserActions::openSelected() {
  const QStringList folders = m_browser->selectedFolders();
  if (!folders.isEmpty()) emit openRequested(folders, true);
}

void RunsBrowserActions::overlaySelected() {
  const QStringList folders = m_browser->selectedFolders();
  if (!folders.isEmpty()) emit openRequested(folders, false);
}

void RunsBrowserActions::compareSelected() {
  const QStringList folders = m_browser->selectedFolders();
  if (folders.size() < 2) return;
  std::vector<RunRecord> runs;
  for (const QString& folder : folders) {
    if (std::optional<RunRecord> r = m_browser->run(folder)) runs.push_back(*r);
  }
  m_compareWindow->show(runs);
}

RunCompareView* RunsBrowserActions::compareView() const {
  return m_compareWindow->view();
}

void RunsBrowserActions::cloneSelected() {
  const QStringList folders = m_browser->selectedFolders();
  if (folders.size() == 1) emit cloneRequested(folders.front());
}

void RunsBrowserActions::resumeSelected() {
  const QStringList folders = m_browser->selectedFolders();
  if (folders.size() == 1) emit resumeRequested(folders.front());
}

void RunsBrowserActions::evaluateSelected() {
  const QStringList folders = m_browser->selectedFolders();
  if (folders.size() == 1) emit evaluateRequested(folders.front());
}

void RunsBrowserActions::renameSelected() {
  const QModelIndexList rows = m_view->selectionModel()->selectedRows(RunsTableModel::kName);
  if (rows.size() != 1 || rows.front().parent().isValid()) return;
  m_view->setCurrentIndex(rows.front());
  m_view->edit(rows.front());
}

void RunsBrowserActions::editNotesSelected() {
  if (const std::optional<RunRecord> r = m_browser->selectedRun()) m_browser->edits()->editNotes(*r);
}

void RunsBrowserActions::deleteSelected() {
  const QStringList folders = m_browser->selectedFolders();
  if (!folders.isEmpty()) m_browser->edits()->askToRemove(folders);
}

}  // namespace wb::gui
