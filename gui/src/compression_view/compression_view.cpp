#include "compression_view/compression_view.h"

#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "compression_view/pareto_chart.h"
#include "widgets/eliding_label.h"
#include "workbench/compression.h"

namespace wb::gui {
namespace {

// The original's batch-64 latency from the artifact's own measuring session when recorded (speedups compare
// measurements taken under the same conditions), else the original's row.
double baselineLatency64(const wb::ArtifactFigures& a, const wb::ArtifactFigures& original) {
  return a.baseline_latency_ms_batch64 > 0 ? a.baseline_latency_ms_batch64 : original.latency_ms_batch64;
}

const QString kDash = QStringLiteral("—");

double mib(int64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

QString formatCount(int64_t n) {
  const double v = static_cast<double>(n);
  if (n >= 1000000000) return QStringLiteral("%1 G").arg(v / 1e9, 0, 'f', 2);
  if (n >= 1000000) return QStringLiteral("%1 M").arg(v / 1e6, 0, 'f', 2);
  if (n >= 10000) return QStringLiteral("%1 k").arg(v / 1e3, 0, 'f', 1);
  return QLocale().toString(static_cast<qlonglong>(n));
}

// Three significant digits: 0.412 ms, 4.12 ms, 41.2 ms, 412 ms.
QString formatMs(double ms) {
  if (!(ms >= 0)) return kDash;
  const int decimals = ms < 1 ? 3 : ms < 10 ? 2 : ms < 100 ? 1 : 0;
  return QStringLiteral("%1 ms").arg(ms, 0, 'f', decimals);
}

QString formatTimes(double factor) {
  if (!(factor > 0) || !std::isfinite(factor)) return kDash;
  return QStringLiteral("%1×").arg(factor, 0, 'f', 2);
}

// Change in percentage points; the sign always shown, a real minus sign for a loss.
QString formatChange(double now, double before) {
  if (!(now >= 0) || !(before >= 0)) return kDash;
  const double pp = (now - before) * 100;
  const QString number = QString::number(std::abs(pp), 'f', 2);
  return QStringLiteral("%1%2 pp").arg(pp < -0.005 ? QStringLiteral("−") : QStringLiteral("+"), number);
}

// Numbers sort as numbers, not as text.
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(double value, const QString& text) : QTableWidgetItem(text) {
    setData(Qt::UserRole + 1, value);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    return data(Qt::UserRole + 1).toDouble() < other.data(Qt::UserRole + 1).toDouble();
  }
};

const ArtifactFigures* originalOf(const std::vector<ArtifactFigures>& all) {
  for (const ArtifactFigures& a : all)
    if (!a.pass) return &a;
  return all.empty() ? nullptr : &all.front();
}

QString hoverText(const ArtifactFigures& a, const ArtifactFigures* original) {
  QString html = QStringLiteral("<b>%1</b> (%2)")
                     .arg(QString::fromStdString(a.name).toHtmlEscaped(),
                          QString::fromStdString(artifactPassWord(a.pass)).toHtmlEscaped());
  if (!a.description.empty())
    html += QStringLiteral("<br><i>%1</i>").arg(QString::fromStdString(a.description).toHtmlEscaped());
  html += QObject::tr("<br>test accuracy %1").arg(formatAccuracy(a.test_accuracy));
  if (original && original != &a)
    html += QStringLiteral(" (%1)").arg(formatChange(a.test_accuracy, original->test_accuracy));
  html += QObject::tr("<br>size %1").arg(formatMiB(a.size_bytes));
  if (original && original != &a && a.size_bytes > 0) {
    html +=
        QObject::tr(", %1 smaller")
            .arg(formatTimes(static_cast<double>(original->size_bytes) / static_cast<double>(a.size_bytes)));
  }
  html += QObject::tr("<br>latency %1 (batch 1), %2 (batch 64)")
              .arg(formatMs(a.latency_ms_batch1), formatMs(a.latency_ms_batch64));
  if (original && original != &a && a.latency_ms_batch64 > 0) {
    html +=
        QObject::tr(", %1 faster").arg(formatTimes(baselineLatency64(a, *original) / a.latency_ms_batch64));
  }
  html += QObject::tr("<br>%1 of %2 parameters non-zero, %3 FLOPs per sample, %4 weights")
              .arg(formatCount(a.nonzero_parameters), formatCount(a.parameters),
                   formatCount(a.flops_per_sample), QString::fromStdString(a.weights_dtype).toHtmlEscaped());
  return html;
}

}  // namespace

QString formatMiB(int64_t bytes) {
  if (bytes <= 0) return kDash;
  const double m = mib(bytes);
  return QStringLiteral("%1 MiB").arg(m, 0, 'f', m < 0.1 ? 3 : 2);
}

QString formatAccuracy(double accuracy) {
  return accuracy < 0 ? kDash : QStringLiteral("%1 %").arg(accuracy * 100, 0, 'f', 2);
}

CompressionView::CompressionView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("compressionView"));
  m_title = new ElidingLabel(this);
  m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_stage = new ElidingLabel(this);
  m_stage->setObjectName(QStringLiteral("compressionStage"));
  m_progress = new QProgressBar(this);
  m_progress->setRange(0, 1000);
  m_progress->setTextVisible(false);
  m_progress->setMaximumWidth(220);
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setObjectName(QStringLiteral("cancelCompression"));
  m_cancel->setToolTip(
      tr("Stop after the step in flight: the pass writes a checkpoint, and running the same "
         "pipeline again continues it"));
  m_stage->setVisible(false);
  m_progress->setVisible(false);
  m_cancel->setVisible(false);
  connect(m_cancel, &QPushButton::clicked, this, &CompressionView::cancelRequested);

  auto* header = new QHBoxLayout;
  header->setContentsMargins(0, 0, 0, 0);
  header->addWidget(m_title, 1);
  header->addWidget(m_stage);
  header->addWidget(m_progress);
  header->addWidget(m_cancel);

  m_sizeChart = new ParetoChart(tr("Accuracy vs size on disk"), tr("size on disk (MiB)"));
  m_latencyChart = new ParetoChart(tr("Accuracy vs latency"), tr("CPU latency at batch 64 (ms)"));
  auto* charts = new QSplitter(Qt::Horizontal);
  charts->addWidget(m_sizeChart);
  charts->addWidget(m_latencyChart);
  charts->setChildrenCollapsible(false);

  m_table = new QTableWidget(0, kCompressionColumns, this);
  m_table->setObjectName(QStringLiteral("compressionTable"));
  m_table->setHorizontalHeaderLabels({tr("Model"), tr("Pass"), tr("Test acc"), tr("Δ acc"), tr("Parameters"),
                                      tr("Non-zero"), tr("Size"), tr("Smaller"), tr("FLOPs"),
                                      tr("Latency b1"), tr("Latency b64"), tr("Faster (b64)"), tr("Weights"),
                                      tr("Left in float")});
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->verticalHeader()->setVisible(false);
  m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setAlternatingRowColors(true);
  m_table->setWordWrap(false);
  // The original first, then the models in the order the passes made them (their names are numbered).
  m_table->horizontalHeader()->setSortIndicator(kArtifactColumn, Qt::AscendingOrder);

  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(charts);
  split->addWidget(m_table);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(header);
  layout->addWidget(split, 1);
  setRunDir(QString());
}

