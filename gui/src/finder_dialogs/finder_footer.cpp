#include "finder_dialogs/finder_footer.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace wb::gui {

FinderFooter addFinderFooter(QDialog* dialog, QVBoxLayout* layout, const QString& prefix, const QString& summary) {
  FinderFooter footer;
  footer.summary = new QLabel(summary, dialog);
  footer.summary->setObjectName(prefix + QStringLiteral("Summary"));
  footer.summary->setWordWrap(true);
  footer.summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(footer.summary);

  footer.log = new QPlainTextEdit(dialog);
  footer.log->setReadOnly(true);
  footer.log->setMaximumBlockCount(200);
  footer.log->setFixedHeight(60);
  layout->addWidget(footer.log);

  auto* box = new QDialogButtonBox(dialog);
  footer.apply = box->addButton(QDialog::tr("&Apply to Experiment"), QDialogButtonBox::AcceptRole);
  footer.apply->setObjectName(prefix + QStringLiteral("Apply"));
  footer.apply->setEnabled(false);
  QPushButton* close = box->addButton(QDialogButtonBox::Close);
  layout->addWidget(box);
  QObject::connect(close, &QPushButton::clicked, dialog, &QDialog::reject);
  return footer;
}

}  // namespace wb::gui
