#include "export_dialogs/export_result_dialog.h"

#include <QClipboard>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>

#include "widgets/screen_fit.h"

namespace wb::gui {
namespace {

QPlainTextEdit* snippetView(const std::string& text, const QString& objectName, QWidget* parent) {
  auto* view = new QPlainTextEdit(QString::fromStdString(text).trimmed(), parent);
  view->setObjectName(objectName);
  view->setReadOnly(true);
  view->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  view->setLineWrapMode(QPlainTextEdit::NoWrap);
  view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  // As tall as the snippet (a long line scrolls sideways rather than wrapping, so it stays copyable as code).
  const int lines = std::clamp(static_cast<int>(view->document()->blockCount()), 2, 14);
  view->setFixedHeight(view->fontMetrics().lineSpacing() * lines + 2 * view->frameWidth() +
                       static_cast<int>(2 * view->document()->documentMargin()) +
                       view->horizontalScrollBar()->sizeHint().height() + 4);
  view->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  return view;
}

}  // namespace

QString formatFileSize(qint64 bytes) {
  if (bytes < 1024) return QObject::tr("%1 B").arg(bytes);
  if (bytes < 1024 * 1024) return QObject::tr("%1 KiB").arg(bytes / 1024.0, 0, 'f', 1);
  return QObject::tr("%1 MiB").arg(bytes / (1024.0 * 1024.0), 0, 'f', 2);
}

ExportResultDialog::ExportResultDialog(const ExportResult& result, const QString& what, QWidget* parent)
    : QDialog(parent), m_file(QString::fromStdString(result.file)) {
  setObjectName(QStringLiteral("exportResultDialog"));
  setWindowTitle(tr("Exported %1").arg(what));

  auto* heading = new QLabel(tr("<b>Exported %1</b>").arg(what.toHtmlEscaped()), this);
  auto* file = new QLabel(QDir::toNativeSeparators(m_file), this);
  file->setObjectName(QStringLiteral("exportFile"));
  file->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  file->setWordWrap(true);
  m_summary = new QLabel(
      tr("%1 (%2 bytes) in %3 s")
          .arg(formatFileSize(result.bytes), QLocale().toString(static_cast<qlonglong>(result.bytes)))
          .arg(result.seconds, 0, 'f', result.seconds < 10 ? 2 : 1),
      this);
  m_summary->setObjectName(QStringLiteral("exportSummary"));
  auto* form = new QFormLayout;
  form->addRow(tr("File:"), file);
  form->addRow(tr("Size, time:"), m_summary);

  auto snippetBox = [this](const QString& title, QPlainTextEdit* view, QPushButton*& copy) {
    auto* box = new QGroupBox(title, this);
    copy = new QPushButton(tr("Copy"), box);
    copy->setAutoDefault(false);  // Enter closes the dialog
    copy->setToolTip(tr("Copy these lines to the clipboard"));
    connect(copy, &QPushButton::clicked, this,
            [view] { QGuiApplication::clipboard()->setText(view->toPlainText()); });
    auto* row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(copy);
    auto* layout = new QVBoxLayout(box);
    layout->addWidget(view);
    layout->addLayout(row);
    return box;
  };
  m_python = snippetView(result.python_snippet, QStringLiteral("pythonSnippet"), this);
  m_cpp = snippetView(result.cpp_snippet, QStringLiteral("cppSnippet"), this);
  QGroupBox* python = snippetBox(tr("Load it in Python"), m_python, m_copyPython);
  m_copyPython->setObjectName(QStringLiteral("copyPython"));
  QGroupBox* cpp = snippetBox(tr("Load it in C++"), m_cpp, m_copyCpp);
  m_copyCpp->setObjectName(QStringLiteral("copyCpp"));

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  buttons->button(QDialogButtonBox::Close)->setDefault(true);
  QPushButton* folder = buttons->addButton(tr("Show in Folder"), QDialogButtonBox::ActionRole);
  folder->setAutoDefault(false);
  connect(folder, &QPushButton::clicked, this,
          [this] { QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(m_file).absolutePath())); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(heading);
  layout->addLayout(form);
  layout->addWidget(python);
  layout->addWidget(cpp);
  layout->addWidget(buttons);
  layout->addStretch(1);
  fitDialogToScreen(this, QSize(900, sizeHint().height()));
}

}  // namespace wb::gui
