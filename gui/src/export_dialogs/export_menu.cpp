#include "export_dialogs/export_menu.h"

#include <QAction>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTimer>
#include <QVBoxLayout>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/action_icons.h"
#include "charts/charts_panel.h"
#include "export_dialogs/export_result_dialog.h"
#include "runs_browser/runs_browser.h"
#include "widgets/screen_fit.h"

namespace wb::gui {
namespace {

// QCustomPlot draws into any QPainter device: an SVG generator gives vector charts (lines and text stay sharp
// in papers and slides). Written beside the target and renamed, so a failed write leaves no half file.
bool saveSvg(QCustomPlot* plot, const QString& file, int width, int height) {
  const QString temp = file + QStringLiteral(".part");
  {
    QSvgGenerator generator;
    generator.setFileName(temp);
    generator.setSize(QSize(width, height));
    generator.setViewBox(QRect(0, 0, width, height));
    generator.setTitle(plot->objectName());
    generator.setDescription(QStringLiteral("Torch Workbench"));
    QCPPainter painter;
    if (!painter.begin(&generator)) return false;
    plot->toPainter(&painter, width, height);
    painter.end();
  }
  if (QFileInfo(temp).size() <= 0) {
    QFile::remove(temp);
    return false;
  }
  QFile::remove(file);
  return QFile::rename(temp, file);
}

constexpr int kProgressDelayMs = 300;  // a quick export never flashes a progress dialog
constexpr qint64 kCopyChunk = 1 << 20;

// Charts rendered while hidden (another tab in front) may never have been laid out: a size that reads well.
constexpr int kChartMinWidth = 480, kChartMinHeight = 300, kChartWidth = 960, kChartHeight = 600;

int index(ExportFormat format) {
  return static_cast<int>(format);
}

QString suffixOf(ExportFormat format) {
  switch (format) {
    case ExportFormat::TorchScript:
      return QStringLiteral("pt");
    case ExportFormat::Onnx:
      return QStringLiteral("onnx");
    case ExportFormat::Safetensors:
      return QStringLiteral("safetensors");
  }
  return {};
}

QString filterOf(ExportFormat format) {
  switch (format) {
    case ExportFormat::TorchScript:
      return ExportMenu::tr("TorchScript module (*.pt);;All files (*)");
    case ExportFormat::Onnx:
      return ExportMenu::tr("ONNX model (*.onnx);;All files (*)");
    case ExportFormat::Safetensors:
      return ExportMenu::tr("safetensors weights (*.safetensors);;All files (*)");
  }
  return {};
}

// Letters, digits, '.', '_' and '-' only, so a default name is a valid file name everywhere.
QString fileNamePart(const QString& text) {
  QString out = text;
  out.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
  return out.isEmpty() ? QStringLiteral("model") : out;
}

QString targetLabel(const ExportMenu::Target& target) {
  const QString run = target.runName.isEmpty() ? QDir(target.runDir).dirName() : target.runName;
  return target.artifact.isEmpty() ? run
                                   : run + QStringLiteral(" · ") + QFileInfo(target.artifact).fileName();
}

// Replaces `to` as a whole (never half written), in chunks.
QString copyFile(const QString& from, const QString& to) {
  QFile in(from);
  if (!in.open(QIODevice::ReadOnly)) return in.errorString();
  QSaveFile out(to);
  if (!out.open(QIODevice::WriteOnly)) return out.errorString();
  while (!in.atEnd()) {
    const QByteArray chunk = in.read(kCopyChunk);
    if (chunk.isEmpty() && in.error() != QFileDevice::NoError) return in.errorString();
    if (out.write(chunk) != chunk.size()) return out.errorString();
  }
  if (!out.commit()) return out.errorString();
  return {};
}

}  // namespace

QString formatLabel(ExportFormat format) {
  switch (format) {
    case ExportFormat::TorchScript:
      return QStringLiteral("TorchScript");
    case ExportFormat::Onnx:
      return QStringLiteral("ONNX");
    case ExportFormat::Safetensors:
      return QStringLiteral("safetensors");
  }
  return {};
}

ExportMenu::ExportMenu(QMainWindow* window, RunsBrowser* runs, ChartsPanel* charts,
                       ErrorPresenter presentError)
    : QObject(window),
      m_window(window),
      m_runs(runs),
      m_charts(charts),
      m_presentError(std::move(presentError)),
      m_exporter(new ModelExporter(this)),
      m_menu(new QMenu(tr("E&xport"), window)) {
  m_menu->setObjectName(QStringLiteral("exportMenu"));
  m_menu->setToolTipsVisible(true);
  for (ExportFormat f : {ExportFormat::TorchScript, ExportFormat::Onnx, ExportFormat::Safetensors}) {
    m_unavailable[index(f)] = QString::fromStdString(exportUnavailable(f));
  }

  struct Spec {
    Item item;
    const char* name;
    QString text;
  };
  const Spec specs[] = {
      {Item::TorchScript, "exportTorchScript", tr("Model as &TorchScript…")},
      {Item::Onnx, "exportOnnx", tr("Model as &ONNX…")},
      {Item::Safetensors, "exportSafetensors", tr("&Weights as safetensors…")},
      {Item::MetricsCsv, "exportMetricsCsv", tr("&Metrics as CSV…")},
      {Item::ChartsPng, "exportChartsPng", tr("All Charts as &PNG…")},
      {Item::ChartsSvg, "exportChartsSvg", tr("All Charts as &SVG…")},
      {Item::ChartsPdf, "exportChartsPdf", tr("All Charts as P&DF…")},
  };
  for (const Spec& spec : specs) {
    auto* a = new QAction(actionIcon(QStringLiteral("export")), spec.text, this);
    a->setObjectName(QLatin1String(spec.name));
    m_actions[static_cast<int>(spec.item)] = a;
  }
  connect(action(Item::TorchScript), &QAction::triggered, this,
          [this] { chooseModelFile(ExportFormat::TorchScript); });
  connect(action(Item::Onnx), &QAction::triggered, this, [this] { chooseModelFile(ExportFormat::Onnx); });
  connect(action(Item::Safetensors), &QAction::triggered, this,
          [this] { chooseModelFile(ExportFormat::Safetensors); });
  connect(action(Item::MetricsCsv), &QAction::triggered, this, &ExportMenu::chooseMetricsFile);
  connect(action(Item::ChartsPng), &QAction::triggered, this,
          [this] { chooseChartsFolder(QStringLiteral("png")); });
  connect(action(Item::ChartsSvg), &QAction::triggered, this,
          [this] { chooseChartsFolder(QStringLiteral("svg")); });
  connect(action(Item::ChartsPdf), &QAction::triggered, this,
          [this] { chooseChartsFolder(QStringLiteral("pdf")); });

  m_menu->addAction(action(Item::TorchScript));
  m_menu->addAction(action(Item::Onnx));
  m_menu->addAction(action(Item::Safetensors));
  m_menu->addSeparator();
  m_menu->addAction(action(Item::MetricsCsv));
  m_menu->addSeparator();
  m_menu->addAction(action(Item::ChartsPng));
  m_menu->addAction(action(Item::ChartsSvg));
  m_menu->addAction(action(Item::ChartsPdf));
  // The charts fill without a selection change: look again whenever the menu opens.
  connect(m_menu, &QMenu::aboutToShow, this, &ExportMenu::update);

  connect(m_exporter, &ModelExporter::progressChanged, this, [this](double fraction) {
    if (m_progressBar) m_progressBar->setValue(static_cast<int>(fraction * 1000));
  });
  connect(m_exporter, &ModelExporter::finished, this, &ExportMenu::onModelExported);
  update();
}

QAction* ExportMenu::action(Item item) const {
  return m_actions[static_cast<int>(item)];
}

std::optional<ExportMenu::Target> ExportMenu::selectedTarget() const {
  const std::optional<RunRecord> run = m_runs->selectedRun();
  if (!run) return std::nullopt;
  Target target;
  target.runDir = QString::fromStdString(run->folder);
  target.runName = QString::fromStdString(run->name);
  target.artifact = m_runs->selectedArtifact();
  return target;
}

ExportMenu::Target ExportMenu::targetOf(const QString& runDir, const QString& artifact) {
  Target target;
  target.runDir = QDir(runDir).absolutePath();
  target.artifact = artifact;
  std::ifstream in(QDir(runDir).filePath(QStringLiteral("experiment.json")).toStdString());
  const nlohmann::json doc =
      in ? nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false) : nlohmann::json();
  if (doc.is_object() && doc.value("name", nlohmann::json()).is_string()) {
    target.runName = QString::fromStdString(doc["name"].get<std::string>());
  }
  return target;
}

