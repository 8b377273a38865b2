#pragma once
// Export ▸ …: the selected run's model (or the selected compressed model) as TorchScript, ONNX or
// safetensors, the run's metrics as CSV, and every chart of the Training view as PNG or PDF files in a
// folder. Each item is enabled only when it can work, and says why not in its tooltip when it cannot. The
// menu items ask for a path, then call the *To functions, which tests call directly. A model export runs on a
// pool thread with a progress dialog, and ends in a result dialog (file, size, time, the lines that load it)
// or in an error dialog.

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>

#include "export_dialogs/export_result_dialog.h"
#include "export_dialogs/model_exporter.h"
#include "window/error_presenter.h"
#include "workbench/export.h"

class QAction;
class QDialog;
class QMainWindow;
class QMenu;
class QProgressBar;

namespace wb::gui {

class ChartsPanel;
class RunsBrowser;

class ExportMenu : public QObject {
  Q_OBJECT

 public:
  enum class Item { TorchScript, Onnx, Safetensors, MetricsCsv, ChartsPng, ChartsSvg, ChartsPdf };

  // What a model export starts from: a run, or one of its compressed models.
  struct Target {
    QString runDir;
    QString artifact;  // "" = the run's trained model; else "compressed/NN-<pass>"
    QString runName;   // the experiment's name ("fashion-mnist-cnn"): default file names start with it
  };

  ExportMenu(QMainWindow* window, RunsBrowser* runs, ChartsPanel* charts, ErrorPresenter presentError);

  QMenu* menu() const { return m_menu; }
  QAction* action(Item item) const;
  // Enables each item from the runs browser's selection, the charts and the build (exportUnavailable).
  void update();

  // The single run or compressed model selected in the runs browser, if any.
  std::optional<Target> selectedTarget() const;
  // A run folder (its experiment.json names it) and optionally one of its compressed models.
  static Target targetOf(const QString& runDir, const QString& artifact = QString());
  // "fashion-mnist-cnn-02-quantize.onnx"
  static QString defaultFileName(const Target& target, ExportFormat format);

  // Starts exporting; false (after telling the user) when another export is in flight. The result or error
  // dialog opens when it ends, after which modelExported is emitted.
  bool exportModelTo(const Target& target, ExportFormat format, const QString& file);
  bool isExporting() const { return m_exporter->isActive(); }
  ModelExporter* exporter() const { return m_exporter; }
  // The progress dialog of the export in flight, and the last result dialog while it is open.
  QDialog* progressDialog() const { return m_progress; }
  ExportResultDialog* resultDialog() const { return m_result; }

  // Copies the run's metrics.csv; false (after telling the user) when it cannot.
  bool exportMetricsTo(const QString& runDir, const QString& file);
  // One file per chart of the Training view ("loss.png", "learning-rate.png", …); the files written, or none
  // (after telling the user) when one could not be written. `suffix` is "png" or "pdf".
  QStringList exportChartsTo(const QString& folder, const QString& suffix);

 signals:
  void modelExported(const wb::gui::ExportOutcome& outcome);
  void statusMessage(const QString& text);

 private:
  void chooseModelFile(ExportFormat format);
  void chooseMetricsFile();
  void chooseChartsFolder(const QString& suffix);
  void onModelExported(const ExportOutcome& outcome);
  QString startFolder(const QString& runDir) const;

  QMainWindow* m_window;
  RunsBrowser* m_runs;
  ChartsPanel* m_charts;
  ErrorPresenter m_presentError;
  ModelExporter* m_exporter;
  QMenu* m_menu;
  QAction* m_actions[7] = {};
  QString m_unavailable[3];  // per ExportFormat: why this build cannot write it ("" when it can)
  QString m_lastFolder;
  QString m_exportLabel;  // "fashion-mnist-cnn · 02-quantize as ONNX", of the export in flight
  QPointer<QDialog> m_progress;
  QProgressBar* m_progressBar = nullptr;
  QPointer<ExportResultDialog> m_result;
};

QString formatLabel(ExportFormat format);  // "TorchScript", "ONNX", "safetensors"

}  // namespace wb::gui
