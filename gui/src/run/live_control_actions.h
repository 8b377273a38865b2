#pragma once
// Run ▸ Change Learning Rate… and Run ▸ Stop After This Epoch: the window's live control of the run in
// progress. Enabled only while a run is running or paused; the engine confirms each change with a
// ControlApplied event, which the window logs and marks on the charts.

#include <QObject>
#include <QPointer>
#include <cstdint>

#include "workbench/events.h"

class QAction;
class QWidget;

namespace wb::gui {

class LrChangeDialog;
class RunController;

class LiveControlActions : public QObject {
  Q_OBJECT

 public:
  LiveControlActions(RunController* controller, QWidget* window);

  QAction* changeLearningRateAction() const { return m_changeLr; }
  QAction* stopAfterEpochAction() const { return m_stopAfterEpoch; }
  // The dialog Change Learning Rate… opened (window-modal, not exec()); null when none is open.
  LrChangeDialog* openDialog() const { return m_dialog; }

 private:
  void openLrDialog();
  void onEvents(const EventBatch& batch);
  void update();

  RunController* m_controller;
  QWidget* m_window;
  QAction* m_changeLr = nullptr;
  QAction* m_stopAfterEpoch = nullptr;
  QPointer<LrChangeDialog> m_dialog;
  double m_lastLr = -1;  // of the latest reported step of the active run
  int64_t m_lastStep = 0;
};

}  // namespace wb::gui
