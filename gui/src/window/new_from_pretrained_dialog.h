#pragma once
// File ▸ New from Pretrained…: one dialog for the everyday fine-tune — a torchvision architecture, the
// weights file to start from (or none: from scratch), the user's image folder, and what trains. It checks
// as the user types, off the UI thread (checkPretrained: the folder's classes, the weights' load report as
// a run would print it); a refused file shows the engine's message and keeps OK disabled. OK leaves the
// experiment in experiment() for the document to bring in, unsaved.

#include <QDialog>
#include <QTimer>

#include "window/pretrained_draft.h"

class QAbstractButton;
class QButtonGroup;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;

namespace wb::gui {

class NewFromPretrainedDialog : public QDialog {
  Q_OBJECT

 public:
  explicit NewFromPretrainedDialog(QWidget* parent = nullptr);

  // The experiment the dialog's choices and its last check make (the head's learning-rate group included).
  Experiment experiment() const;
  // A check is waiting for the user to stop typing, or running.
  bool isChecking() const { return m_running || m_debounce.isActive(); }

 signals:
  // The check of the choices shown now is on screen.
  void checked();

 private:
  QWidget* buildFiles();
  QWidget* buildTraining();
  QPushButton* browseButton(const QString& objectName);
  void browseWeights();
  void browseFolder();
  PretrainedDraft draft() const;
  // Any choice changed: the shown check is stale until a new one comes back.
  void scheduleCheck();
  void startCheck();
  void showCheck(const PretrainedCheck& check);
  // Without a weights file only "Whole model" makes sense: a random body learns nothing frozen.
  void updateTrainingChoices();

  QComboBox* m_architecture;
  QLineEdit* m_weights;
  QLineEdit* m_folder;
  QButtonGroup* m_training;
  QRadioButton* m_trainHead;
  QRadioButton* m_trainBodySlower;
  QRadioButton* m_trainWhole;
  QLabel* m_classes;
  QPlainTextEdit* m_report;
  QLabel* m_problem;
  QLabel* m_status;
  QPushButton* m_ok;
  QTimer m_debounce;
  bool m_running = false;  // a check is in flight
  bool m_rerun = false;    // the choices changed while it ran: its result is stale
  bool m_wholeForced = false;
  PretrainedCheck m_check;
};

}  // namespace wb::gui
