#include "charts/charts_panel.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>

namespace wb::gui {
namespace {

// The engine sends a batch at most every ~100 ms while steps run; replotting dirty charts at that pace keeps them
// live while leaving the cores to training (on a 2-core machine every replot is taken from the trainer).
// Zoom, pan and hover replot at once, outside this timer.
constexpr int kReplotIntervalMs = 100;
constexpr double kMiB = 1024.0 * 1024.0;

// matplotlib's tab10: what PyTorch users see in every notebook.
const QColor kColors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                          QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                          QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf), QColor(0xbc, 0xbd, 0x22),
                          QColor(0x7f, 0x7f, 0x7f)};
constexpr int kColorCount = sizeof(kColors) / sizeof(kColors[0]);

enum Kind {
  kTrainLossRaw, kTrainLoss, kValLoss, kTrainAcc, kValAcc, kThroughput, kLr, kRss, kCudaAllocated, kCudaReserved,
  kCudaPeak, kGradNorm, kLossScale
};

struct KindInfo {
  ChartId chart;
  const char* name;
  int color;            // colour when one run is shown
  Qt::PenStyle pen;     // line style when several runs are overlaid (colour then tells the runs apart)
  double width;
  bool markers;
  bool rightAxis;
  bool legend;
};

const KindInfo kKinds[] = {
    {ChartId::Loss, "train (raw)", 0, Qt::SolidLine, 1.0, false, false, false},
    {ChartId::Loss, "train", 0, Qt::SolidLine, 1.8, false, false, true},
    {ChartId::Loss, "validation", 1, Qt::DashLine, 1.6, true, false, true},
    {ChartId::Accuracy, "train", 0, Qt::SolidLine, 1.6, true, false, true},
    {ChartId::Accuracy, "validation", 1, Qt::DashLine, 1.6, true, false, true},
    {ChartId::Throughput, "training", 0, Qt::SolidLine, 1.4, false, false, true},
    {ChartId::LearningRate, "learning rate", 0, Qt::SolidLine, 1.6, false, false, true},
    {ChartId::Memory, "CPU RSS", 0, Qt::SolidLine, 1.6, false, false, true},
    {ChartId::Memory, "CUDA allocated", 2, Qt::DashLine, 1.6, false, false, true},
    {ChartId::Memory, "CUDA reserved", 3, Qt::DotLine, 1.6, false, false, true},
    {ChartId::Memory, "CUDA peak", 4, Qt::DashDotLine, 1.6, false, false, true},
    {ChartId::Gradients, "gradient norm", 0, Qt::SolidLine, 1.4, false, false, true},
    {ChartId::Gradients, "AMP loss scale", 1, Qt::DashLine, 1.6, false, true, true},
};

}  // namespace

ChartsPanel::ChartsPanel(QWidget* parent) : QWidget(parent) {
  const QString x = tr("optimizer step");
  m_charts = {
      new MetricChart(tr("Loss"), x, tr("cross-entropy [nats]"), this),
      new MetricChart(tr("Accuracy"), x, tr("accuracy [%]"), this),
      new MetricChart(tr("Throughput"), x, tr("samples/s"), this),
      new MetricChart(tr("Learning rate"), x, tr("learning rate (unitless)"), this),
      new MetricChart(tr("Memory"), x, tr("memory [MiB]"), this),
      new MetricChart(tr("Gradients"), x, tr("gradient L2 norm (unitless)"), this),
  };
  chart(ChartId::Loss)->setEmptyText(tr("Start a run (F5), or open a past run\nfrom the Runs panel"));
  chart(ChartId::Accuracy)->setEmptyText(tr("Per epoch: appears after the first epoch"));
  chart(ChartId::Accuracy)->setLegendCorner(Qt::AlignBottom | Qt::AlignRight);
  chart(ChartId::Memory)->setLegendCorner(Qt::AlignBottom | Qt::AlignRight);
  chart(ChartId::Gradients)->setRightAxisLabel(tr("loss scale [×]"));
  chart(ChartId::Gradients)
      ->setEmptyText(tr("The gradient norm is measured when train.clip_grad_norm > 0;\n"
                        "the AMP loss scale when train.amp is fp16"));

  auto* toolbar = new QHBoxLayout;
  toolbar->setContentsMargins(6, 2, 6, 0);
  auto* smoothingLabel = new QLabel(tr("Loss smoothing (EMA):"), this);
  m_smoothing = new QSlider(Qt::Horizontal, this);
  m_smoothing->setObjectName(QStringLiteral("smoothingSlider"));
  m_smoothing->setRange(0, 99);
  m_smoothing->setValue(60);
  m_smoothing->setFixedWidth(160);
  m_smoothing->setToolTip(tr("Weight of the exponential moving average of the training loss (0 = raw values)"));
  m_smoothingValue = new QLabel(this);
  m_smoothingValue->setMinimumWidth(QFontMetrics(font()).horizontalAdvance(QStringLiteral("0.00")) + 4);
  auto* autoscaleButton = new QPushButton(tr("Autoscale all"), this);
  autoscaleButton->setToolTip(tr("Fit every chart to its data and follow new data (double-click a chart for one)"));
  auto* hint = new QLabel(tr("Wheel: zoom · drag: pan · right-click: log scale, save PNG/PDF/CSV"), this);
  hint->setEnabled(false);
  toolbar->addWidget(smoothingLabel);
  toolbar->addWidget(m_smoothing);
  toolbar->addWidget(m_smoothingValue);
  toolbar->addSpacing(12);
  toolbar->addWidget(autoscaleButton);
  toolbar->addStretch(1);
  toolbar->addWidget(hint);

  auto* grid = new QGridLayout;
  grid->setContentsMargins(2, 2, 2, 2);
  grid->setSpacing(4);
  for (int i = 0; i < m_charts.size(); ++i) {
    m_charts[i]->setMinimumSize(260, 190);
    grid->addWidget(m_charts[i], i / 3, i % 3);
  }
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(toolbar);
  layout->addLayout(grid, 1);

  connect(m_smoothing, &QSlider::valueChanged, this, [this](int value) {
    m_smoothingValue->setText(QString::number(value / 100.0, 'f', 2));
    for (auto& entry : m_traces) recomputeEma(entry.second);
    restyle();
  });
  m_smoothingValue->setText(QString::number(smoothing(), 'f', 2));
  connect(autoscaleButton, &QPushButton::clicked, this, &ChartsPanel::autoscaleAll);

  m_replotTimer.setInterval(kReplotIntervalMs);
  connect(&m_replotTimer, &QTimer::timeout, this, &ChartsPanel::replotDirty);
  m_replotTimer.start();
}

