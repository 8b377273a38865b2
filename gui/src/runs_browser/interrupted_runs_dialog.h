#pragma once
// Run ▸ Resume an Interrupted Run…: the interrupted runs of the runs folder to choose from — name, where each
// stopped (step, epoch), when its last checkpoint was written, its model — plus "Other Folder…" for a run
// kept elsewhere. Window-modal, no nested event loop: the choice comes back as a signal.

#include <QDialog>
#include <QString>

#include "workbench/events.h"

class QLabel;
class QPushButton;
class QTreeWidget;

namespace wb::gui {

class InterruptedRunsDialog : public QDialog {
  Q_OBJECT

 public:
  InterruptedRunsDialog(const QString& runsDir, QWidget* parent = nullptr);

  QTreeWidget* list() const { return m_list; }
  int runCount() const;
  // Selects the run of this folder; false when it is not listed.
  bool selectFolder(const QString& folder);
  QString selectedFolder() const;

 signals:
  void resumeRequested(const QString& folder);
  // "Other Folder…": the caller asks for a folder (the dialog has closed by then).
  void otherFolderRequested();

 private:
  void fill();
  void accept() override;

  QString m_runsDir;
  QLabel* m_header;
  QTreeWidget* m_list;
  QPushButton* m_resume;
};

// Why a folder cannot be resumed, in the window's words ("" when it can be tried): a finished run, a folder
// that is not a run. The engine still decides for everything else (a changed experiment, damaged
// checkpoints).
struct ResumeRefusal {
  QString title;
  QString message;
  QString hint;
  bool refused() const { return !title.isEmpty(); }
};
ResumeRefusal checkResumable(const QString& runDir);

}  // namespace wb::gui
