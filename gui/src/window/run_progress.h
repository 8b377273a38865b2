#pragma once
// Where the run is: a progress bar over all planned steps and a line with epoch, step, throughput and ETA.

#include <QWidget>

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
  QString text() const;
  int value() const;  // per mille of the planned steps

 private:
  QProgressBar* m_bar;
  QLabel* m_label;
  int64_t m_epochs = 0;
};

QString formatDuration(double seconds);

}  // namespace wb::gui