QString ExportMenu::defaultFileName(const Target& target, ExportFormat format) {
  QString stem = target.runName.isEmpty() ? QDir(target.runDir).dirName() : target.runName;
  if (!target.artifact.isEmpty()) stem += QLatin1Char('-') + QFileInfo(target.artifact).fileName();
  return fileNamePart(stem) + QLatin1Char('.') + suffixOf(format);
}

void ExportMenu::update() {
  const std::optional<RunRecord> run = m_runs->selectedRun();
  const bool oneRow = m_runs->selectedRowCount() == 1;
  const bool artifact = !m_runs->selectedArtifact().isEmpty();

  // The model items: one finished run or one compressed model, a format this build writes, no export in
  // flight.
  QString why;
  if (!run || !oneRow) {
    why = tr("Select one finished run, or one of its compressed models, in the Runs panel (View ▸ Runs)");
  } else if (!artifact && run->status != RunIndexStatus::Finished) {
    // As the CLI, a part-trained model is not exported as if it were trained; the window's way on is to
    // finish it.
    why =
        run->status == RunIndexStatus::Interrupted
            ? tr("The run was interrupted at step %1: its model is part-trained. Resume it (Run ▸ Resume an "
                 "Interrupted Run) to finish its training, then export it")
                  .arg(run->steps)
            : tr("The run is %1: only a finished run has a trained model to export")
                  .arg(QString::fromStdString(wordString(run->status)));
  } else if (m_exporter->isActive()) {
    why = tr("An export is in progress");
  }
  const QString what = artifact ? tr("the selected compressed model") : tr("the selected run's model");
  const struct {
    ExportFormat format;
    QString tip;
  } models[] = {
      {ExportFormat::TorchScript,
       tr("Save %1 as a TorchScript module (.pt): torch.jit.load in Python, torch::jit::load in C++")
           .arg(what)},
      {ExportFormat::Onnx,
       tr("Save %1 as an ONNX model (.onnx), for ONNX Runtime and other tools").arg(what)},
      {ExportFormat::Safetensors, tr("Save the weights of %1 as a .safetensors file").arg(what)},
  };
  for (const auto& m : models) {
    const QString unavailable = m_unavailable[index(m.format)];
    const QString reason = !unavailable.isEmpty() ? unavailable : why;
    QAction* a = action(static_cast<Item>(index(m.format)));
    a->setEnabled(reason.isEmpty());
    a->setToolTip(reason.isEmpty() ? m.tip : reason);
    a->setStatusTip(a->toolTip());
  }

  QString metricsWhy;
  if (!run) {
    metricsWhy = tr("Select one run in the Runs panel (View ▸ Runs)");
  } else if (!QFileInfo::exists(
                 QDir(QString::fromStdString(run->folder)).filePath(QStringLiteral("metrics.csv")))) {
    metricsWhy = tr("The run has no metrics.csv yet");
  }
  QAction* metrics = action(Item::MetricsCsv);
  metrics->setEnabled(metricsWhy.isEmpty());
  metrics->setToolTip(metricsWhy.isEmpty()
                          ? tr("Save a copy of the run's metrics.csv (every logged step and epoch)")
                          : metricsWhy);
  metrics->setStatusTip(metrics->toolTip());

  const bool charted = m_charts->traceCount() > 0;
  for (Item item : {Item::ChartsPng, Item::ChartsSvg, Item::ChartsPdf}) {
    QAction* a = action(item);
    a->setEnabled(charted);
    const QString format = item == Item::ChartsPng   ? QStringLiteral("PNG")
                           : item == Item::ChartsSvg ? QStringLiteral("SVG")
                                                     : QStringLiteral("PDF");
    a->setToolTip(charted ? tr("Save every chart of the Training view as a %1 file into a folder").arg(format)
                          : tr("The charts are empty: open a run from the Runs panel, or start one"));
    a->setStatusTip(a->toolTip());
  }
}

