#pragma once
// Problems the window can fix for the user in one click, and the words it shows them in: the engine's
// messages name experiment keys (data.images.bad_files), the form names its fields ("Unreadable files"), so a
// dialog names the field as the form does, the key beside it. The fix is an edit of the experiment, made
// through the editor like a user's own.

#include <QString>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace wb::gui {

class ExperimentEditor;

// The label the editor's form shows for `path` ("Unreadable files"), or empty when it has no field for it.
QString fieldLabel(const ExperimentEditor* editor, const std::string& path);

// `text` with every experiment key the form has a field for named as the form names it:
// "data.images.bad_files" becomes "“Unreadable files” (data.images.bad_files)".
QString withFieldLabels(const ExperimentEditor* editor, const QString& text);

// An edit that removes the problem a message reports.
struct ErrorFix {
  QString button;  // "Skip and start"
  std::string path;
  nlohmann::json value;
};

// Image files that cannot be read, with the policy still "error": setting data.images.bad_files to skip
// trains without them. None for other problems.
std::optional<ErrorFix> errorFixFor(const QString& message, const QString& hint);

}  // namespace wb::gui
