#pragma once
// The foot both finder dialogs have: the summary under the results, the finder's log lines, and "Apply to
// Experiment" beside Close (which rejects the dialog).

#include <QString>

class QDialog;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QVBoxLayout;

namespace wb::gui {

struct FinderFooter {
  QLabel* summary = nullptr;
  QPlainTextEdit* log = nullptr;
  QPushButton* apply = nullptr;  // disabled until there is something to apply
};

// `prefix` names the widgets for tests and screenshots: "<prefix>Summary", "<prefix>Apply".
FinderFooter addFinderFooter(QDialog* dialog, QVBoxLayout* layout, const QString& prefix, const QString& summary);

}  // namespace wb::gui
