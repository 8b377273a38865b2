#pragma once
// What can be done to the runs selected in the list: the buttons in the browser's bar (Open, Overlay,
// Compare, Resume, Back to Live Run) and the actions of its right-click menu and keys (F2 renames, Delete
// deletes), each enabled only where the selection allows it. The actions call the browser's own (open,
// compare, clone, ...); other menus that act on the selected run (Compress, Export) join the right-click
// menu.

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <memory>

class QAction;
class QMenu;
class QPoint;
class QPushButton;
class QTreeView;

namespace wb::gui {

class RunCompareView;
class RunCompareWindow;
class RunsBrowser;

class RunsBrowserActions : public QObject {
  Q_OBJECT

 public:
  // The buttons are the browser's children; the actions' keys are the list's (`view`).
  RunsBrowserActions(RunsBrowser* browser, QTreeView* view);
  ~RunsBrowserActions() override;

  void openSelected();     // replaces the past runs on the charts with the selection
  void overlaySelected();  // adds the selection to what the charts show
  void compareSelected();  // the settings of the selected runs side by side
  void cloneSelected();
  void resumeSelected();
  void evaluateSelected();  // the one selected finished run, in the window's Evaluation tab
  void renameSelected();    // starts editing the Name cell
  void editNotesSelected();
  void deleteSelected();                // asks, then deletes the runs' folders
  RunCompareView* compareView() const;  // the last Compare window's view, null before the first

  // In the bar's order, Back to Live Run first.
  QList<QPushButton*> buttons() const;
  QAction* action(const QString& objectName) const;
  // Enables each button and action for the selection as it is.
  void update();
  // "Back to Live Run" shows while this window trains a run and past runs are on the charts.
  void setLiveRunActive(bool active);
  void setPastRunsShown(bool shown);

  // Menus whose items act on the selected run: the right-click menu offers them after the browser's items.
  void addContextSubmenu(QMenu* menu);
  // The right-click menu for the current selection; null when nothing is selected.
  QMenu* contextMenu();

 signals:
  void openRequested(const QStringList& folders, bool replace);
  void cloneRequested(const QString& folder);
  void resumeRequested(const QString& folder);
  void evaluateRequested(const QString& folder);
  void backToLiveRequested();

 private:
  void buildButtons();
  void buildActions();
  void showContextMenu(const QPoint& at);

  RunsBrowser* m_browser;
  QTreeView* m_view;
  QPushButton* m_open = nullptr;
  QPushButton* m_overlay = nullptr;
  QPushButton* m_compare = nullptr;
  QPushButton* m_resume = nullptr;
  QPushButton* m_backToLive = nullptr;
  QList<QAction*> m_actions;
  QList<QPointer<QMenu>> m_contextSubmenus;
  std::unique_ptr<RunCompareWindow> m_compareWindow;
  bool m_liveActive = false;
  bool m_pastRunsShown = false;
};

}  // namespace wb::gui
