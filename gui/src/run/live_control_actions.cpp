#include "run/live_control_actions.h"

#include <QAction>
#include <QWidget>

#include "run/lr_change_dialog.h"
#include "run/run_controller.h"

namespace wb::gui {

LiveControlActions::LiveControlActions(RunController* controller, QWidget* window)
    : QObject(window), m_controller(controller), m_window(window) {
  m_changeLr = new QAction(tr("Change &Learning Rate…"), this);
  m_changeLr->setObjectName(QStringLiteral("changeLearningRate"));
  m_changeLr->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
  m_changeLr->setToolTip(
      tr("Multiply the run's learning-rate schedule, or set a constant learning rate, from the "
         "next step on (Ctrl+L)"));
  connect(m_changeLr, &QAction::triggered, this, &LiveControlActions::openLrDialog);
  m_stopAfterEpoch = new QAction(tr("Stop After This &Epoch"), this);
  m_stopAfterEpoch->setObjectName(QStringLiteral("stopAfterEpoch"));
  m_stopAfterEpoch->setToolTip(
      tr("End the run when the epoch in progress ends, after its validation, with a "
         "checkpoint; Resume an Interrupted Run continues it"));
  connect(m_stopAfterEpoch, &QAction::triggered, this, [this] {
    m_controller->stopAfterEpoch();
    update();
  });
  connect(m_controller, &RunController::stateChanged, this, &LiveControlActions::update);
  connect(m_controller, &RunController::eventsArrived, this, &LiveControlActions::onEvents);
  update();
}

void LiveControlActions::openLrDialog() {
  if (m_dialog) {
    m_dialog->raise();
    return;
  }
  auto* dialog = new LrChangeDialog(m_lastLr, m_lastStep, m_window);
  m_dialog = dialog;
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowModality(Qt::WindowModal);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    // The dialog checked the value; the engine applies it at its next step and confirms with an event.
    m_controller->setLearningRate(dialog->change());
  });
  dialog->open();  // not exec(): the run's events keep flowing while it is open
}

void LiveControlActions::onEvents(const EventBatch& batch) {
  for (const Event& e : batch) {
    if (const auto* s = std::get_if<StepMetrics>(&e)) {
      m_lastLr = s->lr;
      m_lastStep = s->step;
    }
  }
  if (m_dialog) m_dialog->setCurrent(m_lastLr, m_lastStep);
}

void LiveControlActions::update() {
  const RunController::State state = m_controller->state();
  const bool live = state == RunController::State::Running || state == RunController::State::Paused;
  m_changeLr->setEnabled(live);
  m_stopAfterEpoch->setEnabled(live && !m_controller->stopAfterEpochRequested());
  if (state == RunController::State::Idle) {
    m_lastLr = -1;
    m_lastStep = 0;
  }
  // A change for a run that has ended has nothing to apply to.
  if (!live && m_dialog) m_dialog->reject();
}

}  // namespace wb::gui
