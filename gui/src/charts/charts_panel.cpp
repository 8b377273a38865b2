#include "charts/charts_panel.h"

#include <QDir>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>

#include "charts/chart_grid.h"
#include "charts/gpu_note.h"
#include "widgets/eliding_label.h"

namespace wb::gui {
namespace {

// The engine sends a batch at most every ~100 ms while steps run; replotting dirty charts at that pace keeps
// them live while leaving the cores to training (on a 2-core machine every replot is taken from the trainer).
// Zoom, pan and hover replot at once, outside this timer.
constexpr int kReplotIntervalMs = 100;
constexpr double kMiB = 1024.0 * 1024.0;

// matplotlib's tab10: what PyTorch users see in every notebook.
const QColor kColors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                          QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                          QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf), QColor(0xbc, 0xbd, 0x22),
                          QColor(0x7f, 0x7f, 0x7f)};
constexpr int kColorCount = sizeof(kColors) / sizeof(kColors[0]);

// Overlaid runs: tab10 (more hues would be too close to tell apart; beyond ten runs colours repeat).
const QColor kOverlayColors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                                 QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                                 QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf), QColor(0xbc, 0xbd, 0x22),
                                 QColor(0x7f, 0x7f, 0x7f)};
constexpr int kOverlayColorCount = sizeof(kOverlayColors) / sizeof(kOverlayColors[0]);

// FNV-1a over the run folder's name (not its path: a runs folder moved or opened by another path keeps the
// colours), so the colour is the same in every session; qHash is seeded per process.
int overlayColorIndex(const QString& id) {
  const QByteArray name = QDir(id).dirName().toUtf8();
  uint32_t hash = 2166136261u;
  for (char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 16777619u;
  }
  return static_cast<int>(hash % kOverlayColorCount);
}

enum Kind {
  kTrainLossRaw,
  kTrainLoss,
  kValLoss,
  kTrainFigure,
  kValFigure,
  kThroughput,
  kLr,
  kRss,
  kCudaAllocated,
  kCudaReserved,
  kCudaPeak,
  kGradNorm,
  kLossScale,
  kReservedKey,
  kPeakKey,
  kGpuBusy,
  kGpuPower
};

// A data-parallel run's per-rank curves, a pipeline's per-device ones: kind = kDeviceBase + place *
// kDeviceKinds + one of these, the place in StepMetrics::devices (a rank's is its rank).
enum DeviceKind { kDevThroughput, kDevMemory, kDevReserved, kDevPeak, kDeviceKinds };
constexpr int kDeviceBase = 1000;

int deviceKind(int64_t rank, int sub) {
  return kDeviceBase + static_cast<int>(rank) * kDeviceKinds + sub;
}

// "stage 0", "stages 1, 2": a pipeline's stages on one device; empty for a data-parallel rank.
QString stagesLabel(const std::vector<int64_t>& stages) {
  QStringList numbers;
  for (int64_t s : stages) numbers << QString::number(s);
  if (numbers.isEmpty()) return {};
  return (numbers.size() == 1 ? ChartsPanel::tr("stage %1") : ChartsPanel::tr("stages %1"))
      .arg(numbers.join(QStringLiteral(", ")));
}

// Overlaid runs share a colour per run: their ranks' curves are told apart by the line.
const Qt::PenStyle kRankPens[] = {Qt::DashLine, Qt::DotLine, Qt::DashDotLine, Qt::DashDotDotLine};

struct KindInfo {
  ChartId chart;
  const char* name;
  int color;         // colour when one run is shown
  Qt::PenStyle pen;  // line style when several runs are overlaid (colour then tells the runs apart)
  double width;
  bool markers;
  bool rightAxis;
  bool legend;
};

