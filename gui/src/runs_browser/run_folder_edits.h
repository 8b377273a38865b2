#pragma once
// What the runs list changes in the runs folder: a run's name, its tags and notes (its run.json and the
// index), and whole runs deleted with their folders. Each change is done without dialogs and returns what
// went wrong; deleting asks first, and problems are told, in window-modal boxes (open(), no nested event
// loop) that tests replace.

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <string>
#include <vector>

#include "workbench/run_index.h"

class QWidget;

namespace wb::gui {

class RunsBrowser;
class RunsTableModel;

class RunFolderEdits : public QObject {
  Q_OBJECT

 public:
  // Asks a yes/no question without a nested event loop; `yes` runs when the user agrees.
  using Confirm = std::function<void(const QString& title, const QString& text, std::function<void()> yes)>;
  using ErrorPresenter = std::function<void(const QString& title, const QString& message)>;

  RunFolderEdits(RunsBrowser* browser, RunsTableModel* model);

  // Each returns an error message, empty when it worked.
  QString rename(const QString& folder, const QString& name);
  QString setTagsAndNotes(const QString& folder, const std::vector<std::string>& tags, const QString& notes);
  QString remove(const QStringList& folders);

  // The run's tags and notes in a dialog; OK stores them.
  void editNotes(const RunRecord& run);
  // Asks, then deletes the runs' folders.
  void askToRemove(const QStringList& folders);
  void showError(const QString& title, const QString& message);
  void setConfirm(Confirm confirm) { m_confirm = std::move(confirm); }
  void setErrorPresenter(ErrorPresenter present) { m_presentError = std::move(present); }

 signals:
  void renamed(const QString& folder, const QString& name);
  void tagsAndNotesChanged();
  void removed(const QStringList& folders);  // those deleted
  void folderChanged();                      // after deletes: the list is to be read again

 private:
  void useDialogs();

  RunsBrowser* m_browser;
  RunsTableModel* m_model;
  Confirm m_confirm;
  ErrorPresenter m_presentError;
};

}  // namespace wb::gui
