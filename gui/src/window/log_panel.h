#pragma once
// The engine's log lines as they arrive, coloured by level; keeps the newest lines only, so a week-long run
// cannot grow the window's memory without bound.

#include <QPlainTextEdit>

#include "workbench/events.h"

namespace wb::gui {

class LogPanel : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit LogPanel(QWidget* parent = nullptr);
  void append(LogLevel level, const QString& text);
  void appendNote(const QString& text);  // the window's own lines (run started, stopped), not the engine's
  int lineCount() const { return blockCount(); }
};

}  // namespace wb::gui
