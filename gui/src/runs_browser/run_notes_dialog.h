#pragma once
// Tags and notes of one run, edited in a small dialog (the runs list's right-click menu ▸ Tags and Notes…).
// Tags are typed comma-separated; what OK stores is the run folder's run.json and the index (RunsBrowser).

#include <QDialog>
#include <string>
#include <vector>

class QLineEdit;
class QPlainTextEdit;

namespace wb::gui {

class RunNotesDialog : public QDialog {
  Q_OBJECT

 public:
  RunNotesDialog(const QString& runName, const std::vector<std::string>& tags, const QString& notes,
                 QWidget* parent = nullptr);

  std::vector<std::string> tags() const;
  QString notes() const;
  QLineEdit* tagsEdit() const { return m_tags; }
  QPlainTextEdit* notesEdit() const { return m_notes; }

 private:
  QLineEdit* m_tags;
  QPlainTextEdit* m_notes;
};

}  // namespace wb::gui
