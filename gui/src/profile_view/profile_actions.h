#pragma once
// Run ▸ Profile Steps…: records a few steps of the run this window trains with LibTorch's profiler and shows
// what came of it in the Profile tab. Enabled only while a run trains here (running or paused) and no
// profile of it is being recorded; otherwise disabled with a tooltip saying why. The request goes to the
// engine through the run (RunController::requestProfile: a flag the worker takes at its next step boundary,
// so the UI thread never waits); the engine's ProfileRecorded event brings the report, or why there is none.
// A run folder opened from the runs browser shows the profile it holds, if any.

#include <QObject>
#include <QPointer>
#include <QString>
#include <cstdint>

#include "workbench/events.h"

class QAction;
class QWidget;

namespace wb::gui {

class ProfileDialog;
class ProfileView;
class RunController;

class ProfileActions : public QObject {
  Q_OBJECT

 public:
  ProfileActions(RunController* controller, ProfileView* view, QWidget* window);

  QAction* profileAction() const { return m_profile; }
  // The dialog Profile Steps… opened (window-modal, not exec()); null when none is open.
  ProfileDialog* openDialog() const;
  // A request was sent and its ProfileRecorded has not come yet.
  bool isRecording() const { return m_recording; }
  // Shows the latest profile in a run folder (the runs browser opened it), read off the UI thread.
  void openRunFolder(const QString& runDir);

 signals:
  // A profile was recorded (or refused, or a run folder's could not be read): the status bar's line.
  void statusMessage(const QString& text);
  // A profile the user asked for is shown: the window brings the Profile tab to the front.
  void viewWanted();
  // A profile could not be recorded or read: the log shows why.
  void problem(const QString& text);

 private:
  void openProfileDialog();
  void send(const ProfileRequest& request);
  void onEvents(const EventBatch& batch);
  void onRecorded(const ProfileRecorded& recorded);
  void update();

  RunController* m_controller;
  ProfileView* m_view;
  QWidget* m_window;
  QAction* m_profile = nullptr;
  QPointer<ProfileDialog> m_dialog;
  int64_t m_lastStep = 0;  // of the active run, as last reported
  bool m_recording = false;
  QString m_recordingSteps;  // "steps 121–130", for the tooltip while recording
};

}  // namespace wb::gui
