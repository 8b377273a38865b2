#pragma once
// The experiment file as a document: which file the editor's experiment belongs to (none while untitled),
// File ▸ New, New from Example, New from Pretrained…, Open…, Open Recent, Save and Save As…, the question
// before unsaved edits are dropped, and the window's title, which names the file and the experiment and marks
// unsaved edits. Whatever brings a document into the editor (a file, New, an example, a run's clone) goes
// through one place, so the file, the title and the unsaved mark always agree. The window puts the actions in
// its File menu; tests drive it with an editor and a plain widget as the window.

#include <QObject>
#include <QString>
#include <functional>
#include <nlohmann/json.hpp>

#include "window/error_presenter.h"

class QAction;
class QMenu;
class QWidget;

namespace wb::gui {

class ExamplesMenu;
class ExperimentEditor;
class RecentFiles;

class ExperimentDocument : public QObject {
  Q_OBJECT

 public:
  // `window` parents the dialogs and menus, and carries the title.
  ExperimentDocument(ExperimentEditor* editor, QWidget* window, ErrorPresenter presentError);

  QAction* newAction() const { return m_new; }
  ExamplesMenu* examplesMenu() const { return m_examples; }
  QAction* newFromPretrainedAction() const { return m_newFromPretrained; }
  QAction* openAction() const { return m_open; }
  QMenu* recentMenu() const { return m_recentMenu; }
  QAction* saveAction() const { return m_save; }
  QAction* saveAsAction() const { return m_saveAs; }

  QString file() const { return m_file; }  // absolute; empty while untitled
  bool openFile(const QString& file);      // false (after telling the user) when unreadable
  bool saveFile(const QString& file);
  bool save();    // to the file, or Save As… while untitled
  bool saveAs();  // false when the user cancels
  void newExperiment();
  // File ▸ New from Pretrained…: its dialog (not modal to the application); OK brings its experiment in.
  void newFromPretrained();
  // A finished or stopped run's experiment.json in the editor as a new, unsaved experiment.
  void cloneRun(const QString& folder);
  // An interrupted run resumes: its experiment comes into the form (unsaved edits only with consent), so the
  // locked form shows what trains.
  void showResumedRun(const QString& folder);
  // Unsaved edits: asks whether to save them; true when they may be dropped (saved, discarded, or none).
  bool confirmDiscard();
  // New, Open and Open Recent: not while a run shows its experiment in the form.
  void setChangeAllowed(bool allowed);

 signals:
  // An example or a run's experiment is in the editor, unsaved (`message` says which): the window shows the
  // editor.
  void broughtIn(const QString& message);
  void statusMessage(const QString& text, int timeoutMs);
  // Saved as asked, but with keys the engine refuses: `message` says which.
  void savedWithUnknownKeys(const QString& message);

 private:
  void openDialog();
  // The one way a document enters the editor: `file` is empty for an untitled one.
  void load(const nlohmann::json& doc, const QString& file);
  void updateTitle();
  // The Name field's placeholder says what an unnamed run of the form's experiment will be called.
  void updateNamePlaceholder();

  ExperimentEditor* m_editor;
  QWidget* m_window;
  ErrorPresenter m_presentError;
  QAction* m_new = nullptr;
  QAction* m_newFromPretrained = nullptr;
  QAction* m_open = nullptr;
  QAction* m_save = nullptr;
  QAction* m_saveAs = nullptr;
  ExamplesMenu* m_examples;
  QMenu* m_recentMenu;
  RecentFiles* m_recent;
  QString m_file;
};

}  // namespace wb::gui