MetricChart* ChartsPanel::chart(ChartId id) const { return m_charts.at(static_cast<int>(id)); }

double ChartsPanel::smoothing() const { return m_smoothing->value() / 100.0; }

void ChartsPanel::setSmoothing(double weight) { m_smoothing->setValue(qRound(weight * 100)); }

QStringList ChartsPanel::traceIds() const {
  QStringList ids;
  for (const auto& entry : m_traces) ids << entry.first;
  return ids;
}

QString ChartsPanel::traceLabel(const QString& id) const {
  auto it = m_traces.find(id);
  return it == m_traces.end() ? QString() : it->second.label;
}

void ChartsPanel::addTrace(const QString& id, const QString& label) {
  removeTrace(id);
  Trace trace;
  trace.label = label;
  trace.index = m_nextIndex++;
  trace.ema = Ema(smoothing());
  m_traces.emplace(id, std::move(trace));
  Trace& t = m_traces.at(id);
  // The curves every run has; memory on the GPU, gradient norm and loss scale appear when first reported.
  for (int kind : {kTrainLossRaw, kTrainLoss, kValLoss, kTrainAcc, kValAcc, kThroughput, kLr, kRss}) {
    ensureSeries(id, t, kind);
  }
  restyle();
}

void ChartsPanel::removeTrace(const QString& id) {
  if (!m_traces.count(id)) return;
  for (MetricChart* c : m_charts) c->removeGroup(id);
  m_traces.erase(id);
  restyle();
}

void ChartsPanel::clearTraces() { clearTracesExcept(QString()); }

void ChartsPanel::clearTracesExcept(const QString& keep) {
  for (const QString& id : traceIds()) {
    if (id != keep) removeTrace(id);
  }
  if (m_traces.empty()) m_nextIndex = 0;
}

int ChartsPanel::ensureSeries(const QString& id, Trace& trace, int kind) {
  auto it = trace.series.find(kind);
  if (it != trace.series.end()) return it->second;
  const KindInfo& info = kKinds[kind];
  SeriesStyle style;
  style.color = kColors[info.color];
  style.rightAxis = info.rightAxis;
  style.markers = info.markers;
  style.legend = info.legend;
  const int handle = chart(info.chart)->addSeries(tr(info.name), style, id);
  trace.series[kind] = handle;
  return handle;
}

// One run: a colour per curve. Several runs: a colour per run, a line style per curve, run names in legends.
void ChartsPanel::restyle() {
  const bool overlay = m_traces.size() > 1;
  const double w = smoothing();
  for (auto& [id, trace] : m_traces) {
    for (const auto& [kind, handle] : trace.series) {
      const KindInfo& info = kKinds[kind];
      SeriesStyle style;
      style.color = overlay ? kColors[trace.index % kColorCount] : kColors[info.color];
      style.pen = overlay ? info.pen : (kind == kCudaReserved || kind == kCudaPeak ? info.pen : Qt::SolidLine);
      style.width = info.width;
      style.markers = info.markers;
      style.rightAxis = info.rightAxis;
      style.legend = info.legend;
      if (kind == kTrainLossRaw) style.color.setAlpha(w > 0 ? 70 : 0);
      MetricChart* c = chart(info.chart);
      c->setSeriesStyle(handle, style);
      c->setSeriesName(handle, overlay ? trace.label + QStringLiteral(" · ") + tr(info.name) : tr(info.name));
      if (kind == kTrainLossRaw) c->setSeriesVisible(handle, w > 0);
    }
  }
}

