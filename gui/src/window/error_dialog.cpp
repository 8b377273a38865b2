#include "window/error_dialog.h"

#include <QCoreApplication>
#include <QMessageBox>
#include <QPushButton>

#include "editor/experiment_editor.h"
#include "window/error_fixes.h"

namespace wb::gui {

QMessageBox* showErrorDialog(QWidget* window, const QString& title, const QString& message,
                             const QString& hint, const ErrorDialogContext& context) {
  ExperimentEditor* editor = context.editor;
  auto* box = new QMessageBox(QMessageBox::Critical, title, withFieldLabels(editor, message), QMessageBox::Ok,
                              window);
  box->setObjectName(QStringLiteral("errorDialog"));
  if (!hint.isEmpty()) {
    box->setInformativeText(
        QCoreApplication::translate("ErrorDialog", "What to do: %1").arg(withFieldLabels(editor, hint)));
  }
  const std::optional<ErrorFix> fix = errorFixFor(message, hint);
  // Offered even while the editor is locked: a run's error comes while the failed run winds down, and the
  // editor is free again by the time the user clicks.
  if (fix && editor) {
    QPushButton* button = box->addButton(fix->button, QMessageBox::AcceptRole);
    button->setObjectName(QStringLiteral("errorFixButton"));
    QObject::connect(button, &QPushButton::clicked, editor, [editor, fix = *fix, start = context.startAgain] {
      if (editor->setValue(fix.path, fix.value) && start) start();
    });
  }
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setWindowModality(Qt::WindowModal);
  box->open();
  return box;
}

}  // namespace wb::gui
