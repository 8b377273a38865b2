// The charts keep their data in sight: legends outside the plot (and only once there is data), placeholders
// that fit, axes that start over for a new run, whole-step ticks with one point, and a memory axis that does
// not magnify a nearly flat line into a staircase, a flat learning rate drawn from 0 with few ticks.

#include <QtTest>
#include <algorithm>
#include <cmath>

#include "charts/charts_panel.h"
#include "charts/metric_chart.h"

using namespace wb;
using namespace wb::gui;

namespace {

std::vector<StepMetrics> steps(int64_t first, int64_t last, double rssMiB = 450, double wobbleMiB = 0) {
  std::vector<StepMetrics> out;
  for (int64_t s = first; s <= last; ++s) {
    StepMetrics m;
    m.step = s;
    m.epoch = 1;
    m.total_steps = 1000;
    m.loss = 2.0 / (1.0 + static_cast<double>(s) * 0.01);
    m.lr = 1e-3;
    m.samples_per_sec = 5000 + static_cast<double>(s % 7) * 100;
    // A run's resident memory creeping up by a few MiB.
    m.cpu_rss_bytes =
        static_cast<int64_t>((rssMiB + wobbleMiB * static_cast<double>(s - first) /
                                           std::max<double>(1.0, static_cast<double>(last - first))) *
                             1024 * 1024);
    out.push_back(m);
  }
  return out;
}

void showPanel(ChartsPanel& panel) {
  panel.resize(1100, 560);
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));
}

}  // namespace

class ChartsTest : public QObject {
  Q_OBJECT

 private slots:
  void legendsStayOutOfThePlotAndAppearWithData() {
    ChartsPanel panel;
    showPanel(panel);
    panel.addTrace(QStringLiteral("live"), QStringLiteral("tiny"));
    panel.replotAllNow();
    // Before data: no legend box anywhere, the Gradients chart included.
    for (MetricChart* c : panel.charts()) {
      QVERIFY2(!c->legendPlaced() && !c->legend->visible(), qPrintable(c->title()));
    }
    panel.appendSteps(QStringLiteral("live"), steps(1, 200));
    panel.replotAllNow();
    for (ChartId id : {ChartId::Loss, ChartId::Throughput, ChartId::LearningRate, ChartId::Memory}) {
      MetricChart* c = panel.chart(id);
      QVERIFY2(c->legendPlaced() && c->legend->visible(), qPrintable(c->title()));
      // Above the plot, never over it.
      QVERIFY2(!c->legend->outerRect().intersects(c->axisRect()->rect()), qPrintable(c->title()));
      QVERIFY(c->legend->outerRect().bottom() <= c->axisRect()->rect().top());
    }
    // No gradient norm measured: still no legend on that chart.
    QVERIFY(!panel.chart(ChartId::Gradients)->legendPlaced());
    QVERIFY(!panel.chart(ChartId::Gradients)->legend->visible());
    // Folded away by the user: the plot takes the room.
    MetricChart* loss = panel.chart(ChartId::Loss);
    const int plotHeight = loss->axisRect()->rect().height();
    loss->setLegendShown(false);
    loss->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(!loss->legendPlaced());
    QVERIFY(loss->axisRect()->rect().height() > plotHeight);
  }

  void placeholdersFitTheirCharts() {
    ChartsPanel panel;
    panel.resize(900, 500);  // narrow charts, as beside the editor and the docks
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.replotAllNow();
    for (MetricChart* c : panel.charts()) {
      const QFontMetrics metrics(c->font());
      for (const QString& line : c->emptyTextShown().split(QLatin1Char('\n'))) {
        QVERIFY2(metrics.horizontalAdvance(line) <= c->axisRect()->rect().width(),
                 qPrintable(c->title() + QStringLiteral(": ") + line));
      }
    }
  }