const KindInfo kKinds[] = {
    {ChartId::Loss, "train (raw)", 0, Qt::SolidLine, 1.0, false, false, false},
    {ChartId::Loss, "train", 0, Qt::SolidLine, 1.8, false, false, true},
    {ChartId::Loss, "validation", 1, Qt::DashLine, 1.6, true, false, true},
    {ChartId::Figure, "train", 0, Qt::SolidLine, 1.6, true, false, true},
    {ChartId::Figure, "validation", 1, Qt::DashLine, 1.6, true, false, true},
    {ChartId::Throughput, "training", 0, Qt::SolidLine, 1.4, false, false, true},
    {ChartId::LearningRate, "learning rate", 0, Qt::SolidLine, 1.6, false, false, true},
    {ChartId::Memory, "CPU RSS", 0, Qt::SolidLine, 1.6, false, false, true},
    {ChartId::Memory, "CUDA allocated", 2, Qt::DashLine, 1.6, false, false, true},
    {ChartId::Memory, "CUDA reserved", 3, Qt::DotLine, 1.6, false, false, true},
    {ChartId::Memory, "CUDA peak", 4, Qt::DashDotLine, 1.6, false, false, true},
    {ChartId::Gradients, "gradient norm", 0, Qt::SolidLine, 1.4, false, false, true},
    {ChartId::Gradients, "AMP loss scale", 1, Qt::DashLine, 1.6, false, true, true},
    // Legend keys without data: what the dotted and dash-dot lines of the CUDA ranks' colours mean.
    {ChartId::Memory, "CUDA reserved (dotted)", 9, Qt::DotLine, 1.4, false, false, true},
    {ChartId::Memory, "CUDA peak (dash-dot)", 9, Qt::DashDotLine, 1.4, false, false, true},
    // NVML's figures of the training GPU, against the right axis in percent (power as a share of its limit).
    {ChartId::Memory, "GPU busy", 7, Qt::SolidLine, 1.2, false, true, true},
    {ChartId::Memory, "GPU power (% limit)", 6, Qt::DashLine, 1.2, false, true, true},
};

// A figure's chart: "Accuracy", "accuracy [%]" for a share.
QString figureTitle(const FigureSpec& figure) {
  return QString::fromStdString(figure.title);
}

QString figureAxisLabel(const FigureSpec& figure) {
  const QString name = QString::fromStdString(figure.title).toLower();
  return figure.share ? ChartsPanel::tr("%1 [%]").arg(name) : name;
}

constexpr double kNotReported = -1e300;  // an epoch without the figure (figureNamed's `otherwise`)

}  // namespace

