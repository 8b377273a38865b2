// The GPU's NVML figures on the memory chart: utilization and power (as a share of its limit) against the
// right axis while sampled; when not, no GPU curve and a note saying why ("GPU: no NVML: ...", "GPU: CPU
// run") — never a line at zero.

#include <QtTest>

#include "charts/charts_panel.h"
#include "charts/metric_chart.h"

using namespace wb;
using namespace wb::gui;

namespace {

std::vector<StepMetrics> gpuSteps(int64_t first, int64_t last, const GpuFigures& gpu) {
  std::vector<StepMetrics> out;
  for (int64_t s = first; s <= last; ++s) {
    StepMetrics m;
    m.step = s;
    m.epoch = 1;
    m.total_steps = 100;
    m.loss = 1.0;
    m.lr = 1e-3;
    m.samples_per_sec = 4000;
    m.cpu_rss_bytes = 500ll << 20;
    m.cuda_allocated_bytes = 2ll << 30;
    m.cuda_reserved_bytes = 3ll << 30;
    m.cuda_peak_bytes = 3ll << 30;
    m.gpu = gpu;
    out.push_back(m);
  }
  return out;
}

GpuFigures sampled(double utilization, double power_w) {
  GpuFigures g;
  g.not_sampled.clear();
  g.samples = 2;
  g.utilization_pct = utilization;
  g.power_w = power_w;
  g.power_limit_w = 400;
  return g;
}

GpuFigures notSampled(const char* why) {
  GpuFigures g;
  g.not_sampled = why;
  return g;
}

// The values of the memory chart's series named `name`.
QVector<double> values(MetricChart* chart, const QString& name) {
  QVector<double> out;
  for (int i = 0; i < chart->graphCount(); ++i) {
    if (chart->graph(i)->name() != name) continue;
    for (auto it = chart->graph(i)->data()->constBegin(); it != chart->graph(i)->data()->constEnd(); ++it) {
      out.push_back(it->value);
    }
  }
  return out;
}

}  // namespace

class GpuChartTest : public QObject {
  Q_OBJECT

 private slots:
  void sampledFiguresAreCurvesBesideMemory() {
    ChartsPanel panel;
    panel.resize(1100, 340);  // the charts at their least height
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.addTrace(QStringLiteral("live"), QStringLiteral("cnn"));
    panel.appendSteps(QStringLiteral("live"), gpuSteps(1, 10, sampled(87, 312)));
    panel.replotAllNow();
    MetricChart* memory = panel.chart(ChartId::Memory);
    const QStringList legend = memory->seriesNames(true);
    QVERIFY2(legend.contains(QStringLiteral("GPU busy")), qPrintable(legend.join(", ")));
    QVERIFY2(legend.contains(QStringLiteral("GPU power (% limit)")), qPrintable(legend.join(", ")));
    QCOMPARE(values(memory, QStringLiteral("GPU busy")), QVector<double>(10, 87.0));
    QCOMPARE(values(memory, QStringLiteral("GPU power (% limit)")), QVector<double>(10, 78.0));
    QCOMPARE(panel.gpuNote(), QString());
    QVERIFY(memory->yAxis2->visible());
    const QFontMetrics metrics(memory->yAxis2->labelFont());
    QVERIFY(metrics.horizontalAdvance(memory->yAxis2->label()) <= memory->axisRect()->height());
  }

  void unsampledFiguresAreANoteNotAZero() {
    ChartsPanel panel;
    panel.resize(1100, 560);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.addTrace(QStringLiteral("live"), QStringLiteral("cnn"));
    panel.appendSteps(QStringLiteral("live"),
                      gpuSteps(1, 10, notSampled("no NVML: cannot load libnvidia-ml.so.1: no such file")));
    panel.replotAllNow();
    MetricChart* memory = panel.chart(ChartId::Memory);
    QCOMPARE(panel.gpuNote(), QStringLiteral("GPU: no NVML: cannot load libnvidia-ml.so.1: no such file"));
    QVERIFY(!memory->seriesNames().contains(QStringLiteral("GPU busy")));
    QVERIFY(!memory->seriesNames().contains(QStringLiteral("GPU power (% limit)")));
    QVERIFY(values(memory, QStringLiteral("GPU busy")).isEmpty());

    // A CPU run says so; a run sampled after it clears the note.
    panel.addTrace(QStringLiteral("live"), QStringLiteral("cpu"));
    panel.appendSteps(QStringLiteral("live"), gpuSteps(1, 3, notSampled("CPU run")));
    QCOMPARE(panel.gpuNote(), QStringLiteral("GPU: CPU run"));
    panel.appendSteps(QStringLiteral("live"), gpuSteps(4, 6, sampled(40, 100)));
    QCOMPARE(panel.gpuNote(), QString());
  }
};

QTEST_MAIN(GpuChartTest)
#include "gpu_chart_test.moc"
