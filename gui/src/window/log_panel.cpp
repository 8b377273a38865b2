#include "window/log_panel.h"

#include <QDateTime>
#include <QFontDatabase>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>

namespace wb::gui {
namespace {

constexpr int kMaxLines = 20000;

}  // namespace

LogPanel::LogPanel(QWidget* parent) : QPlainTextEdit(parent) {
  setReadOnly(true);
  setMaximumBlockCount(kMaxLines);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setPlaceholderText(tr("The engine's log appears here when a run starts."));
  setUndoRedoEnabled(false);
}

void LogPanel::append(LogLevel level, const QString& text) {
  const bool dark = palette().color(QPalette::Base).lightness() < 128;
  QTextCharFormat format;
  switch (level) {
    case LogLevel::Debug:
      format.setForeground(palette().color(QPalette::PlaceholderText));
      break;
    case LogLevel::Info:
      format.setForeground(palette().color(QPalette::Text));
      break;
    case LogLevel::Warning:
      format.setForeground(dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0xb2, 0x54, 0x00));
      break;
    case LogLevel::Error:
      format.setForeground(dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xc6, 0x28, 0x28));
      break;
  }
  // Follow the end only when the user is already there: reading older lines must not be interrupted.
  QScrollBar* bar = verticalScrollBar();
  const bool atEnd = bar->value() >= bar->maximum() - 2;
  QTextCursor cursor(document());
  cursor.movePosition(QTextCursor::End);
  if (!document()->isEmpty()) cursor.insertBlock();
  const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss "));
  QString body = text;
  body.replace(QLatin1Char('\n'), QStringLiteral("\n         "));
  cursor.insertText(stamp + body, format);
  if (atEnd) bar->setValue(bar->maximum());
}

void LogPanel::appendNote(const QString& text) {
  QScrollBar* bar = verticalScrollBar();
  const bool atEnd = bar->value() >= bar->maximum() - 2;
  QTextCharFormat format;
  format.setFontWeight(QFont::Bold);
  format.setForeground(palette().color(QPalette::Text));
  QTextCursor cursor(document());
  cursor.movePosition(QTextCursor::End);
  if (!document()->isEmpty()) cursor.insertBlock();
  cursor.insertText(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss ")) + text, format);
  if (atEnd) bar->setValue(bar->maximum());
}

}  // namespace wb::gui
