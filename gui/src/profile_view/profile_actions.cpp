#include "profile_view/profile_actions.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QWidget>

#include "profile_view/profile_dialog.h"
#include "profile_view/profile_view.h"
#include "run/run_controller.h"
#include "workbench/profile_report.h"

namespace wb::gui {
namespace {

// The run a report belongs to, by its folder: reports live in RUN/profile/.
QString profiledRunName(const ProfileReport& report) {
  const std::string& file = !report.report_path.empty() ? report.report_path : report.trace_path;
  if (file.empty()) return {};
  QDir folder = QFileInfo(QString::fromStdString(file)).absoluteDir();
  folder.cdUp();
  return folder.dirName();
}

}  // namespace

ProfileActions::ProfileActions(RunController* controller, ProfileView* view, QWidget* window)
    : QObject(window), m_controller(controller), m_view(view), m_window(window) {
  m_profile = new QAction(tr("Pr&ofile Steps…"), this);
  m_profile->setObjectName(QStringLiteral("profileSteps"));
  connect(m_profile, &QAction::triggered, this, &ProfileActions::openProfileDialog);
  connect(m_controller, &RunController::stateChanged, this, &ProfileActions::update);
  connect(m_controller, &RunController::eventsArrived, this, &ProfileActions::onEvents);
  connect(m_view, &ProfileView::loaded, this, [this](const QString& runDir, bool, const QString& problem) {
    if (!problem.isEmpty())
      emit this->problem(tr("The profile in %1 could not be read: %2").arg(QDir(runDir).dirName(), problem));
  });
  update();
}

ProfileDialog* ProfileActions::openDialog() const {
  return m_dialog;
}

void ProfileActions::openProfileDialog() {
  if (m_dialog) {
    m_dialog->raise();
    return;
  }
  auto* dialog = new ProfileDialog(m_lastStep, m_window);
  m_dialog = dialog;
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowModality(Qt::WindowModal);
  connect(dialog, &QDialog::accepted, this, [this, dialog] { send(dialog->request()); });
  dialog->open();  // not exec(): the run's events keep flowing while it is open
}

void ProfileActions::send(const ProfileRequest& request) {
  const std::string refused = checkProfileRequest(request);
  if (!refused.empty()) {
    emit problem(tr("Profile Steps: %1").arg(QString::fromStdString(refused)));
    return;
  }
  const RunController::State state = m_controller->state();
  if (state != RunController::State::Running && state != RunController::State::Paused) return;  // it ended
  m_controller->requestProfile(request);
  m_recording = true;
  // The window's step lags the engine's by a drain tick or more: which steps "the next" are, the engine says
  // (its log line, then the report).
  m_recordingSteps = request.first_step >= 0
                         ? tr("steps %1–%2")
                               .arg(std::max(request.first_step, m_lastStep) + 1)
                               .arg(std::max(request.first_step, m_lastStep) + request.steps)
                         : tr("the next %n step(s)", nullptr, static_cast<int>(request.steps));
  emit statusMessage(tr("Profiling %1; the Profile tab shows them when they are done").arg(m_recordingSteps));
  update();
}

void ProfileActions::onEvents(const EventBatch& batch) {
  for (const Event& e : batch) {
    if (const auto* s = std::get_if<StepMetrics>(&e)) m_lastStep = s->step;
    if (const auto* p = std::get_if<ProfileRecorded>(&e)) onRecorded(*p);
  }
  if (m_dialog) m_dialog->setCurrentStep(m_lastStep);
}

void ProfileActions::onRecorded(const ProfileRecorded& recorded) {
  m_recording = false;
  update();
  if (!recorded.error.empty()) {
    const QString text = tr("No profile was recorded: %1").arg(QString::fromStdString(recorded.error));
    emit problem(text);
    emit statusMessage(text);
    return;
  }
  m_view->showReport(recorded.report, profiledRunName(recorded.report));
  emit statusMessage(tr("Profiled steps %1–%2: the Profile tab shows the operators and the step's phases")
                         .arg(recorded.report.first_step + 1)
                         .arg(recorded.report.first_step + recorded.report.steps));
  emit viewWanted();
}

void ProfileActions::openRunFolder(const QString& runDir) {
  // The live run's profile stays in view while it trains; opening other runs then overlays their curves only.
  if (m_controller->isActive() && m_view->hasReport()) return;
  m_view->loadRunFolder(runDir);
}

void ProfileActions::update() {
  const RunController::State state = m_controller->state();
  const bool live = state == RunController::State::Running || state == RunController::State::Paused;
  if (!live) {
    m_recording = false;  // a run that ended records nothing more
    if (state == RunController::State::Idle) m_lastStep = 0;
  }
  m_profile->setEnabled(live && !m_recording);
  if (m_recording) {
    m_profile->setToolTip(
        tr("Recording a profile of %1; the Profile tab shows it when they are done").arg(m_recordingSteps));
  } else if (live) {
    m_profile->setToolTip(
        tr("Record a few of the run's steps with LibTorch's profiler: the operators that took the time, the "
           "step's phases, and a trace for Perfetto (the Profile tab)"));
  } else if (state == RunController::State::Stopping) {
    m_profile->setToolTip(tr("Profile Steps needs a run that trains: this one is stopping"));
  } else {
    m_profile->setToolTip(
        tr("Profile Steps records steps of a run that trains in this window: start one first (Run ▸ Start). "
           "A finished run's profile shows in the Profile tab when the run is opened."));
  }
  // A request for a run that has ended has nothing to apply to.
  if (!live && m_dialog) m_dialog->reject();
}

}  // namespace wb::gui
