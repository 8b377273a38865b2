#pragma once
// The frame both finder dialogs have around their results: the options beside Run and Cancel with the
// progress bar under them, and at the foot the summary, the finder's log lines and "Apply to Experiment"
// beside Close (which rejects the dialog).

#include <QString>

class QDialog;
class QFormLayout;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QVBoxLayout;

namespace wb::gui {

struct FinderControls {
  QPushButton* run = nullptr;
  QPushButton* cancel = nullptr;  // disabled until a finder runs
  QProgressBar* progress = nullptr;
};

// `options` (the dialog's fields) beside Run and `cancel_text`, then the progress bar ("Not run yet"); Run is
// named "<prefix>Run".
FinderControls addFinderControls(QDialog* dialog, QVBoxLayout* layout, QFormLayout* options,
                                 const QString& prefix, const QString& cancel_text);

struct FinderFooter {
  QLabel* summary = nullptr;
  QPlainTextEdit* log = nullptr;
  QPushButton* apply = nullptr;  // disabled until there is something to apply
};

// `prefix` names the widgets for tests and screenshots: "<prefix>Summary", "<prefix>Apply".
FinderFooter addFinderFooter(QDialog* dialog, QVBoxLayout* layout, const QString& prefix,
                             const QString& summary);

}  // namespace wb::gui
