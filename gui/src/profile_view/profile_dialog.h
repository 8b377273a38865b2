#pragma once
// Run ▸ Profile Steps…: how many optimizer steps to record with LibTorch's profiler, from the next step or
// from a step the user names, and whether to record the operators' input shapes and memory. The window sends
// the request to the run (TrainingRun::requestProfile) when the dialog is accepted; the engine reports the
// profile with a ProfileRecorded event once the steps are done.

#include <QDialog>
#include <cstdint>

#include "workbench/profile_report.h"

class QCheckBox;
class QLabel;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace wb::gui {

class ProfileDialog : public QDialog {
  Q_OBJECT

 public:
  // step: steps done by the run so far (its latest reported step; 0 before the first report).
  explicit ProfileDialog(int64_t step, QWidget* parent = nullptr);

  // The request the dialog's values make (source "the window").
  ProfileRequest request() const;

  // The run moved on while the dialog is open: "at step N" cannot name a step already past.
  void setCurrentStep(int64_t step);

  // For tests and keyboard users alike.
  void setSteps(int steps);
  void startAtNextStep();
  void startAtStep(int64_t step);  // the first profiled step is step + 1 (after `step` steps are done)
  void setRecordShapes(bool on);
  void setProfileMemory(bool on);

 private:
  void updateNote();

  int64_t m_step;
  QLabel* m_current = nullptr;
  QSpinBox* m_steps = nullptr;
  QRadioButton* m_nextStep = nullptr;
  QRadioButton* m_atStep = nullptr;
  QSpinBox* m_firstStep = nullptr;
  QCheckBox* m_shapes = nullptr;
  QCheckBox* m_memory = nullptr;
  QLabel* m_note = nullptr;
  QPushButton* m_ok = nullptr;
};

}  // namespace wb::gui