  void axesStartOverForANewRun() {
    ChartsPanel panel;
    showPanel(panel);
    panel.addTrace(QStringLiteral("live"), QStringLiteral("first"));
    panel.appendSteps(QStringLiteral("live"), steps(1, 3000));
    panel.replotAllNow();
    MetricChart* loss = panel.chart(ChartId::Loss);
    QVERIFY(loss->xAxis->range().upper >= 2900);
    // The user zooms in: the chart stops following.
    QWheelEvent wheel(QPointF(loss->axisRect()->center()),
                      loss->mapToGlobal(QPointF(loss->axisRect()->center())), QPoint(), QPoint(0, 240),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(loss, &wheel);
    QVERIFY(!loss->followsData());
    // A new run: its own range, not the old run's or the old zoom.
    panel.removeTrace(QStringLiteral("live"));
    panel.addTrace(QStringLiteral("live"), QStringLiteral("second"));
    panel.replotAllNow();
    QVERIFY(loss->followsData());
    QVERIFY2(loss->xAxis->range().upper <= 1.0, qPrintable(QString::number(loss->xAxis->range().upper)));
    panel.appendSteps(QStringLiteral("live"), steps(1, 10));
    panel.replotAllNow();
    QVERIFY2(loss->xAxis->range().upper < 20, qPrintable(QString::number(loss->xAxis->range().upper)));
  }

  // The figure chart draws the task's headline figure (classification's accuracy, in percent), taken from the
  // epochs' figures by name: a figure it does not show adds no point.
  void theFigureChartDrawsTheTasksHeadlineFigure() {
    ChartsPanel panel;
    showPanel(panel);
    panel.addTrace(QStringLiteral("live"), QStringLiteral("tiny"), TaskKind::Classification);
    MetricChart* figure = panel.chart(ChartId::Figure);
    QCOMPARE(figure->title(), QStringLiteral("Accuracy"));
    QCOMPARE(figure->yAxis->label(), QStringLiteral("accuracy [%]"));
    EpochMetrics first;
    first.epoch = 1;
    first.step = 10;
    first.train_figures = {{"accuracy", 0.5}};
    first.val_loss = 1.0;
    first.val_figures = {{"accuracy", 0.25}};
    EpochMetrics second;
    second.epoch = 2;
    second.step = 20;
    second.train_figures = {{"iou", 0.9}};
    panel.appendEpochs(QStringLiteral("live"), {first, second});
    QCOMPARE(figure->totalPointCount(), 2);
    QList<double> values;
    for (int g = 0; g < figure->graphCount(); ++g) {
      for (auto it = figure->graph(g)->data()->constBegin(); it != figure->graph(g)->data()->constEnd(); ++it)
        values << it->value;
    }
    std::sort(values.begin(), values.end());
    QCOMPARE(values, (QList<double>{25.0, 50.0}));
  }

  void onePointGetsWholeStepTicks() {
    ChartsPanel panel;
    showPanel(panel);
    panel.addTrace(QStringLiteral("live"), QStringLiteral("tiny"));
    EpochMetrics epoch;
    epoch.epoch = 1;
    epoch.step = 15;
    epoch.train_figures = {{"accuracy", 0.5}};
    epoch.val_loss = 1.2;
    epoch.val_figures = {{"accuracy", 0.55}};
    panel.appendEpochs(QStringLiteral("live"), {epoch});
    panel.replotAllNow();
    MetricChart* accuracy = panel.chart(ChartId::Figure);
    const QCPRange x = accuracy->xAxis->range();
    QVERIFY(x.lower >= 0);
    QVERIFY(x.contains(15));
    QVERIFY(!accuracy->xAxis->tickVector().isEmpty());
    for (double t : accuracy->xAxis->tickVector()) {
      QVERIFY2(t == std::floor(t), qPrintable(QString::number(t)));  // no step 14.5
    }
  }

  void aNearlyFlatMemoryLineStaysFlat() {
    ChartsPanel panel;
    showPanel(panel);
    panel.addTrace(QStringLiteral("live"), QStringLiteral("tiny"));
    panel.appendSteps(QStringLiteral("live"), steps(1, 500, 448.0, 3.5));  // 448 → 451.5 MiB
    panel.replotAllNow();
    const QCPRange y = panel.chart(ChartId::Memory)->yAxis->range();
    // The 3.5 MiB creep takes under a tenth of the axis, not all of it.
    QVERIFY2(y.size() >= 0.10 * 451.5, qPrintable(QStringLiteral("%1 .. %2").arg(y.lower).arg(y.upper)));
    QVERIFY(y.contains(448.0) && y.contains(451.5));
    QVERIFY(y.lower >= 0);
    // A real rise still fills the axis.
    ChartsPanel rising;
    showPanel(rising);
    rising.addTrace(QStringLiteral("live"), QStringLiteral("tiny"));
    rising.appendSteps(QStringLiteral("live"), steps(1, 500, 200.0, 1800.0));
    rising.replotAllNow();
    const QCPRange r = rising.chart(ChartId::Memory)->yAxis->range();
    QVERIFY(r.size() < 1.2 * 1800.0);
  }

  // Issue 41: a constant learning rate was drawn in the middle of a ±10 % range with five labels that ran
  // together (0.045 … 0.055), and toggling log scale off brought five back. It sits at its height over an
  // axis from 0, with a few ticks, after the toggle too. The Gradients chart's axis title fits its height.
  void aFlatLearningRateIsALevelLineWithFewTicks() {
    ChartsPanel panel;
    showPanel(panel);
    panel.addTrace(QStringLiteral("live"), QStringLiteral("tiny"));
    panel.appendSteps(QStringLiteral("live"), steps(1, 300));  // lr 1e-3 throughout
    panel.replotAllNow();
    MetricChart* lr = panel.chart(ChartId::LearningRate);
    auto check = [&](const char* when) {
      const QCPRange y = lr->yAxis->range();
      QVERIFY2(y.lower == 0 && y.upper >= 1e-3 && y.upper <= 1.3e-3,
               qPrintable(QStringLiteral("%1: %2 .. %3").arg(when).arg(y.lower).arg(y.upper)));
      // Labels that do not run together: each has a line of the tick font and some air.
      const int line = QFontMetrics(lr->yAxis->tickLabelFont()).height();
      const qsizetype ticks = lr->yAxis->tickVector().size();
      QVERIFY2(
          ticks * (line + 4) <= lr->axisRect()->height(),
          qPrintable(
              QStringLiteral("%1: %2 ticks on %3 px").arg(when).arg(ticks).arg(lr->axisRect()->height())));
    };
    check("at first");
    lr->setLogScale(true);
    panel.replotAllNow();
    QVERIFY(lr->yAxis->range().lower > 0);  // a log axis cannot start at 0
    lr->setLogScale(false);
    panel.replotAllNow();
    check("after log scale off");
    // The schedule's preview asks for few ticks and gets about three, not 0, 2.5e-5, … 1e-4 — and readable
    // ones (0, 5e-5, 1e-4), whatever the rate.
    MetricChart preview(QStringLiteral("Learning-rate schedule"), QStringLiteral("optimizer step"),
                        QStringLiteral("learning rate"));
    preview.setValueTickCount(2);
    preview.setValueAxisFromZero(true);
    preview.resize(400, 160);
    const int flat = preview.addSeries(QStringLiteral("lr"), SeriesStyle{}, QStringLiteral("preview"));
    for (double rate : {1e-4, 1e-3, 0.05, 0.3}) {
      preview.replacePoints(flat, {0, 10, 20}, {rate, rate, rate});
      preview.autoscale();
      preview.replot();
      const QVector<double> ticks = preview.yAxis->tickVector();
      QVERIFY2(ticks.size() <= 4, qPrintable(QStringLiteral("%1: %2 ticks").arg(rate).arg(ticks.size())));
      for (double t : ticks) {  // 1, 2, 2.5 or 5 × 10^k
        if (t == 0) continue;
        const double mantissa = t / std::pow(10.0, std::floor(std::log10(t) + 1e-9));
        bool readable = false;
        for (double nice : {1.0, 2.0, 2.5, 5.0, 4.0, 6.0, 7.5, 8.0, 3.0})
          readable = readable || std::abs(mantissa - nice) < 1e-6;
        QVERIFY2(readable, qPrintable(QStringLiteral("%1: a tick at %2").arg(rate).arg(t)));
      }
    }
    // The loss chart follows its data as before: not from 0.
    QVERIFY(panel.chart(ChartId::Loss)->yAxis->range().lower > 0);

    panel.resize(1100, 340);  // the charts at their least height
    panel.replotAllNow();
    MetricChart* gradients = panel.chart(ChartId::Gradients);
    const QFontMetrics metrics(gradients->yAxis->labelFont());
    QVERIFY2(metrics.horizontalAdvance(gradients->yAxis->label()) <= gradients->axisRect()->height(),
             qPrintable(QStringLiteral("\"%1\" is %2 px, the axis %3")
                            .arg(gradients->yAxis->label())
                            .arg(metrics.horizontalAdvance(gradients->yAxis->label()))
                            .arg(gradients->axisRect()->height())));
  }

  // A pipeline is one rank whose stages run on several devices: the memory chart draws each device's memory
  // (named by its stages and device), the throughput chart the run's one rate (no curve per device, they
  // would all repeat it, and no "all ranks").
  void aPipelineDrawsEachDevicesMemory() {
    ChartsPanel panel;
    panel.addTrace(QStringLiteral("live"), QStringLiteral("pipe"));
    std::vector<StepMetrics> window = steps(1, 4);
    for (StepMetrics& m : window) {
      m.cuda_allocated_bytes = 100 << 20;
      for (int d = 0; d < 2; ++d) {
        DeviceMetrics device;
        device.device = d == 0 ? "cuda:0" : "cuda:1";
        device.stages = d == 0 ? std::vector<int64_t>{0} : std::vector<int64_t>{1, 2};
        device.samples_per_sec = m.samples_per_sec;
        device.cpu_rss_bytes = m.cpu_rss_bytes;
        device.cuda_allocated_bytes = (100 + 50 * d) << 20;
        device.cuda_reserved_bytes = (200 + 50 * d) << 20;
        device.cuda_peak_bytes = (150 + 50 * d) << 20;
        m.devices.push_back(device);
      }
    }
    panel.appendSteps(QStringLiteral("live"), window);
    const QStringList memory = panel.chart(ChartId::Memory)->seriesNames(true);
    QVERIFY2(memory.contains(QStringLiteral("stage 0 · cuda:0 (allocated)")), qPrintable(memory.join("|")));
    QVERIFY2(memory.contains(QStringLiteral("stages 1, 2 · cuda:1 (allocated)")),
             qPrintable(memory.join("|")));
    QVERIFY2(memory.contains(QStringLiteral("CPU RSS")), qPrintable(memory.join("|")));
    MetricChart* chart = panel.chart(ChartId::Memory);
    for (int i = 0; i < chart->graphCount(); ++i) {
      if (chart->graph(i)->name() == QLatin1String("stages 1, 2 · cuda:1 (allocated)")) {
        QCOMPARE(chart->graph(i)->dataCount(), 4);
        QCOMPARE(chart->graph(i)->data()->at(0)->value, 150.0);
      }
    }
    QCOMPARE(panel.chart(ChartId::Throughput)->seriesNames(true), QStringList{QStringLiteral("training")});
  }
};

QTEST_MAIN(ChartsTest)
#include "charts_test.moc"
