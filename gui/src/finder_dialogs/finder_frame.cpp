#include "finder_dialogs/finder_frame.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace wb::gui {

FinderControls addFinderControls(QDialog* dialog, QVBoxLayout* layout, QFormLayout* options,
                                 const QString& prefix, const QString& cancel_text) {
  FinderControls controls;
  auto* row = new QHBoxLayout;
  row->addLayout(options, 1);
  auto* buttons = new QVBoxLayout;
  controls.run = new QPushButton(QDialog::tr("&Run"), dialog);
  controls.run->setObjectName(prefix + QStringLiteral("Run"));
  controls.cancel = new QPushButton(cancel_text, dialog);
  controls.cancel->setEnabled(false);
  buttons->addWidget(controls.run);
  buttons->addWidget(controls.cancel);
  buttons->addStretch(1);
  row->addLayout(buttons);
  layout->addLayout(row);

  controls.progress = new QProgressBar(dialog);
  controls.progress->setTextVisible(true);
  controls.progress->setRange(0, 1);
  controls.progress->setValue(0);
  controls.progress->setFormat(QDialog::tr("Not run yet"));
  layout->addWidget(controls.progress);
  return controls;
}

FinderFooter addFinderFooter(QDialog* dialog, QVBoxLayout* layout, const QString& prefix,
                             const QString& summary) {
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
