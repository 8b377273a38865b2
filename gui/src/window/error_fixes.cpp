#include "window/error_fixes.h"

#include <QCoreApplication>
#include <QFormLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QWidget>

#include "editor/experiment_editor.h"
#include "editor/field_binding.h"
#include "workbench/experiment_keys.h"

namespace wb::gui {

QString fieldLabel(const ExperimentEditor* editor, const std::string& path) {
  const FieldBinding* field = editor ? editor->binding(path) : nullptr;
  if (!field || !field->row() || !field->row()->parentWidget()) return {};
  // The editor lays each field out as a row of a QFormLayout, its label in the label column.
  const auto* form = qobject_cast<QFormLayout*>(field->row()->parentWidget()->layout());
  const auto* label = form ? qobject_cast<QLabel*>(form->labelForField(field->row())) : nullptr;
  return label ? label->text().remove(QLatin1Char('&')) : QString();
}

QString withFieldLabels(const ExperimentEditor* editor, const QString& text) {
  // Dotted lower-case words that are experiment keys; anything else (a file name) is left as it is.
  static const QRegularExpression keyPattern(QStringLiteral(R"(\b[a-z_]+(\.[a-z_0-9]+)+\b)"));
  QString out;
  qsizetype from = 0;
  QRegularExpressionMatchIterator it = keyPattern.globalMatch(text);
  while (it.hasNext()) {
    const QRegularExpressionMatch match = it.next();
    const std::string key = match.captured(0).toStdString();
    const QString label = findExperimentKey(key) ? fieldLabel(editor, key) : QString();
    out += text.mid(from, match.capturedStart(0) - from);
    out += label.isEmpty() ? match.captured(0) : QStringLiteral("“%1” (%2)").arg(label, match.captured(0));
    from = match.capturedEnd(0);
  }
  return out + text.mid(from);
}

std::optional<ErrorFix> errorFixFor(const QString& message, const QString& hint) {
  // The engine's words for unreadable files with the policy "error" (image_folder_dataset.cpp): the message
  // counts them, the hint names the key to set.
  if (message.contains(QStringLiteral("cannot be read")) &&
      hint.contains(QStringLiteral("data.images.bad_files"))) {
    return ErrorFix{QCoreApplication::translate("ErrorFix", "Skip and start"), "data.images.bad_files",
                    "skip"};
  }
  return std::nullopt;
}

}  // namespace wb::gui
