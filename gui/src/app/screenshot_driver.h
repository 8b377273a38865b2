#pragma once
// Screenshot mode: starts the window's experiment, waits for N steps (or the run's end), lets the charts
// replot, saves a PNG of the whole window, stops the run cleanly and quits with 0 — or 1 when the run failed
// or the file could not be written.

#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>
#include <QWidget>

#include "workbench/events.h"

namespace wb::gui {

class MainWindow;

class ScreenshotDriver : public QObject {
  Q_OBJECT

 public:
  ScreenshotDriver(MainWindow* window, QString file, long long afterSteps, QObject* parent = nullptr);
  void start();
  // Screenshot of past runs' plots (opened by the caller) instead of a live run: no training.
  void startWithoutTraining();
  // Grab this widget (a dialog over the window) instead of the whole window.
  void setTarget(QWidget* target) { m_target = target; }

 private:
  void capture();
  void finish(int code);

  MainWindow* m_window;
  QPointer<QWidget> m_target;
  QString m_file;
  long long m_afterSteps;
  bool m_captured = false;  // a capture is taken or on its way
  bool m_saved = false;     // ... and done: the window may close when the run ends
  bool m_failed = false;
  int m_exitCode = 0;
  QTimer m_timeout;
};

}  // namespace wb::gui