void ChartsPanel::recomputeEma(Trace& trace) {
  trace.ema = Ema(smoothing());
  QVector<double> smoothed;
  smoothed.reserve(trace.lossValues.size());
  for (double v : trace.lossValues) smoothed.push_back(trace.ema.add(v));
  chart(ChartId::Loss)->replacePoints(trace.series.at(kTrainLoss), trace.lossKeys, smoothed);
}

void ChartsPanel::appendSteps(const QString& id, const std::vector<StepMetrics>& steps) {
  auto found = m_traces.find(id);
  if (found == m_traces.end() || steps.empty()) return;
  Trace& t = found->second;
  const int n = static_cast<int>(steps.size());
  QVector<double> keys(n), loss(n), smoothed(n), throughput(n), lr(n), rss(n);
  QVector<double> cudaKeys, allocated, reserved, peak, gradKeys, gradNorm, scaleKeys, scale;
  for (int i = 0; i < n; ++i) {
    const StepMetrics& s = steps[i];
    const double step = static_cast<double>(s.step);
    keys[i] = step;
    loss[i] = s.loss;
    smoothed[i] = t.ema.add(s.loss);
    throughput[i] = s.samples_per_sec;
    lr[i] = s.lr;
    rss[i] = static_cast<double>(s.cpu_rss_bytes) / kMiB;
    if (s.cuda_allocated_bytes >= 0) {
      cudaKeys.push_back(step);
      allocated.push_back(static_cast<double>(s.cuda_allocated_bytes) / kMiB);
      reserved.push_back(static_cast<double>(s.cuda_reserved_bytes) / kMiB);
      peak.push_back(static_cast<double>(s.cuda_peak_bytes) / kMiB);
    }
    if (s.grad_norm >= 0) {
      gradKeys.push_back(step);
      gradNorm.push_back(s.grad_norm);
    }
    if (s.loss_scale > 0) {
      scaleKeys.push_back(step);
      scale.push_back(s.loss_scale);
    }
  }
  t.lossKeys += keys;
  t.lossValues += loss;
  chart(ChartId::Loss)->appendPoints(t.series.at(kTrainLossRaw), keys, loss);
  chart(ChartId::Loss)->appendPoints(t.series.at(kTrainLoss), keys, smoothed);
  chart(ChartId::Throughput)->appendPoints(t.series.at(kThroughput), keys, throughput);
  chart(ChartId::LearningRate)->appendPoints(t.series.at(kLr), keys, lr);
  chart(ChartId::Memory)->appendPoints(t.series.at(kRss), keys, rss);
  bool added = false;
  auto append = [&](int kind, const QVector<double>& k, const QVector<double>& v) {
    if (k.isEmpty()) return;
    added = added || !t.series.count(kind);
    chart(kKinds[kind].chart)->appendPoints(ensureSeries(id, t, kind), k, v);
  };
  append(kCudaAllocated, cudaKeys, allocated);
  append(kCudaReserved, cudaKeys, reserved);
  append(kCudaPeak, cudaKeys, peak);
  append(kGradNorm, gradKeys, gradNorm);
  append(kLossScale, scaleKeys, scale);
  if (added) restyle();
}

void ChartsPanel::appendEpochs(const QString& id, const std::vector<EpochMetrics>& epochs) {
  auto found = m_traces.find(id);
  if (found == m_traces.end() || epochs.empty()) return;
  Trace& t = found->second;
  QVector<double> valKeys, valLoss, accKeys, trainAcc, valAccKeys, valAcc;
  for (const EpochMetrics& e : epochs) {
    const double step = static_cast<double>(e.step);
    accKeys.push_back(step);
    trainAcc.push_back(e.train_accuracy * 100);
    if (e.val_loss >= 0) {
      valKeys.push_back(step);
      valLoss.push_back(e.val_loss);
    }
    if (e.val_accuracy >= 0) {
      valAccKeys.push_back(step);
      valAcc.push_back(e.val_accuracy * 100);
    }
  }
  chart(ChartId::Loss)->appendPoints(t.series.at(kValLoss), valKeys, valLoss);
  chart(ChartId::Accuracy)->appendPoints(t.series.at(kTrainAcc), accKeys, trainAcc);
  chart(ChartId::Accuracy)->appendPoints(t.series.at(kValAcc), valAccKeys, valAcc);
}

void ChartsPanel::replotDirty() {
  if (!isVisible()) return;
  for (MetricChart* c : m_charts) c->replotIfDirty();
}

void ChartsPanel::replotAllNow() {
  for (MetricChart* c : m_charts) {
    c->markDirty();
    c->replotIfDirty();
    c->replot(QCustomPlot::rpImmediateRefresh);
  }
}

void ChartsPanel::autoscaleAll() {
  for (MetricChart* c : m_charts) c->autoscale();
}

}  // namespace wb::gui
