#pragma once
// The live charts: loss, the task's figure (classification's accuracy), throughput, learning rate, memory,
// gradients. Each run on the charts is a
// "trace" (the live run, or a past run opened from the runs browser); traces overlay. New data marks a chart
// dirty; a ~30 Hz timer replots only the dirty ones. A data-parallel run (StepMetrics::devices) also gets one
// curve per device on the throughput and memory charts ("rank 1 · cuda:1"), each rank in a colour of its own.

#include <QColor>
#include <QTimer>
#include <QWidget>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "charts/ema.h"
#include "charts/metric_chart.h"
#include "workbench/events.h"

class QLabel;
class QSlider;

namespace wb::gui {

class ChartGrid;
class GpuNote;

// Figure: the headline figure of the task of the run added last (taskFigureSpecs: classification's accuracy).
enum class ChartId { Loss, Figure, Throughput, LearningRate, Memory, Gradients };

class ChartsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ChartsPanel(QWidget* parent = nullptr);
  ~ChartsPanel() override;

  // A trace id is the run folder (or "live" for the run in progress). Adding an existing id replaces it.
  // With a task, the figure chart shows that task's headline figure from now on (a run of another task on
  // the charts draws none there); without, the figure chart stays as it is.
  void addTrace(const QString& id, const QString& label, std::optional<TaskKind> task = std::nullopt);
  // The figure the figure chart draws (classification's "accuracy" until a run of another task is added).
  const FigureSpec& figureShown() const { return m_figure; }
  void removeTrace(const QString& id);
  // Removes every trace except `keep` (may be empty).
  void clearTracesExcept(const QString& keep);
  bool hasTrace(const QString& id) const { return m_traces.count(id) > 0; }
  QStringList traceIds() const;
  QString traceLabel(const QString& id) const;
  void setTraceLabel(const QString& id, const QString& label);  // a renamed run: its legend entries follow
  // The colour of a trace when several runs are overlaid: derived from the run folder's name, so a run keeps
  // its colour across sessions and whatever else is shown (unless two runs on the charts hash to the same
  // colour: the later one then takes the next free one).
  static QColor runColor(const QString& id);
  QColor traceColor(const QString& id) const;
  int traceCount() const { return static_cast<int>(m_traces.size()); }

  void appendSteps(const QString& id, const std::vector<StepMetrics>& steps);
  void appendEpochs(const QString& id, const std::vector<EpochMetrics>& epochs);
  // Live changes of a trace's run (learning rate, stop after epoch) as labelled vertical marks at their step
  // on the loss and learning-rate charts; they go with the trace.
  void addControlMarks(const QString& id, const std::vector<ControlApplied>& controls);
  QStringList controlMarkLabels(const QString& id) const;  // "lr ×0.5", in the order added

  MetricChart* chart(ChartId id) const;
  QList<MetricChart*> charts() const { return m_charts; }

  // Why the latest run's GPU has no curve on the memory chart ("GPU: CPU run", "GPU: no NVML: ..."); empty
  // while it is sampled.
  QString gpuNote() const;

  double smoothing() const;
  void setSmoothing(double weight);  // 0 = raw, up to 0.99

  void replotDirty();
  void replotAllNow();  // synchronous: for screenshots and the benchmark
  void autoscaleAll();

 private:
  struct Device {
    QString name;       // "cpu", "cuda:1"
    bool cuda = false;  // reports CUDA memory
    QString stages;     // a pipeline's device: "stage 0", "stages 1, 2"; empty for a data-parallel rank
  };
  void showFigure(const FigureSpec& figure);

  struct Trace {
    QString label;
    int index = 0;              // order of addition
    QColor color;               // the run's colour when several are overlaid (runColor, or the next free one)
    std::map<int, int> series;  // series kind -> chart series handle
    QVector<double> lossKeys,
        lossValues;  // raw training loss, kept to recompute the EMA when the slider moves
    Ema ema;
    // StepMetrics::devices by their place in it: a data-parallel rank (the place is the rank) or a pipeline's
    // device; empty with one device.
    std::map<int64_t, Device> devices;
  };
  // How one series of a trace is drawn and named, with one run on the charts or several.
  struct SeriesLook {
    ChartId chart = ChartId::Loss;
    QString name;
    SeriesStyle style;
  };

  // Per rank of a data-parallel run: its throughput, and its device's memory (CUDA allocated, or the RSS).
  struct RankPoints {
    QVector<double> keys, throughput, memoryKeys, memory, cudaKeys, reserved, peak;
  };
  // The GPU's NVML figures: utilization, and power as a share of its limit (right axis, percent).
  struct GpuPoints {
    QVector<double> busyKeys, busy, powerKeys, power;
    void add(const GpuFigures& gpu, double step);
  };
  // Steps as the charts' series take them: each curve's keys and values; the curves only some runs have
  // (memory, gradient norm, loss scale, GPU, ranks) hold the steps that report them.
  struct StepPoints {
    QVector<double> keys, loss, smoothed, throughput, lr;
    QVector<double> rssKeys, rss, cudaKeys, allocated, reserved, peak, gradKeys, gradNorm, scaleKeys, scale;
    GpuPoints gpu;
    std::map<int64_t, RankPoints> ranks;
  };
  // The trace's smoothing goes on over the steps, and it learns the devices they report.
  static StepPoints stepPoints(Trace& t, const std::vector<StepMetrics>& steps);
  // Appends the curves only some runs have, each series made at its first point; true when one was made.
  bool appendOccasionalSeries(const QString& id, Trace& t, const StepPoints& points);
  void showGpuNote(const Trace& trace, const GpuFigures& gpu);
  // A data-parallel step's points per rank, a pipeline's per device (the trace learns each one's device);
  // true when one reports CUDA memory.
  static bool addRankPoints(Trace& t, const StepMetrics& s, double step,
                            std::map<int64_t, RankPoints>& ranks);

  SeriesLook look(const Trace& trace, int kind, bool overlay) const;
  int ensureSeries(const QString& id, Trace& trace, int kind);
  void restyle();
  void recomputeEma(Trace& trace);

  QList<MetricChart*> m_charts;
  ChartGrid* m_grid = nullptr;
  std::map<QString, Trace> m_traces;
  struct ControlMark {
    MetricChart* chart = nullptr;
    QCPAbstractItem* item = nullptr;
  };
  std::map<QString, std::vector<ControlMark>> m_controlMarks;  // by trace id
  std::map<QString, QStringList> m_controlMarkLabels;
  int m_nextIndex = 0;
  FigureSpec m_figure;
  QSlider* m_smoothing = nullptr;
  QLabel* m_smoothingValue = nullptr;
  QTimer m_replotTimer;
  std::unique_ptr<GpuNote> m_gpuNote;
};

}  // namespace wb::gui
