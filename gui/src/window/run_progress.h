#pragma once
// Where the run is: a progress bar over all planned steps, a line with epoch, step, throughput and ETA, and
// the devices the run trains on ("2 ranks: cpu, cpu (data parallel)").

#include <QWidget>
#include <string>
#include <vector>

#include "workbench/events.h"

class QLabel;
class QProgressBar;

namespace wb::gui {

class RunProgress : public QWidget {
  Q_OBJECT

 public:
  explicit RunProgress(QWidget* parent = nullptr);
  void reset(const QString& text, int64_t plannedEpochs);
  void update(const StepMetrics& step);
  void setText(const QString& text);
  // While paused the line says so, with where the run stands ("Paused · Epoch 2/5 · step 1,579/…"), or that
  // no step has trained yet: never a stale "Starting: loading the data…".
  void setPaused(bool paused);
  bool isPaused() const { return m_paused; }
  QString text() const;
  int value() const;  // per mille of the planned steps
  // The devices of the run shown (train.devices: one entry per rank); `source` says whose they are (tooltip).
  void setDevices(const std::vector<std::string>& devices, const QString& source);
  QString devicesText() const;

 private:
  QProgressBar* m_bar;
  QLabel* m_label;
  QLabel* m_devices;
  void showText();

  int64_t m_epochs = 0;
  QString m_text;  // what the line says, before "Paused"
  bool m_hasStep = false;
  bool m_paused = false;
};

QString formatDuration(double seconds);
// "Device: cpu", or with several ranks "2 ranks: cpu, cpu (data parallel)".
QString describeDevices(const std::vector<std::string>& devices);

}  // namespace wb::gui
