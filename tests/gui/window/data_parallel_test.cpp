// Data parallel in the window: one curve per device on the throughput and memory charts (none with one
// device), the device picker's CPU ranks, Start running the engine's full checks before anything trains, and
// the devices of the run in the header.

#include <QAction>
#include <QDir>
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <nlohmann/json.hpp>

#include "charts/charts_panel.h"
#include "editor/device_picker.h"
#include "editor/experiment_editor.h"
#include "gui_test_support.h"
#include "run/past_runs_on_charts.h"
#include "run/run_controller.h"
#include "window/main_window.h"
#include "window/run_progress.h"
#include "workbench/event_json.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kRunTimeoutMs = 180000;
constexpr double kMiB = 1024.0 * 1024.0;

// A window of `ranks` ranks on `devices` (cycled); CUDA figures when the device is not "cpu".
StepMetrics parallelStep(int64_t step, const QStringList& devices) {
  StepMetrics s;
  s.step = step;
  s.epoch = 1;
  s.total_steps = 100;
  s.loss = 1.0 / static_cast<double>(step);
  s.lr = 1e-3;
  s.cpu_rss_bytes = 300 * 1024 * 1024;
  s.allreduce_hidden_fraction = 0.75;
  s.allreduce_ms = 2.5;
  for (int r = 0; r < devices.size(); ++r) {
    DeviceMetrics d;
    d.rank = r;
    d.device = devices[r].toStdString();
    d.samples_per_sec = 1000.0 * (r + 1) + static_cast<double>(step);
    d.cpu_rss_bytes = s.cpu_rss_bytes;
    if (devices[r] != QLatin1String("cpu")) {
      d.cuda_allocated_bytes = (100 + r) * 1024 * 1024;
      d.cuda_reserved_bytes = (200 + r) * 1024 * 1024;
      d.cuda_peak_bytes = (150 + r) * 1024 * 1024;
    }
    s.samples_per_sec += d.samples_per_sec;
    s.devices.push_back(d);
  }
  if (!s.devices.empty() && s.devices.front().cuda_allocated_bytes >= 0) {
    s.cuda_allocated_bytes = s.devices.front().cuda_allocated_bytes;
    s.cuda_reserved_bytes = s.devices.front().cuda_reserved_bytes;
    s.cuda_peak_bytes = s.devices.front().cuda_peak_bytes;
  }
  return s;
}

std::vector<StepMetrics> steps(int from, int count, const QStringList& devices) {
  std::vector<StepMetrics> out;
  for (int i = 0; i < count; ++i) out.push_back(parallelStep(from + i, devices));
  return out;
}

// The pen colour of the series named `name` on `chart` (invalid when there is none).
QColor colorOf(MetricChart* chart, const QString& name) {
  for (int i = 0; i < chart->graphCount(); ++i) {
    if (chart->graph(i)->name() == name) return chart->graph(i)->pen().color();
  }
  return QColor();
}

int pointsOf(MetricChart* chart, const QString& name) {
  for (int i = 0; i < chart->graphCount(); ++i) {
    if (chart->graph(i)->name() == name) return chart->graph(i)->dataCount();
  }
  return -1;
}

QString join(const QStringList& names) {
  return names.join(QStringLiteral(" | "));
}

DevicePicker* pickerOf(ExperimentEditor* editor) {
  return qobject_cast<DevicePicker*>(editor->binding("train.devices")->input());
}

nlohmann::json devicesIn(const nlohmann::json& doc) {
  return doc.at("train").at("devices");
}

QListWidgetItem* cpuItem(DevicePicker* picker) {
  for (int i = 0; i < picker->list()->count(); ++i) {
    if (picker->list()->item(i)->data(Qt::UserRole).toString() == QLatin1String("cpu"))
      return picker->list()->item(i);
  }
  return nullptr;
}

}  // namespace

class DataParallelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void severalDevicesGetOneCurveEach() {
    ChartsPanel charts;
    charts.addTrace(QStringLiteral("live"), QStringLiteral("dp"));
    const QStringList cpus = {QStringLiteral("cpu"), QStringLiteral("cpu"), QStringLiteral("cpu")};
    charts.appendSteps(QStringLiteral("live"), steps(1, 5, cpus));
    MetricChart* throughput = charts.chart(ChartId::Throughput);
    MetricChart* memory = charts.chart(ChartId::Memory);
    // The total beside one curve per rank, labelled by rank and device.
    QCOMPARE(throughput->seriesNames(true),
             (QStringList{QStringLiteral("all ranks"), QStringLiteral("rank 0 · cpu"),
                          QStringLiteral("rank 1 · cpu"), QStringLiteral("rank 2 · cpu")}));
    QCOMPARE(pointsOf(throughput, QStringLiteral("rank 2 · cpu")), 5);
    QCOMPARE(throughput->graph(3)->data()->at(0)->value, 3000.0 + 1);
    // Memory: each CPU rank's RSS, no separate process curve repeating rank 0's.
    QCOMPARE(memory->seriesNames(true),
             (QStringList{QStringLiteral("rank 0 · cpu (RSS)"), QStringLiteral("rank 1 · cpu (RSS)"),
                          QStringLiteral("rank 2 · cpu (RSS)")}));
    QCOMPARE(memory->graph(0)->data()->at(0)->value, 300.0);

    // Stable colours: a rank has the same colour on both charts, and keeps it as batches arrive.
    const QColor rank1 = colorOf(throughput, QStringLiteral("rank 1 · cpu"));
    QVERIFY(rank1.isValid());
    QCOMPARE(colorOf(memory, QStringLiteral("rank 1 · cpu (RSS)")), rank1);
    QVERIFY(colorOf(throughput, QStringLiteral("rank 0 · cpu")) != rank1);
    QVERIFY(colorOf(throughput, QStringLiteral("all ranks")) != rank1);
    charts.appendSteps(QStringLiteral("live"), steps(6, 5, cpus));
    QCOMPARE(colorOf(throughput, QStringLiteral("rank 1 · cpu")), rank1);
    QCOMPARE(pointsOf(throughput, QStringLiteral("rank 1 · cpu")), 10);
    QCOMPARE(throughput->seriesCount(), 4);