void CompressionView::setRunDir(const QString& runDir) {
  m_runDir = runDir;
  reload();
}

void CompressionView::reload() {
  m_artifacts.clear();
  if (!m_runDir.isEmpty()) {
    try {
      m_artifacts = readCompressionReport(m_runDir.toStdString());
    } catch (const std::exception&) {
      // A damaged compress.json shows as no compressed models; the pipeline rewrites it whole.
    }
  }
  rebuild();
}

void CompressionView::applyFigures(const ArtifactFigures& figures) {
  auto it = std::find_if(m_artifacts.begin(), m_artifacts.end(),
                         [&](const ArtifactFigures& a) { return a.name == figures.name; });
  if (it != m_artifacts.end()) {
    *it = figures;
  } else {
    m_artifacts.push_back(figures);
    std::sort(m_artifacts.begin(), m_artifacts.end(),
              [](const ArtifactFigures& a, const ArtifactFigures& b) { return a.name < b.name; });
  }
  rebuild();
}

void CompressionView::rebuild() {
  if (m_runDir.isEmpty()) {
    m_title->setText(tr("Select a finished run in the Runs panel to see its compressed models."));
  } else if (m_artifacts.empty()) {
    m_title->setText(
        tr("<b>%1</b>: no compressed models yet (Compress ▸ Prune…, Quantize to int8…, Distill… or "
           "Pipeline…)")
            .arg(QDir(m_runDir).dirName().toHtmlEscaped()));
  } else {
    m_title->setText(tr("<b>%1</b>: the original and %n compressed model(s)", nullptr,
                        static_cast<int>(m_artifacts.size()) - 1)
                         .arg(QDir(m_runDir).dirName().toHtmlEscaped()));
  }

  const ArtifactFigures* original = originalOf(m_artifacts);
  std::vector<TradeOffPoint> bySize, byLatency;
  for (const ArtifactFigures& a : m_artifacts) {
    const QString details = hoverText(a, original);
    const bool isOriginal = &a == original;
    const double accuracy = a.test_accuracy >= 0 ? a.test_accuracy * 100 : -1;
    bySize.push_back({QString::fromStdString(a.name), a.size_bytes > 0 ? mib(a.size_bytes) : -1, accuracy,
                      isOriginal, details});
    byLatency.push_back(
        {QString::fromStdString(a.name), a.latency_ms_batch64, accuracy, isOriginal, details});
  }
  m_sizeChart->setPoints(bySize);
  m_latencyChart->setPoints(byLatency);

  m_table->setSortingEnabled(false);
  m_table->clearContents();
  m_table->setRowCount(static_cast<int>(m_artifacts.size()));
  for (int row = 0; row < static_cast<int>(m_artifacts.size()); ++row) {
    fillRow(row, m_artifacts[static_cast<size_t>(row)], original);
  }
  m_table->setSortingEnabled(true);
  m_table->resizeColumnsToContents();
}

