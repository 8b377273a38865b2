#pragma once
// Run ▸ Change Learning Rate…: a factor on the schedule from the next step on, or a constant learning rate
// that replaces it; shows the learning rate the run trains with now and what either choice would make of it.

#include <QDialog>

#include "workbench/run_control.h"

class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;

namespace wb::gui {

class LrChangeDialog : public QDialog {
  Q_OBJECT

 public:
  // current_lr: the learning rate of the latest reported step (<= 0: none reported yet); step: that step.
  LrChangeDialog(double current_lr, int64_t step, QWidget* parent = nullptr);

  // The change chosen (valid once accepted). Source "the window".
  LrChange change() const;

  // The run moved on while the dialog is open: the label and the preview follow its latest step.
  void setCurrent(double current_lr, int64_t step);

  // For tests and keyboard users alike: pick the mode and the value.
  void setScale(double factor);
  void setConstant(double lr);

 private:
  void updatePreview();
  bool constantValue(double& lr) const;

  double m_currentLr;
  QLabel* m_current = nullptr;
  QRadioButton* m_scaleMode = nullptr;
  QRadioButton* m_constantMode = nullptr;
  QDoubleSpinBox* m_factor = nullptr;
  QLineEdit* m_constant = nullptr;  // free text: learning rates span decades (3e-4, 0.1)
  QLabel* m_preview = nullptr;
  QPushButton* m_ok = nullptr;
};

}  // namespace wb::gui
