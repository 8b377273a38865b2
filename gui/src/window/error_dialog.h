#pragma once
// The window's error dialog (its ErrorPresenter): window-modal, opened rather than exec()'d, so no nested
// event loop runs inside the handler that found the problem. Keys in the engine's words are named as the form
// names their fields, and a problem the window can fix (error_fixes.h) gets a button that makes the edit in
// the editor and starts again.

#include <QString>
#include <functional>

class QMessageBox;
class QWidget;

namespace wb::gui {

class ExperimentEditor;

struct ErrorDialogContext {
  ExperimentEditor* editor =
      nullptr;                       // names fields and takes the fix; none: the dialog as the engine says it
  std::function<void()> startAgain;  // after the fix (Run ▸ Start)
};

QMessageBox* showErrorDialog(QWidget* window, const QString& title, const QString& message,
                             const QString& hint, const ErrorDialogContext& context);

}  // namespace wb::gui
