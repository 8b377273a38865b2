#pragma once
// After an export: the file, its size and how long it took, and the few lines that load it in Python and in
// C++ (selectable, each with a Copy button).

#include <QDialog>

#include "workbench/export.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace wb::gui {

class ExportResultDialog : public QDialog {
  Q_OBJECT

 public:
  // `what` names the export in the title ("fashion-mnist-cnn · 02-quantize as ONNX").
  ExportResultDialog(const ExportResult& result, const QString& what, QWidget* parent = nullptr);

  QString file() const { return m_file; }
  QLabel* summaryLabel() const { return m_summary; }
  QPlainTextEdit* pythonSnippet() const { return m_python; }
  QPlainTextEdit* cppSnippet() const { return m_cpp; }
  QPushButton* copyPythonButton() const { return m_copyPython; }
  QPushButton* copyCppButton() const { return m_copyCpp; }

 private:
  QString m_file;
  QLabel* m_summary = nullptr;
  QPlainTextEdit* m_python = nullptr;
  QPlainTextEdit* m_cpp = nullptr;
  QPushButton* m_copyPython = nullptr;
  QPushButton* m_copyCpp = nullptr;
};

// "812 B", "41.3 KiB", "3.07 MiB".
QString formatFileSize(qint64 bytes);

}  // namespace wb::gui
