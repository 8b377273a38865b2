#pragma once
// Tools ▸ Find Learning Rate… / Find Batch Size…: opens each finder's dialog on the experiment in the form,
// with Apply wired to the form's field. Dialogs are not modal: the window stays usable while a finder runs.

#include <QMenu>
#include <QPointer>
#include <functional>

namespace wb::gui {

class BatchSizeFinderDialog;
class ExperimentEditor;
class LrFinderDialog;

class FindersMenu : public QMenu {
  Q_OBJECT

 public:
  // `runActive` says whether a training run is in progress (a finder would compete with it for the device).
  FindersMenu(QWidget* window, ExperimentEditor* editor, std::function<bool()> runActive);

  QAction* findLrAction() const { return m_findLr; }
  QAction* findBatchAction() const { return m_findBatch; }
  // Opens (or raises) the dialog; null when the form's experiment has problems or a run trains (the user is
  // told).
  LrFinderDialog* openLrFinder();
  BatchSizeFinderDialog* openBatchSizeFinder();

 private:
  bool canStart(const QString& what);

  QWidget* m_window;
  ExperimentEditor* m_editor;
  std::function<bool()> m_runActive;
  QAction* m_findLr = nullptr;
  QAction* m_findBatch = nullptr;
  QPointer<LrFinderDialog> m_lrDialog;
  QPointer<BatchSizeFinderDialog> m_batchDialog;
};

}  // namespace wb::gui
