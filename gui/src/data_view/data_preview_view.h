#pragma once
// The Data tab: what the experiment in the editor will train on, before it trains — the dataset and its
// folder, the classes with their counts (an image folder's files per class), the model's input shape, the
// preprocessing, the loader's workers, and a strip of samples after preprocessing (what the model will see,
// augmentation included). It follows the editor after a short pause; the engine's previewData runs on a
// worker thread (it lists the folder and decodes one file per class) and the tab is replaced when it answers.
// Then, for an image folder, the pass a run makes over every file at its start (findUnreadableFiles, cached,
// so Start does not repeat it) looks for files that cannot be read: the tab names them and offers to skip
// them (data.images.bad_files = skip), before a run fails on them.

#include <QFutureWatcher>
#include <QTimer>
#include <QWidget>
#include <string>

#include "workbench/data_preview.h"
#include "workbench/experiment.h"

class QLabel;
class QListWidget;
class QPushButton;
class QTableWidget;

namespace wb::gui {

class ExperimentEditor;

struct DataPreviewOutcome {
  DataPreview preview;
  QString error;  // what cannot be read, and what to do
};

class DataPreviewView : public QWidget {
  Q_OBJECT

 public:
  explicit DataPreviewView(ExperimentEditor* editor, QWidget* parent = nullptr);

  bool isComputing() const { return m_running || m_debounce.isActive(); }
  QString summaryText() const;
  QTableWidget* classTable() const { return m_classes; }
  QListWidget* sampleStrip() const { return m_samples; }
  // The unreadable files found ("4 files cannot be read: …"), hidden when there are none; Skip them sets
  // data.images.bad_files to skip in the editor.
  QLabel* badFilesNote() const { return m_badFiles; }
  QPushButton* skipBadFilesButton() const { return m_skipBadFiles; }
  bool isScanning() const { return m_scanning; }

 signals:
  void previewShown();

 private:
  void compute();
  void onComputed();
  void show(const DataPreviewOutcome& outcome);
  void showMessage(const QString& text);
  void scanForBadFiles(const Experiment& experiment);
  void showBadFiles(const std::vector<UnreadableFile>& bad, const QString& error, bool skipped);

  ExperimentEditor* m_editor;
  QLabel* m_summary;
  QTableWidget* m_classes;
  QListWidget* m_samples;
  QLabel* m_badFiles;
  QPushButton* m_skipBadFiles;
  bool m_scanning = false;
  int m_scanGeneration = 0;  // an answer for an older data section is dropped
  QTimer m_debounce;
  QFutureWatcher<DataPreviewOutcome> m_watcher;
  bool m_running = false;
  bool m_again = false;    // an edit came while the worker ran: compute once more when it answers
  std::string m_shownKey;  // the data section shown; the same again is not recomputed
  std::string m_runningKey;
};

}  // namespace wb::gui