// One compressed model's row: its figures, and how they compare with the original's.
void CompressionView::fillRow(int row, const ArtifactFigures& a, const ArtifactFigures* original) {
  const bool isOriginal = &a == original;
  auto* name = new QTableWidgetItem(QString::fromStdString(a.name));
  name->setData(Qt::UserRole, QString::fromStdString(a.path));
  name->setToolTip(
      QStringLiteral("%1\n%2").arg(QString::fromStdString(a.path), QString::fromStdString(a.description)));
  if (isOriginal) {
    QFont bold = name->font();
    bold.setBold(true);
    name->setFont(bold);
  }
  m_table->setItem(row, kArtifactColumn, name);
  auto* pass = new QTableWidgetItem(QString::fromStdString(artifactPassWord(a.pass)));
  pass->setToolTip(QString::fromStdString(a.description));
  m_table->setItem(row, kPassColumn, pass);
  m_table->setItem(row, kAccuracyColumn, new NumberItem(a.test_accuracy, formatAccuracy(a.test_accuracy)));
  const double change = original && a.test_accuracy >= 0 ? a.test_accuracy - original->test_accuracy : 0;
  m_table->setItem(
      row, kAccuracyChangeColumn,
      new NumberItem(
          change, isOriginal || !original ? kDash : formatChange(a.test_accuracy, original->test_accuracy)));
  m_table->setItem(row, kParametersColumn,
                   new NumberItem(static_cast<double>(a.parameters), formatCount(a.parameters)));
  QString nonzero = formatCount(a.nonzero_parameters);
  if (a.parameters > 0) {
    nonzero += QStringLiteral(" (%1 %)").arg(
        100.0 * static_cast<double>(a.nonzero_parameters) / static_cast<double>(a.parameters), 0, 'f', 0);
  }
  m_table->setItem(row, kNonzeroColumn, new NumberItem(static_cast<double>(a.nonzero_parameters), nonzero));
  m_table->setItem(row, kSizeColumn,
                   new NumberItem(static_cast<double>(a.size_bytes), formatMiB(a.size_bytes)));
  const double ratio = original && a.size_bytes > 0
                           ? static_cast<double>(original->size_bytes) / static_cast<double>(a.size_bytes)
                           : 0;
  m_table->setItem(row, kSizeRatioColumn, new NumberItem(ratio, formatTimes(ratio)));
  m_table->setItem(row, kFlopsColumn,
                   new NumberItem(static_cast<double>(a.flops_per_sample), formatCount(a.flops_per_sample)));
  m_table->setItem(row, kLatency1Column, new NumberItem(a.latency_ms_batch1, formatMs(a.latency_ms_batch1)));
  m_table->setItem(row, kLatency64Column,
                   new NumberItem(a.latency_ms_batch64, formatMs(a.latency_ms_batch64)));
  const double speedup =
      original && a.latency_ms_batch64 > 0 ? baselineLatency64(a, *original) / a.latency_ms_batch64 : 0;
  m_table->setItem(row, kSpeedupColumn, new NumberItem(speedup, formatTimes(speedup)));
  m_table->setItem(row, kDtypeColumn, new QTableWidgetItem(QString::fromStdString(a.weights_dtype)));
  QStringList floats;
  for (const std::string& layer : a.float_layers) floats << QString::fromStdString(layer);
  auto* floatItem = new QTableWidgetItem(floats.isEmpty() ? kDash : floats.join(QStringLiteral("; ")));
  floatItem->setToolTip(floats.join(QLatin1Char('\n')));
  m_table->setItem(row, kFloatLayersColumn, floatItem);
}

