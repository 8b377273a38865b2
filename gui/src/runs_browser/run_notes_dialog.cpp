#include "runs_browser/run_notes_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QVBoxLayout>

#include "widgets/screen_fit.h"
#include "workbench/run_info.h"

namespace wb::gui {

RunNotesDialog::RunNotesDialog(const QString& runName, const std::vector<std::string>& tags,
                               const QString& notes, QWidget* parent)
    : QDialog(parent) {
  setObjectName(QStringLiteral("runNotesDialog"));
  setWindowTitle(tr("Tags and notes of %1").arg(runName));
  QStringList list;
  for (const std::string& t : tags) list << QString::fromStdString(t);
  m_tags = new QLineEdit(list.join(QStringLiteral(", ")), this);
  m_tags->setObjectName(QStringLiteral("runTags"));
  m_tags->setPlaceholderText(tr("baseline, lr-sweep"));
  m_tags->setToolTip(tr("Comma-separated; the search box finds them (\"tag:baseline\" searches tags only)"));
  m_notes = new QPlainTextEdit(notes, this);
  m_notes->setObjectName(QStringLiteral("runNotes"));
  m_notes->setPlaceholderText(tr("What this run tried, what came of it"));
  m_notes->setTabChangesFocus(true);  // Tab goes on to the buttons, as in every other field of the window
  auto* where =
      new QLabel(tr("Kept in the run folder's run.json and in the run index (`workbench-cli runs` shows "
                    "them)."),
                 this);
  where->setWordWrap(true);
  where->setEnabled(false);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  auto* form = new QFormLayout;
  form->addRow(tr("Tags:"), m_tags);
  form->addRow(tr("Notes:"), m_notes);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(where);
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  fitDialogToScreen(this, QSize(460, 300));
}

std::vector<std::string> RunNotesDialog::tags() const {
  return parseTags(m_tags->text().toStdString());
}

QString RunNotesDialog::notes() const {
  return m_notes->toPlainText();
}

}  // namespace wb::gui