QString ExportMenu::startFolder(const QString& runDir) const {
  if (!m_lastFolder.isEmpty() && QFileInfo(m_lastFolder).isDir()) return m_lastFolder;
  return runDir.isEmpty() ? QDir::homePath() : runDir;
}

// --- models

void ExportMenu::chooseModelFile(ExportFormat format) {
  const std::optional<Target> target = selectedTarget();
  if (!target) return;
  const QString suggested = QDir(startFolder(target->runDir)).filePath(defaultFileName(*target, format));
  QString file = QFileDialog::getSaveFileName(
      m_window, tr("Export %1 as %2").arg(targetLabel(*target), formatLabel(format)), suggested,
      filterOf(format));
  if (file.isEmpty()) return;
  if (QFileInfo(file).suffix().isEmpty()) file += QLatin1Char('.') + suffixOf(format);
  m_lastFolder = QFileInfo(file).absolutePath();
  exportModelTo(*target, format, file);
}

bool ExportMenu::exportModelTo(const Target& target, ExportFormat format, const QString& file) {
  if (m_exporter->isActive()) {
    m_presentError(tr("An export is in progress"), tr("One model is exported at a time."),
                   tr("Wait for it to finish, then export again."));
    return false;
  }
  ExportRequest request;
  request.run_dir = target.runDir.toStdString();
  request.artifact = target.artifact.toStdString();
  request.format = format;
  request.out = file.isEmpty() ? std::string() : QFileInfo(file).absoluteFilePath().toStdString();
  m_exportLabel = tr("%1 as %2").arg(targetLabel(target), formatLabel(format));
  m_exporter->start(request);
  update();

  auto* dialog = new QDialog(m_window);
  dialog->setObjectName(QStringLiteral("exportProgressDialog"));
  dialog->setWindowTitle(tr("Exporting"));
  dialog->setWindowModality(Qt::WindowModal);
  auto* label =
      new QLabel(tr("Exporting %1 to %2…").arg(m_exportLabel, QDir::toNativeSeparators(file)), dialog);
  label->setWordWrap(true);
  m_progressBar = new QProgressBar(dialog);
  m_progressBar->setRange(0, 1000);
  m_progressBar->setTextVisible(false);
  auto* layout = new QVBoxLayout(dialog);
  layout->addWidget(label);
  layout->addWidget(m_progressBar);
  fitDialogToScreen(dialog, QSize(460, dialog->sizeHint().height()));
  m_progress = dialog;
  QTimer::singleShot(kProgressDelayMs, dialog, [this, dialog] {
    if (m_exporter->isActive()) dialog->open();  // window-modal, no nested event loop
  });
  return true;
}