void CompressionView::beginProgress(const QString& runDir, int passCount) {
  m_progressRun = runDir;
  m_passCount = passCount;
  m_passIndex = 0;
  m_passText = tr("Loading the data and measuring the original…");
  m_progress->setValue(0);
  m_stage->setText(QStringLiteral("%1: %2").arg(QDir(runDir).dirName(), m_passText));
  m_stage->setVisible(true);
  m_progress->setVisible(true);
  m_cancel->setVisible(true);
  m_cancel->setEnabled(true);
}

void CompressionView::updateStage(const CompressionStage& stage) {
  m_passCount = static_cast<int>(stage.pass_count);
  m_passIndex = static_cast<int>(stage.pass_index);
  const QString what = QStringLiteral("%1 (%2)").arg(QString::fromStdString(wordString(stage.pass)),
                                                     QString::fromStdString(stage.artifact));
  QString state;
  switch (stage.state) {
    case StageState::Started:
      state = tr("running");
      break;
    case StageState::Resumed:
      state = tr("resumed from its checkpoint");
      break;
    case StageState::Finished:
      state = tr("done, measuring");
      break;
    case StageState::Reused:
      state = tr("done before, reused");
      break;
  }
  m_passText = tr("pass %1 of %2: %3, %4").arg(stage.pass_index).arg(stage.pass_count).arg(what, state);
  const bool done = stage.state == StageState::Finished || stage.state == StageState::Reused;
  const double fraction = m_passCount > 0 ? (m_passIndex - (done ? 0.0 : 1.0)) / m_passCount : 0;
  m_progress->setValue(static_cast<int>(std::lround(fraction * 1000)));
  m_stage->setText(QStringLiteral("%1: %2").arg(QDir(m_progressRun).dirName(), m_passText));
}

void CompressionView::updateStep(const StepMetrics& step) {
  if (m_passCount <= 0 || step.total_steps <= 0) return;
  const double within =
      std::clamp(static_cast<double>(step.step) / static_cast<double>(step.total_steps), 0.0, 1.0);
  const double fraction = (std::max(0, m_passIndex - 1) + within) / m_passCount;
  m_progress->setValue(static_cast<int>(std::lround(fraction * 1000)));
  m_stage->setText(tr("%1: %2 · step %3 of %4, loss %5")
                       .arg(QDir(m_progressRun).dirName(), m_passText)
                       .arg(step.step)
                       .arg(step.total_steps)
                       .arg(step.loss, 0, 'f', 4));
}

void CompressionView::endProgress(const QString& text) {
  m_stage->setText(text);
  m_progress->setVisible(false);
  m_cancel->setVisible(false);
}

QString CompressionView::progressText() const {
  return m_stage->text();
}
int CompressionView::progressValue() const {
  return m_progress->value();
}

}  // namespace wb::gui