    // CUDA ranks: allocated per rank in the legend; reserved and peak in the rank's colour, told by line
    // style.
    charts.addTrace(QStringLiteral("live"), QStringLiteral("dp-cuda"));
    charts.appendSteps(QStringLiteral("live"),
                       steps(1, 4, {QStringLiteral("cuda:0"), QStringLiteral("cuda:1")}));
    QCOMPARE(throughput->seriesNames(true),
             (QStringList{QStringLiteral("all ranks"), QStringLiteral("rank 0 · cuda:0"),
                          QStringLiteral("rank 1 · cuda:1")}));
    const QStringList legend = memory->seriesNames(true);
    QVERIFY2(legend.contains(QStringLiteral("CPU RSS")), qPrintable(join(legend)));
    QVERIFY2(legend.contains(QStringLiteral("rank 1 · cuda:1 (allocated)")), qPrintable(join(legend)));
    QVERIFY2(legend.contains(QStringLiteral("CUDA reserved (dotted)")), qPrintable(join(legend)));
    QVERIFY2(!legend.contains(QStringLiteral("CUDA allocated")), qPrintable(join(legend)));
    QVERIFY(memory->seriesNames().contains(QStringLiteral("rank 1 · cuda:1 (peak)")));
    QCOMPARE(pointsOf(memory, QStringLiteral("rank 1 · cuda:1 (reserved)")), 4);
    QCOMPARE(colorOf(memory, QStringLiteral("rank 1 · cuda:1 (peak)")),
             colorOf(throughput, QStringLiteral("rank 1 · cuda:1")));
    for (int i = 0; i < memory->graphCount(); ++i) {
      if (memory->graph(i)->name() == QLatin1String("rank 1 · cuda:1 (allocated)")) {
        QCOMPARE(memory->graph(i)->data()->at(0)->value, 101.0 * 1024 * 1024 / kMiB);
      }
    }
  }

  void oneDeviceLooksAsBefore() {
    ChartsPanel charts;
    charts.addTrace(QStringLiteral("live"), QStringLiteral("single"));
    charts.appendSteps(QStringLiteral("live"), steps(1, 5, {}));
    QCOMPARE(charts.chart(ChartId::Throughput)->seriesNames(true), QStringList{QStringLiteral("training")});
    QCOMPARE(charts.chart(ChartId::Memory)->seriesNames(true), QStringList{QStringLiteral("CPU RSS")});
    QCOMPARE(charts.chart(ChartId::Throughput)->totalPointCount(), 5);
    // One entry (a launcher's job of one rank) is one device too.
    charts.appendSteps(QStringLiteral("live"), steps(6, 2, {QStringLiteral("cpu")}));
    QCOMPARE(charts.chart(ChartId::Throughput)->seriesNames(), QStringList{QStringLiteral("training")});
    // A single CUDA device keeps its three CUDA curves.
    charts.addTrace(QStringLiteral("gpu"), QStringLiteral("gpu"));
    charts.clearTracesExcept(QStringLiteral("gpu"));
    StepMetrics s = parallelStep(1, {});
    s.cuda_allocated_bytes = s.cuda_reserved_bytes = s.cuda_peak_bytes = 1 << 20;
    charts.appendSteps(QStringLiteral("gpu"), {s});
    QCOMPARE(charts.chart(ChartId::Memory)->seriesNames(true),
             (QStringList{QStringLiteral("CPU RSS"), QStringLiteral("CUDA allocated"),
                          QStringLiteral("CUDA reserved"), QStringLiteral("CUDA peak")}));
  }

  void pickerRoundTripsCpuRanks() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    DevicePicker* picker = pickerOf(&editor);
    QVERIFY(picker);
    // One CPU rank by default; the data-parallel note is there, greyed.
    QCOMPARE(picker->cpuRanks()->value(), 1);
    QVERIFY(!picker->note()->isEnabled());
    QVERIFY(picker->note()->text().contains(
        QStringLiteral("data parallel, one rank each; batch size is per device")));

    nlohmann::json doc = test::tinyExperimentJson(dir.path());
    doc["train"]["devices"] = {"cpu", "cpu"};
    editor.setDocument(doc);
    QCOMPARE(picker->cpuRanks()->value(), 2);
    QVERIFY(cpuItem(picker) && cpuItem(picker)->checkState() == Qt::Checked);
    QVERIFY(picker->cpuRanks()->isEnabled());
    QVERIFY(picker->note()->isEnabled());
    QCOMPARE(devicesIn(editor.document()), nlohmann::json({"cpu", "cpu"}));
    QVERIFY(!editor.isModified());
    QTRY_VERIFY_WITH_TIMEOUT(!editor.checksPending(), 20000);
    QVERIFY2(editor.issues().empty(), formatIssues(editor.issues()).c_str());

    // The spin box writes the list the engine expects, one "cpu" per rank.
    picker->cpuRanks()->setValue(3);
    QCOMPARE(devicesIn(editor.document()), nlohmann::json({"cpu", "cpu", "cpu"}));
    QVERIFY(editor.isModified());
    const ParseResult parsed = parseExperiment(editor.document());
    QVERIFY2(parsed.ok(), formatIssues(parsed.issues).c_str());
    QCOMPARE(parsed.experiment.train.devices, (std::vector<std::string>{"cpu", "cpu", "cpu"}));
    picker->cpuRanks()->setValue(1);
    QCOMPARE(devicesIn(editor.document()), nlohmann::json({"cpu"}));
    QVERIFY(!picker->note()->isEnabled());

    // The file's shorthand "cpu:2" is two ranks, written back as the engine's expanded list.
    doc["train"]["devices"] = "cpu:2";
    editor.setDocument(doc);
    QCOMPARE(picker->cpuRanks()->value(), 2);
    QCOMPARE(devicesIn(editor.document()), nlohmann::json({"cpu", "cpu"}));
    QCOMPARE(editor.document(), experimentToJson(parseExperiment(doc).experiment));

    // Unchecking the CPU leaves no device: the engine says so at the field.
    cpuItem(picker)->setCheckState(Qt::Unchecked);
    QCOMPARE(devicesIn(editor.document()), nlohmann::json::array());
    QVERIFY(!picker->cpuRanks()->isEnabled());
    editor.validateNow();
    QVERIFY(!editor.binding("train.devices")->messages().isEmpty());
  }

  void startRunsTheEngineChecksFirst() {
    QTemporaryDir dir;
    const QString runsDir = dir.filePath(QStringLiteral("runs"));
    MainWindow window(MainWindow::Options{false});
    QStringList messages;
    window.setErrorPresenter(
        [&messages](const QString&, const QString& message, const QString&) { messages << message; });
    window.show();
    QSignalSpy refused(&window, &MainWindow::startRefused);
    QSignalSpy ended(&window, &MainWindow::runEnded);
    nlohmann::json doc = test::tinyExperimentJson(runsDir);
    doc["train"]["amp"] = "fp16";
    doc["train"]["devices"] = {"cpu"};
    window.editor()->setDocument(doc);
    QVERIFY2(window.editor()->experiment().has_value(), "fp16 on the CPU parses: only the engine refuses it");

    QVERIFY(window.runActions()->startRun());
    // While the engine checks, Start is off and the status says so; the UI thread is not held.
    QVERIFY(window.runActions()->isCheckingStart());
    QVERIFY(!window.runActions()->startAction()->isEnabled());
    auto* state = window.findChild<QLabel*>(QStringLiteral("runState"));
    QVERIFY(state);
    QCOMPARE(state->text(), QStringLiteral("Checking the experiment…"));
    QVERIFY(!window.runActions()->startRun());  // a second Start while checking does nothing

    QTRY_COMPARE_WITH_TIMEOUT(refused.count(), 1, 30000);
    QVERIFY(!window.runActions()->isCheckingStart());
    QVERIFY(window.runActions()->startAction()->isEnabled());
    QVERIFY(!window.runActions()->controller()->isActive());
    // The CLI's words: formatIssues of the engine's checks, in the dialog and at the field.
    const std::string cli = formatIssues(checkExperiment(*window.editor()->experiment()));
    const QString expected = QString::fromStdString(cli).trimmed();
    QVERIFY2(expected.contains(QStringLiteral("train.amp: ")), qPrintable(expected));
    QCOMPARE(refused.front().front().toString(), expected);
    QCOMPARE(messages.size(), 1);
    QVERIFY2(messages.front().contains(expected), qPrintable(messages.front()));
    QVERIFY(!window.editor()->binding("train.amp")->messages().isEmpty());
    QVERIFY2(expected.contains(window.editor()->binding("train.amp")->messages().front()),
             qPrintable(window.editor()->binding("train.amp")->messages().front()));
    // No run: nothing trained, no run folder.
    QTest::qWait(300);
    QCOMPARE(ended.count(), 0);
    const QStringList folders = QDir(runsDir).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QVERIFY2(folders.isEmpty(), qPrintable(folders.join(QLatin1Char(','))));

    // Fixed, Start checks again and the run starts.
    doc["train"]["amp"] = "off";
    window.editor()->setDocument(doc);
    QVERIFY(window.runActions()->startRun());
    QTRY_VERIFY_WITH_TIMEOUT(window.runActions()->controller()->isActive() || ended.count() > 0, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    QCOMPARE(ended.front().front().value<RunSummary>().status, RunStatus::Completed);
    QCOMPARE(refused.count(), 1);
  }

  void headerShowsTheDevicesOfTheRun() {
    QCOMPARE(describeDevices({"cpu"}), QStringLiteral("Device: cpu"));
    QCOMPARE(describeDevices({"cpu", "cpu"}), QStringLiteral("2 ranks: cpu, cpu (data parallel)"));

    // A past run: from its experiment.json, and its per-device curves from metrics.jsonl.
    QTemporaryDir dir;
    const QString runDir = dir.filePath(QStringLiteral("20260101-000000-past"));
    QVERIFY(QDir().mkpath(runDir));
    Experiment past = test::tinyExperiment(dir.path(), 1, 0, "past");
    past.train.devices = {"cpu", "cpu"};
    {
      std::ofstream out(QDir(runDir).filePath(QStringLiteral("experiment.json")).toStdString());
      out << experimentToJson(past).dump(2);
      std::ofstream metrics(QDir(runDir).filePath(QStringLiteral("metrics.jsonl")).toStdString());
      for (const StepMetrics& s : steps(1, 6, {QStringLiteral("cpu"), QStringLiteral("cpu")})) {
        metrics << eventToJson(Event(s)).dump() << "\n";
      }
    }
    MainWindow window(MainWindow::Options{false});
    window.show();
    window.pastRuns()->open({runDir}, true);
    QTRY_COMPARE_WITH_TIMEOUT(window.pastRuns()->pendingLoads(), 0, 20000);
    QCOMPARE(window.progress()->devicesText(), QStringLiteral("2 ranks: cpu, cpu (data parallel)"));
    MetricChart* throughput = window.charts()->chart(ChartId::Throughput);
    QVERIFY2(throughput->seriesNames(true).contains(QStringLiteral("rank 1 · cpu")),
             qPrintable(join(throughput->seriesNames(true))));
    QCOMPARE(pointsOf(throughput, QStringLiteral("rank 1 · cpu")), 6);

    // A live run: from the experiment being run; a real two-rank CPU run (Gloo) plots both ranks.
    QSignalSpy ended(&window, &MainWindow::runEnded);
    Experiment live = test::tinyExperiment(dir.path(), 1, 0, "live-dp");
    live.train.devices = {"cpu", "cpu"};
    QVERIFY(window.runActions()->startExperiment(live));
    auto* label = window.progress()->findChild<QLabel*>(QStringLiteral("runDevices"));
    QVERIFY(label && !label->isHidden());
    QCOMPARE(label->text(), QStringLiteral("2 ranks: cpu, cpu (data parallel)"));
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    const auto summary = ended.front().front().value<RunSummary>();
    QCOMPARE(summary.status, RunStatus::Completed);
    QCOMPARE(window.progress()->devicesText(), QStringLiteral("2 ranks: cpu, cpu (data parallel)"));
    window.charts()->clearTracesExcept(QStringLiteral("live"));
    const QStringList names = throughput->seriesNames(true);
    QVERIFY2(names.contains(QStringLiteral("rank 0 · cpu")) && names.contains(QStringLiteral("rank 1 · cpu")),
             qPrintable(join(names)));
    QVERIFY(pointsOf(throughput, QStringLiteral("rank 1 · cpu")) > 0);

    // One device: "Device: cpu", and no per-device curves.
    QVERIFY(window.runActions()->startExperiment(test::tinyExperiment(dir.path(), 1, 0, "single")));
    QCOMPARE(window.progress()->devicesText(), QStringLiteral("Device: cpu"));
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, kRunTimeoutMs);
    QCOMPARE(throughput->seriesNames(true), QStringList{QStringLiteral("training")});
  }
};

QTEST_MAIN(DataParallelTest)
#include "data_parallel_test.moc"