void ExportMenu::onModelExported(const ExportOutcome& outcome) {
  if (m_progress) {
    m_progress->hide();
    m_progress->deleteLater();
  }
  m_progressBar = nullptr;
  update();
  if (outcome.ok) {
    if (m_result) m_result->close();
    auto* dialog = new ExportResultDialog(outcome.result, m_exportLabel, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    m_result = dialog;
    dialog->open();
    emit statusMessage(tr("Exported %1: %2 (%3)")
                           .arg(m_exportLabel,
                                QDir::toNativeSeparators(QString::fromStdString(outcome.result.file)),
                                formatFileSize(outcome.result.bytes)));
  } else {
    m_presentError(tr("Could not export %1").arg(m_exportLabel), outcome.error,
                   !outcome.hint.isEmpty()
                       ? outcome.hint
                       : tr("Check that the folder exists and can be written to, then export "
                            "again."));
  }
  emit modelExported(outcome);
}

// --- metrics

void ExportMenu::chooseMetricsFile() {
  const std::optional<Target> target = selectedTarget();
  if (!target) return;
  const QString stem =
      fileNamePart(target->runName.isEmpty() ? QDir(target->runDir).dirName() : target->runName);
  QString file = QFileDialog::getSaveFileName(
      m_window, tr("Export the metrics of %1").arg(targetLabel(*target)),
      QDir(startFolder(target->runDir)).filePath(stem + QStringLiteral("-metrics.csv")),
      tr("CSV files (*.csv);;All files (*)"));
  if (file.isEmpty()) return;
  if (QFileInfo(file).suffix().isEmpty()) file += QStringLiteral(".csv");
  m_lastFolder = QFileInfo(file).absolutePath();
  exportMetricsTo(target->runDir, file);
}

bool ExportMenu::exportMetricsTo(const QString& runDir, const QString& file) {
  const QString source = QDir(runDir).filePath(QStringLiteral("metrics.csv"));
  if (!QFileInfo::exists(source)) {
    m_presentError(tr("Could not export the metrics"),
                   tr("%1 does not exist.").arg(QDir::toNativeSeparators(source)),
                   tr("Choose a run that has logged at least one step."));
    return false;
  }
  if (QFileInfo(source).canonicalFilePath() == QFileInfo(file).canonicalFilePath()) return true;
  // On the UI thread: metrics.csv holds one line per logged step, megabytes at most, copied in milliseconds.
  const QString error = copyFile(source, file);
  if (!error.isEmpty()) {
    m_presentError(tr("Could not export the metrics"),
                   tr("%1 could not be written: %2").arg(QDir::toNativeSeparators(file), error),
                   tr("Choose a folder you can write to."));
    return false;
  }
  emit statusMessage(tr("Saved the metrics to %1").arg(QDir::toNativeSeparators(file)));
  return true;
}

// --- charts

void ExportMenu::chooseChartsFolder(const QString& suffix) {
  const std::optional<Target> target = selectedTarget();
  const QString folder = QFileDialog::getExistingDirectory(
      m_window, tr("Save every chart as %1 into a folder").arg(suffix.toUpper()),
      startFolder(target ? target->runDir : QString()));
  if (folder.isEmpty()) return;
  m_lastFolder = folder;
  exportChartsTo(folder, suffix);
}

QStringList ExportMenu::exportChartsTo(const QString& folder, const QString& suffix) {
  if (!QDir().mkpath(folder)) {
    m_presentError(tr("Could not save the charts"), tr("The folder %1 could not be created.").arg(folder),
                   tr("Choose a folder you can write to."));
    return {};
  }
  m_charts->replotAllNow();  // ranges and views up to date, even for charts behind another tab
  const QString kind = suffix.toLower();
  QStringList written;
  QStringList failed;
  for (MetricChart* chart : m_charts->charts()) {
    const QString file =
        QDir(folder).filePath(fileNamePart(chart->title().toLower()) + QLatin1Char('.') + kind);
    const int w = chart->width() >= kChartMinWidth ? chart->width() : kChartWidth;
    const int h = chart->height() >= kChartMinHeight ? chart->height() : kChartHeight;
    bool ok = false;
    if (kind == QLatin1String("pdf")) {
      ok = chart->savePdf(file, w, h, QCP::epNoCosmetic, QStringLiteral("Torch Workbench"), chart->title());
    } else if (kind == QLatin1String("svg")) {
      ok = saveSvg(chart, file, w, h);
    } else {
      ok = chart->savePng(file, w, h, 2.0);
    }
    (ok ? written : failed) << file;
  }
  if (!failed.isEmpty()) {
    m_presentError(tr("Could not save every chart"),
                   tr("Not written: %1").arg(failed.join(QStringLiteral(", "))),
                   tr("Choose a folder you can write to."));
    return {};
  }
  emit statusMessage(tr("Saved %n chart(s) to %1", nullptr, static_cast<int>(written.size()))
                         .arg(QDir::toNativeSeparators(folder)));
  return written;
}

}  // namespace wb::gui