ChartsPanel::ChartsPanel(QWidget* parent)
    : QWidget(parent), m_figure(taskFigureSpecs(TaskKind::Classification).front()) {
  const QString x = tr("optimizer step");
  m_charts = {
      new MetricChart(tr("Loss"), x, tr("cross-entropy [nats]"), this),
      new MetricChart(figureTitle(m_figure), x, figureAxisLabel(m_figure), this),
      new MetricChart(tr("Throughput"), x, tr("samples/s"), this),
      new MetricChart(tr("Learning rate"), x, tr("learning rate (unitless)"), this),
      new MetricChart(tr("Memory"), x, tr("memory [MiB]"), this),
      // "Gradients" titles it: the axis says only what is measured, short enough for a chart 150 px high.
      new MetricChart(tr("Gradients"), x, tr("L2 norm"), this),
  };
  chart(ChartId::Loss)->setEmptyText(tr("Start a run (F5), or open a past run\nfrom the Runs panel"));
  chart(ChartId::Figure)->setEmptyText(tr("Per epoch: appears after the first epoch"));
  // A process's memory moves by a few MiB around hundreds: at least ±5 % (or 8 MiB) keeps that line flat.
  chart(ChartId::Memory)->setMinimumValueSpan(8.0, 0.10);
  chart(ChartId::Memory)->setRightAxisLabel(tr("GPU [%]"));
  m_gpuNote = std::make_unique<GpuNote>(chart(ChartId::Memory));
  // A constant or slowly decaying rate drawn from 0, with few ticks: its labels do not run together.
  chart(ChartId::LearningRate)->setValueAxisFromZero(true);
  chart(ChartId::LearningRate)->setValueTickCount(4);
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
  m_smoothing->setToolTip(
      tr("Weight of the exponential moving average of the training loss (0 = raw values)"));
  m_smoothingValue = new QLabel(this);
  m_smoothingValue->setMinimumWidth(QFontMetrics(font()).horizontalAdvance(QStringLiteral("0.00")) + 4);
  auto* autoscaleButton = new QPushButton(tr("Autoscale all"), this);
  autoscaleButton->setToolTip(
      tr("Fit every chart to its data and follow new data (double-click a chart for one)"));
  auto* hint =
      new ElidingLabel(tr("Wheel: zoom · drag: pan · right-click: log scale, save PNG/PDF/CSV"), this);
  hint->setEnabled(false);
  toolbar->addWidget(smoothingLabel);
  toolbar->addWidget(m_smoothing);
  toolbar->addWidget(m_smoothingValue);
  toolbar->addSpacing(12);
  toolbar->addWidget(autoscaleButton);
  toolbar->addSpacing(12);
  toolbar->addWidget(hint, 1);
  hint->setAlignment(Qt::AlignRight | Qt::AlignVCenter);

  m_grid = new ChartGrid(QList<QWidget*>(m_charts.begin(), m_charts.end()), QSize(260, 190), this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(toolbar);
  layout->addWidget(m_grid, 1);

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

ChartsPanel::~ChartsPanel() = default;

QString ChartsPanel::gpuNote() const {
  return m_gpuNote->text();
}

MetricChart* ChartsPanel::chart(ChartId id) const {
  return m_charts.at(static_cast<int>(id));
}

double ChartsPanel::smoothing() const {
  return m_smoothing->value() / 100.0;
}

void ChartsPanel::setSmoothing(double weight) {
  m_smoothing->setValue(qRound(weight * 100));
}

QStringList ChartsPanel::traceIds() const {
  QStringList ids;
  for (const auto& entry : m_traces) ids << entry.first;
  return ids;
}

QString ChartsPanel::traceLabel(const QString& id) const {
  auto it = m_traces.find(id);
  return it == m_traces.end() ? QString() : it->second.label;
}

QColor ChartsPanel::runColor(const QString& id) {
  return kOverlayColors[overlayColorIndex(id)];
}

QColor ChartsPanel::traceColor(const QString& id) const {
  auto it = m_traces.find(id);
  return it == m_traces.end() ? QColor() : it->second.color;
}

void ChartsPanel::setTraceLabel(const QString& id, const QString& label) {
  auto it = m_traces.find(id);
  if (it == m_traces.end() || it->second.label == label) return;
  it->second.label = label;
  restyle();
}

void ChartsPanel::addTrace(const QString& id, const QString& label, std::optional<TaskKind> task) {
  removeTrace(id);
  if (task) showFigure(taskFigureSpecs(*task).front());
  Trace trace;
  trace.label = label;
  trace.index = m_nextIndex++;
  trace.color = runColor(id);
  {
    // Two runs on the charts in one colour could not be told apart: the later one takes the next free colour.
    QList<QColor> used;
    for (const auto& entry : m_traces) used << entry.second.color;
    for (int probe = 0; used.contains(trace.color) && probe < kOverlayColorCount; ++probe) {
      trace.color = kOverlayColors[(overlayColorIndex(id) + probe + 1) % kOverlayColorCount];
    }
  }
  trace.ema = Ema(smoothing());
  m_traces.emplace(id, std::move(trace));
  Trace& t = m_traces.at(id);
  // A run added (a new live run, a past one opened): every chart fits the data again, whatever the last zoom
  // was.
  for (MetricChart* c : m_charts) c->followData();
  // The curves every run has; memory, gradient norm, loss scale and per-device curves appear when first
  // reported (a data-parallel run on CPU ranks plots each rank's memory instead of one CPU RSS curve).
  for (int kind : {kTrainLossRaw, kTrainLoss, kValLoss, kTrainFigure, kValFigure, kThroughput, kLr}) {
    ensureSeries(id, t, kind);
  }
  restyle();
}

void ChartsPanel::removeTrace(const QString& id) {
  if (!m_traces.count(id)) return;
  for (MetricChart* c : m_charts) c->removeGroup(id);
  for (const ControlMark& mark : m_controlMarks[id]) mark.chart->removeItem(mark.item);
  m_controlMarks.erase(id);
  m_controlMarkLabels.erase(id);
  m_traces.erase(id);
  restyle();
}

void ChartsPanel::clearTracesExcept(const QString& keep) {
  for (const QString& id : traceIds()) {
    if (id != keep) removeTrace(id);
  }
  if (m_traces.empty()) m_nextIndex = 0;
}

ChartsPanel::SeriesLook ChartsPanel::look(const Trace& trace, int kind, bool overlay) const {
  SeriesLook out;
  SeriesStyle& style = out.style;
  if (kind >= kDeviceBase) {
    const int64_t rank = (kind - kDeviceBase) / kDeviceKinds;
    const int sub = (kind - kDeviceBase) % kDeviceKinds;
    auto device = trace.devices.find(rank);
    const bool cuda = device != trace.devices.end() && device->second.cuda;
    out.chart = sub == kDevThroughput ? ChartId::Throughput : ChartId::Memory;
    const QString name = device != trace.devices.end() ? device->second.name : QString();
    const bool stages = device != trace.devices.end() && !device->second.stages.isEmpty();
    out.name = stages ? device->second.stages + QStringLiteral(" · ") + name
                      : tr("rank %1 · %2").arg(rank).arg(name);
    if (sub == kDevMemory) out.name += cuda ? tr(" (allocated)") : tr(" (RSS)");
    if (sub == kDevReserved) out.name += tr(" (reserved)");
    if (sub == kDevPeak) out.name += tr(" (peak)");
    // Rank r keeps its colour on both charts and across batches; colour 0 is the run's total.
    style.color = overlay ? trace.color : kColors[(rank + 1) % kColorCount];
    style.width = 1.2;
    // CPU ranks in one process report the same RSS: dashes over rank 0's line keep both colours in sight.
    const bool sharedRss = sub == kDevMemory && !cuda && rank > 0;
    style.pen = sub == kDevReserved ? Qt::DotLine
                : sub == kDevPeak   ? Qt::DashDotLine
                : overlay           ? kRankPens[rank % 4]
                : sharedRss         ? Qt::DashLine
                                    : Qt::SolidLine;
    // Reserved and peak share the rank's colour; the legend keys say what their line styles mean.
    style.legend = sub == kDevThroughput || sub == kDevMemory;
  } else {
    const KindInfo& info = kKinds[kind];
    out.chart = info.chart;
    out.name = tr(info.name);
    // A data-parallel run's throughput curve is the sum over its ranks, plotted beside each rank's.
    const bool ranks = !trace.devices.empty() && trace.devices.begin()->second.stages.isEmpty();
    if (kind == kThroughput && ranks) out.name = tr("all ranks");
    const bool key = kind == kReservedKey || kind == kPeakKey;
    style.color = overlay ? trace.color : kColors[info.color];
    style.pen = overlay || key || kind == kCudaReserved || kind == kCudaPeak ? info.pen : Qt::SolidLine;
    style.width = info.width;
    style.markers = info.markers;
    style.rightAxis = info.rightAxis;
    style.legend = info.legend;
    if (kind == kTrainLossRaw) style.color.setAlpha(smoothing() > 0 ? 70 : 0);
  }
  if (overlay) out.name = trace.label + QStringLiteral(" · ") + out.name;
  return out;
}

int ChartsPanel::ensureSeries(const QString& id, Trace& trace, int kind) {
  auto it = trace.series.find(kind);
  if (it != trace.series.end()) return it->second;
  const SeriesLook l = look(trace, kind, m_traces.size() > 1);
  const int handle = chart(l.chart)->addSeries(l.name, l.style, id);
  trace.series[kind] = handle;
  return handle;
}

// One run: a colour per curve. Several runs: a colour per run, a line style per curve, run names in legends.
void ChartsPanel::restyle() {
  const bool overlay = m_traces.size() > 1;
  const double w = smoothing();
  for (auto& [id, trace] : m_traces) {
    for (const auto& [kind, handle] : trace.series) {
      const SeriesLook l = look(trace, kind, overlay);
      MetricChart* c = chart(l.chart);
      c->setSeriesStyle(handle, l.style);
      c->setSeriesName(handle, l.name);
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

bool ChartsPanel::addRankPoints(Trace& t, const StepMetrics& s, double step,
                                std::map<int64_t, RankPoints>& ranks) {
  bool anyCuda = false;
  for (size_t place = 0; place < s.devices.size(); ++place) {
    const DeviceMetrics& d = s.devices[place];
    const auto key = static_cast<int64_t>(place);
    auto device = t.devices.find(key);
    if (device == t.devices.end()) {
      device = t.devices
                   .emplace(key, Device{QString::fromStdString(d.device), d.cuda_allocated_bytes >= 0,
                                        stagesLabel(d.stages)})
                   .first;
    }
    RankPoints& r = ranks[key];
    // A pipeline's devices all train at the rank's rate: the run's own throughput curve says it.
    if (d.stages.empty()) {
      r.keys.push_back(step);
      r.throughput.push_back(d.samples_per_sec);
    }
    if (device->second.cuda) {
      anyCuda = true;
      if (d.cuda_allocated_bytes >= 0) {
        r.memoryKeys.push_back(step);
        r.memory.push_back(static_cast<double>(d.cuda_allocated_bytes) / kMiB);
        r.cudaKeys.push_back(step);
        r.reserved.push_back(static_cast<double>(d.cuda_reserved_bytes) / kMiB);
        r.peak.push_back(static_cast<double>(d.cuda_peak_bytes) / kMiB);
      }
    } else {
      r.memoryKeys.push_back(step);
      r.memory.push_back(static_cast<double>(d.cpu_rss_bytes) / kMiB);
    }
  }
  return anyCuda;
}

void ChartsPanel::GpuPoints::add(const GpuFigures& g, double step) {
  if (!g.sampled()) return;
  if (g.utilization_pct >= 0) {
    busyKeys.push_back(step);
    busy.push_back(g.utilization_pct);
  }
  if (g.power_w >= 0 && g.power_limit_w > 0) {
    powerKeys.push_back(step);
    power.push_back(100.0 * g.power_w / g.power_limit_w);
  }
}

// The latest window says whether the run's GPU is sampled; with several runs on the charts, the run's name.
void ChartsPanel::showGpuNote(const Trace& t, const GpuFigures& gpu) {
  const QString why = gpu.sampled() ? QString() : tr("GPU: %1").arg(QString::fromStdString(gpu.not_sampled));
  m_gpuNote->setText(why.isEmpty() || m_traces.size() < 2 ? why : t.label + QStringLiteral(" · ") + why);
}

ChartsPanel::StepPoints ChartsPanel::stepPoints(Trace& t, const std::vector<StepMetrics>& steps) {
  StepPoints p;
  for (const StepMetrics& s : steps) {
    const double step = static_cast<double>(s.step);
    p.keys.push_back(step);
    p.loss.push_back(s.loss);
    p.smoothed.push_back(t.ema.add(s.loss));
    p.throughput.push_back(s.samples_per_sec);
    p.lr.push_back(s.lr);
    const bool parallel = s.devices.size() > 1;
    const bool anyCuda = parallel && addRankPoints(t, s, step, p.ranks);
    // With CPU ranks each rank's curve is the RSS; beside CUDA ranks the process's RSS keeps its own curve.
    if (!parallel || anyCuda) {
      p.rssKeys.push_back(step);
      p.rss.push_back(static_cast<double>(s.cpu_rss_bytes) / kMiB);
    }
    // With several CUDA ranks these are rank 0's, which its own curves show.
    if (!parallel && s.cuda_allocated_bytes >= 0) {
      p.cudaKeys.push_back(step);
      p.allocated.push_back(static_cast<double>(s.cuda_allocated_bytes) / kMiB);
      p.reserved.push_back(static_cast<double>(s.cuda_reserved_bytes) / kMiB);
      p.peak.push_back(static_cast<double>(s.cuda_peak_bytes) / kMiB);
    }
    if (s.grad_norm >= 0) {
      p.gradKeys.push_back(step);
      p.gradNorm.push_back(s.grad_norm);
    }
    if (s.loss_scale > 0) {
      p.scaleKeys.push_back(step);
      p.scale.push_back(s.loss_scale);
    }
    p.gpu.add(s.gpu, step);
  }
  return p;
}

bool ChartsPanel::appendOccasionalSeries(const QString& id, Trace& t, const StepPoints& p) {
  bool added = false;
  auto append = [&](int kind, const QVector<double>& k, const QVector<double>& v) {
    if (k.isEmpty()) return;
    added = added || !t.series.count(kind);
    const int handle = ensureSeries(id, t, kind);
    chart(look(t, kind, false).chart)->appendPoints(handle, k, v);
  };
  append(kRss, p.rssKeys, p.rss);
  append(kCudaAllocated, p.cudaKeys, p.allocated);
  append(kCudaReserved, p.cudaKeys, p.reserved);
  append(kCudaPeak, p.cudaKeys, p.peak);
  append(kGradNorm, p.gradKeys, p.gradNorm);
  append(kLossScale, p.scaleKeys, p.scale);
  append(kGpuBusy, p.gpu.busyKeys, p.gpu.busy);
  append(kGpuPower, p.gpu.powerKeys, p.gpu.power);
  bool cudaRanks = false;
  for (const auto& [rank, r] : p.ranks) {
    append(deviceKind(rank, kDevThroughput), r.keys, r.throughput);
    append(deviceKind(rank, kDevMemory), r.memoryKeys, r.memory);
    append(deviceKind(rank, kDevReserved), r.cudaKeys, r.reserved);
    append(deviceKind(rank, kDevPeak), r.cudaKeys, r.peak);
    cudaRanks = cudaRanks || !r.cudaKeys.isEmpty();
  }
  // Legend keys without data: what the dotted and dash-dot lines of the CUDA ranks' colours mean.
  if (cudaRanks) {
    for (int key : {kReservedKey, kPeakKey}) {
      added = added || !t.series.count(key);
      ensureSeries(id, t, key);
    }
  }
  return added;
}

void ChartsPanel::appendSteps(const QString& id, const std::vector<StepMetrics>& steps) {
  auto found = m_traces.find(id);
  if (found == m_traces.end() || steps.empty()) return;
  Trace& t = found->second;
  const StepPoints p = stepPoints(t, steps);
  t.lossKeys += p.keys;
  t.lossValues += p.loss;
  chart(ChartId::Loss)->appendPoints(t.series.at(kTrainLossRaw), p.keys, p.loss);
  chart(ChartId::Loss)->appendPoints(t.series.at(kTrainLoss), p.keys, p.smoothed);
  chart(ChartId::Throughput)->appendPoints(t.series.at(kThroughput), p.keys, p.throughput);
  chart(ChartId::LearningRate)->appendPoints(t.series.at(kLr), p.keys, p.lr);
  const bool added = appendOccasionalSeries(id, t, p);
  showGpuNote(t, steps.back().gpu);
  if (added) restyle();
}

void ChartsPanel::appendEpochs(const QString& id, const std::vector<EpochMetrics>& epochs) {
  auto found = m_traces.find(id);
  if (found == m_traces.end() || epochs.empty()) return;
  Trace& t = found->second;
  // The figure chart's figure, in percent when it is a share; an epoch without it (a run of another task)
  // adds no point there.
  const double scale = m_figure.share ? 100.0 : 1.0;
  QVector<double> valKeys, valLoss, trainKeys, trainFigure, valFigureKeys, valFigure;
  for (const EpochMetrics& e : epochs) {
    const double step = static_cast<double>(e.step);
    const double train = figureNamed(e.train_figures, m_figure.name, kNotReported);
    if (train != kNotReported) {
      trainKeys.push_back(step);
      trainFigure.push_back(train * scale);
    }
    if (e.val_loss >= 0) {
      valKeys.push_back(step);
      valLoss.push_back(e.val_loss);
    }
    const double val = figureNamed(e.val_figures, m_figure.name, kNotReported);
    if (val != kNotReported) {
      valFigureKeys.push_back(step);
      valFigure.push_back(val * scale);
    }
  }
  chart(ChartId::Loss)->appendPoints(t.series.at(kValLoss), valKeys, valLoss);
  chart(ChartId::Figure)->appendPoints(t.series.at(kTrainFigure), trainKeys, trainFigure);
  chart(ChartId::Figure)->appendPoints(t.series.at(kValFigure), valFigureKeys, valFigure);
}

void ChartsPanel::showFigure(const FigureSpec& figure) {
  if (figure.name == m_figure.name) return;
  m_figure = figure;
  MetricChart* c = chart(ChartId::Figure);
  c->setTitle(figureTitle(figure), figureAxisLabel(figure));
  // The runs already on the charts drew the other figure: their points there go (their history has the
  // epochs of their own task, not this one's).
  for (auto& [id, trace] : m_traces) {
    for (int kind : {kTrainFigure, kValFigure}) {
      if (trace.series.count(kind)) c->replacePoints(trace.series.at(kind), {}, {});
    }
  }
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

void ChartsPanel::addControlMarks(const QString& id, const std::vector<ControlApplied>& controls) {
  if (!m_traces.count(id)) return;
  for (const ControlApplied& c : controls) {
    QString label;
    switch (c.kind) {
      case ControlKind::LrScale:
        label = tr("lr ×%1").arg(c.value);
        break;
      case ControlKind::LrConstant:
        label = tr("lr %1").arg(c.value);
        break;
      case ControlKind::StopAfterEpoch:
        label = tr("stop after epoch %1").arg(c.value);
        break;
    }
    m_controlMarkLabels[id].append(label);
    // Steps are the charts' x: the mark stands where the first step with the change begins.
    const double x = static_cast<double>(c.step);
    for (ChartId which : {ChartId::Loss, ChartId::LearningRate}) {
      MetricChart* plot = chart(which);
      const QColor colour = palette().color(QPalette::PlaceholderText);
      auto* line = new QCPItemStraightLine(plot);
      line->point1->setCoords(x, 0);
      line->point2->setCoords(x, 1);
      line->setPen(QPen(colour, 1, Qt::DashLine));
      line->setSelectable(false);
      auto* text = new QCPItemText(plot);
      text->position->setTypeX(QCPItemPosition::ptPlotCoords);
      text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
      text->position->setCoords(x, 0.02);
      text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
      text->setPadding(QMargins(3, 0, 0, 0));
      text->setText(label);
      text->setColor(colour);
      text->setSelectable(false);
      text->setClipToAxisRect(true);
      m_controlMarks[id].push_back({plot, line});
      m_controlMarks[id].push_back({plot, text});
      plot->markDirty();
    }
  }
}

QStringList ChartsPanel::controlMarkLabels(const QString& id) const {
  const auto it = m_controlMarkLabels.find(id);
  return it == m_controlMarkLabels.end() ? QStringList() : it->second;
}

}  // namespace wb::gui
