// The Profile tab and Run ▸ Profile Steps…: the operator table shows a report's rows and sorts them by any
// column (numbers as numbers), the filter finds operators by name or shapes, the CUDA columns show only for a
// run that profiled CUDA; the phase bar draws each phase as wide as its share of the step; the dialog's
// values reach the request; the action is enabled only while a run trains here and says why otherwise; and a
// profile asked of a live CPU run in the window fills the tab, and is shown again when its folder is opened.

#include <QAction>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "gui_test_support.h"
#include "profile_view/phase_bar.h"
#include "profile_view/profile_actions.h"
#include "profile_view/profile_dialog.h"
#include "profile_view/profile_table_model.h"
#include "profile_view/profile_view.h"
#include "run/run_actions.h"
#include "window/main_window.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kProfileRunTimeoutMs = 120000;

ProfileOperatorRow op(const std::string& name, const std::string& shapes, int64_t calls, double self_cpu,
                      double cpu_total, double self_cuda = -1, double cuda_total = -1) {
  ProfileOperatorRow row;
  row.name = name;
  row.input_shapes = shapes;
  row.calls = calls;
  row.self_cpu_ms = self_cpu;
  row.cpu_total_ms = cpu_total;
  row.self_cuda_ms = self_cuda;
  row.cuda_total_ms = cuda_total;
  return row;
}

// Three operators of a CPU run, in the engine's order (self CPU, the largest first); calls and names sort
// differently from it.
ProfileReport cpuReport() {
  ProfileReport report;
  report.device = "cpu";
  report.record_shapes = true;
  report.profile_memory = true;
  report.first_step = 120;
  report.steps = 10;
  report.step_ms = 20;
  report.phases = {
      {StepPhase::Data, 2}, {StepPhase::Forward, 6}, {StepPhase::Backward, 10}, {StepPhase::Optimizer, 2}};
  report.operators = {op("aten::mm", "[[32, 64], [64, 4]]", 60, 80, 80),
                      op("aten::addmm", "[[4], [32, 64], [64, 4]]", 30, 50, 60),
                      op("aten::relu", "[[32, 64]]", 90, 1.5, 1.5)};
  report.operators[0].cpu_memory_bytes = 1 << 20;
  report.trace_path = "/tmp/runs/tiny-1/profile/steps-121-130.trace.json";
  return report;
}

QStringList column(QAbstractItemModel* model, int col) {
  QStringList out;
  for (int r = 0; r < model->rowCount(); ++r) out << model->index(r, col).data().toString();
  return out;
}

// Stands in for the desktop's file manager: the folders QDesktopServices was asked to open.
class FolderOpener : public QObject {
  Q_OBJECT

 public:
  QList<QUrl> opened;

 public slots:
  void open(const QUrl& url) { opened << url; }
};

}  // namespace

class ProfileTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void theTableShowsTheReportsRowsAndSortsThem() {
    ProfileView view;
    QVERIFY(!view.hasReport());
    QVERIFY2(view.emptyText().contains(QStringLiteral("Run ▸ Profile Steps…")), qPrintable(view.emptyText()));
    view.showReport(cpuReport(), QStringLiteral("tiny-1"));
    QVERIFY(view.hasReport());
    QVERIFY(view.emptyText().isEmpty());
    QVERIFY2(view.headerText().startsWith(QStringLiteral("Steps 121–130 of tiny-1 on cpu")),
             qPrintable(view.headerText()));
    QSortFilterProxyModel* proxy = view.proxy();
    QCOMPARE(proxy->rowCount(), 3);
    // Opens sorted by self CPU, the largest first; the figures as the report has them.
    QCOMPARE(column(proxy, ProfileTableModel::kOperator),
             (QStringList{"aten::mm", "aten::addmm", "aten::relu"}));
    QCOMPARE(column(proxy, ProfileTableModel::kSelfCpu), (QStringList{"80.000 ms", "50.000 ms", "1.500 ms"}));
    QCOMPARE(column(proxy, ProfileTableModel::kCpuTotal),
             (QStringList{"80.000 ms", "60.000 ms", "1.500 ms"}));
    QCOMPARE(column(proxy, ProfileTableModel::kShapes).front(), QStringLiteral("[[32, 64], [64, 4]]"));
    QCOMPARE(column(proxy, ProfileTableModel::kCpuMemory).front(), QStringLiteral("1.0 MiB"));
    view.table()->sortByColumn(ProfileTableModel::kCalls, Qt::DescendingOrder);
    QCOMPARE(column(proxy, ProfileTableModel::kOperator),
             (QStringList{"aten::relu", "aten::mm", "aten::addmm"}));
    // Times sort as numbers: with an operator of 300 ms in it, sorted as text "300.000 ms" would come
    // between "1.500 ms" and "60.000 ms".
    ProfileReport wide = cpuReport();
    wide.operators.push_back(op("aten::conv2d", "[[32, 1, 8, 8]]", 10, 150, 300));
    view.showReport(wide, QStringLiteral("tiny-1"));
    QCOMPARE(column(proxy, ProfileTableModel::kOperator).front(), QStringLiteral("aten::conv2d"));
    view.table()->sortByColumn(ProfileTableModel::kCpuTotal, Qt::AscendingOrder);
    QCOMPARE(column(proxy, ProfileTableModel::kOperator),
             (QStringList{"aten::relu", "aten::addmm", "aten::mm", "aten::conv2d"}));
    view.table()->sortByColumn(ProfileTableModel::kOperator, Qt::AscendingOrder);
    QCOMPARE(column(proxy, ProfileTableModel::kOperator).front(), QStringLiteral("aten::addmm"));

    // The filter: by name, and by shapes.
    view.filterEdit()->setText(QStringLiteral("RELU"));
    QCOMPARE(column(proxy, ProfileTableModel::kOperator), QStringList{"aten::relu"});
    view.filterEdit()->setText(QStringLiteral("[32, 1, 8"));
    QCOMPARE(column(proxy, ProfileTableModel::kOperator), QStringList{"aten::conv2d"});
    view.filterEdit()->setText(QStringLiteral("80.000"));  // the figures are not searched
    QCOMPARE(proxy->rowCount(), 0);
    view.filterEdit()->clear();
    QCOMPARE(proxy->rowCount(), 4);

    // A CPU run: no CUDA figures, the columns hidden and "—" in them.
    QVERIFY(view.table()->isColumnHidden(ProfileTableModel::kSelfCuda));
    QVERIFY(view.table()->isColumnHidden(ProfileTableModel::kCudaTotal));
    QVERIFY(!view.table()->isColumnHidden(ProfileTableModel::kShapes));
    QCOMPARE(column(proxy, ProfileTableModel::kSelfCuda).front(), QStringLiteral("—"));
    QVERIFY(!view.headerText().contains(QStringLiteral("CUDA")));
    QCOMPARE(view.tracePath(), QString::fromStdString(wide.trace_path));
    QVERIFY(view.openFolderButton()->isEnabled());
    FolderOpener opener;
    QDesktopServices::setUrlHandler(QStringLiteral("file"), &opener, "open");
    QTest::mouseClick(view.openFolderButton(), Qt::LeftButton);
    QDesktopServices::unsetUrlHandler(QStringLiteral("file"));
    QCOMPARE(opener.opened, QList<QUrl>{QUrl::fromLocalFile(QStringLiteral("/tmp/runs/tiny-1/profile"))});
  }

  void aCudaRunShowsItsKernelTimes() {
    ProfileReport report = cpuReport();
    report.device = "cuda:0";
    report.cuda_activities = true;
    report.record_shapes = false;
    report.operators = {op("aten::mm", "", 60, 80, 80, 2, 2), op("aten::addmm", "", 30, 50, 60, 9, 9),
                        op("aten::relu", "", 90, 1.5, 1.5, 0.25, 0.25)};
    ProfileView view;
    view.showReport(report, QString());
    QVERIFY(!view.table()->isColumnHidden(ProfileTableModel::kSelfCuda));
    QVERIFY(!view.table()->isColumnHidden(ProfileTableModel::kCudaTotal));
    QVERIFY(view.table()->isColumnHidden(ProfileTableModel::kShapes));  // not recorded
    view.table()->sortByColumn(ProfileTableModel::kSelfCuda, Qt::DescendingOrder);
    QCOMPARE(column(view.proxy(), ProfileTableModel::kOperator),
             (QStringList{"aten::addmm", "aten::mm", "aten::relu"}));
    QCOMPARE(column(view.proxy(), ProfileTableModel::kSelfCuda),
             (QStringList{"9.000 ms", "2.000 ms", "250.0 µs"}));
    // Per step: 11.25 ms of kernels over 10 steps.
    QVERIFY2(view.headerText().contains(QStringLiteral("kernels 1.125 ms self CUDA")),
             qPrintable(view.headerText()));
  }

  void theBarDrawsEachPhaseAsWideAsItsShare() {
    ProfileView view;
    view.resize(800, 600);
    view.showReport(cpuReport(), QStringLiteral("tiny-1"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    PhaseBar* bar = view.phaseBar();
    QCOMPARE(bar->phases().size(), size_t{5});  // no "other": the phases make the whole step
    const std::vector<QRectF> rects = bar->segmentRects();
    const double width = bar->width() - 1.0;
    const double expected[] = {2, 6, 10, 2};  // data, forward, backward, optimizer of 20 ms
    double x = rects[0].left();
    for (int i = 0; i < 4; ++i) {
      QVERIFY2(
          std::abs(rects[i].width() - width * expected[i] / 20) < 0.01,
          qPrintable(
              QStringLiteral("%1: %2 px of %3").arg(bar->phases()[i].name).arg(rects[i].width()).arg(width)));
      QCOMPARE(rects[i].left(), x);  // side by side, in the step's order
      x += rects[i].width();
    }
    QVERIFY(rects[4].isEmpty());  // one device: no allreduce, drawn as nothing rather than a zero
    QCOMPARE(bar->labels(), (QStringList{"data 2.00 ms", "forward 6.00 ms", "backward 10.0 ms",
                                         "optimizer 2.00 ms", "allreduce —"}));

    // The step's time outside the phases is a segment of its own.
    ProfileReport slower = cpuReport();
    slower.step_ms = 25;
    slower.phases.push_back({StepPhase::Allreduce, 1});
    view.showReport(slower, QStringLiteral("tiny-1"));
    QCOMPARE(bar->phases().size(), size_t{6});
    QCOMPARE(bar->labels().back(), QStringLiteral("other 4.00 ms"));
    const std::vector<QRectF> withOther = bar->segmentRects();
    QVERIFY(std::abs(withOther[1].width() - width * 6 / 25) < 0.01);
    QVERIFY(std::abs(withOther[5].right() - (bar->width() - 0.5)) < 0.01);  // the bar is the whole step
  }

  void theDialogsValuesReachTheRequest() {
    ProfileDialog dialog(40);
    ProfileRequest request = dialog.request();
    QCOMPARE(request.first_step, int64_t{-1});  // the next step
    QCOMPARE(request.steps, int64_t{10});
    QVERIFY(request.record_shapes && request.profile_memory);
    QVERIFY(request.source == "the window");
    dialog.setSteps(25);
    dialog.startAtStep(100);
    dialog.setRecordShapes(false);
    dialog.setProfileMemory(false);
    request = dialog.request();
    QCOMPARE(request.steps, int64_t{25});
    QCOMPARE(request.first_step, int64_t{100});
    QVERIFY(!request.record_shapes && !request.profile_memory);
    auto* note = dialog.findChild<QLabel*>(QStringLiteral("profileNote"));
    QVERIFY2(note->text().contains(QStringLiteral("steps 101–125")), qPrintable(note->text()));
    // The run moves past the chosen step while the dialog is open: the box follows, the request too.
    dialog.setCurrentStep(130);
    QCOMPARE(dialog.request().first_step, int64_t{130});
    dialog.startAtNextStep();
    QCOMPARE(dialog.request().first_step, int64_t{-1});
    QVERIFY2(note->text().contains(QStringLiteral("steps 131–155")), qPrintable(note->text()));
  }

  void theActionSaysWhyItIsDisabled() {
    MainWindow window(MainWindow::Options{false});
    QAction* profile = window.profile()->profileAction();
    QVERIFY(!profile->isEnabled());
    QVERIFY2(profile->toolTip().contains(QStringLiteral("start one first")), qPrintable(profile->toolTip()));
    // The Profile tab is there, in its empty state.
    QVERIFY(window.centralTabs()->indexOf(window.profileView()) >= 0);
    QVERIFY(!window.profileView()->hasReport());
  }

  // A live CPU run in the window: Profile Steps… records three steps, the tab fills with the engine's report
  // and comes to the front; once the run has ended the action is disabled again, and opening the run's
  // folder shows the same profile from its files.
  void aProfileOfALiveRunFillsTheTab() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    window.show();
    QAction* profile = window.profile()->profileAction();
    const Experiment experiment = gui::test::tinyExperiment(dir.path(), 60);
    QSignalSpy ended(&window, &MainWindow::runEnded);
    QVERIFY(window.runActions()->startExperiment(experiment));
    QTRY_VERIFY_WITH_TIMEOUT(window.runActions()->lastStep() >= 4, kProfileRunTimeoutMs);
    QVERIFY(profile->isEnabled());
    profile->trigger();
    ProfileDialog* dialog = window.profile()->openDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    dialog->setSteps(3);
    dialog->setRecordShapes(true);
    dialog->accept();
    QVERIFY(window.profile()->isRecording());
    QVERIFY(!profile->isEnabled());  // one profile at a time
    QVERIFY2(profile->toolTip().contains(QStringLiteral("Recording a profile")),
             qPrintable(profile->toolTip()));
    ProfileView* view = window.profileView();
    QTRY_VERIFY_WITH_TIMEOUT(view->hasReport(), kProfileRunTimeoutMs);
    QCOMPARE(window.centralTabs()->currentWidget(), static_cast<QWidget*>(view));
    QVERIFY(profile->isEnabled());  // another may be asked for now
    const ProfileReport shown = view->report();
    QCOMPARE(shown.steps, int64_t{3});
    QVERIFY(shown.first_step >= 4);
    QVERIFY(view->proxy()->rowCount() > 0);
    QVERIFY(view->tableModel()->selfCpuTotalMs() > 0);
    QVERIFY2(QFileInfo::exists(view->tracePath()), qPrintable(view->tracePath()));
    QVERIFY(view->table()->isColumnHidden(ProfileTableModel::kSelfCuda));  // a CPU run
    double forward = -1;
    for (const PhaseSegment& phase : view->phaseBar()->phases())
      if (phase.name == QStringLiteral("forward")) forward = phase.ms;
    QVERIFY2(forward > 0, "the forward pass has its time on the bar");
    QVERIFY2(view->headerText().contains(
                 QStringLiteral("Steps %1–%2").arg(shown.first_step + 1).arg(shown.first_step + 3)),
             qPrintable(view->headerText()));

    window.runActions()->stopRun();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kProfileRunTimeoutMs);
    QVERIFY(!profile->isEnabled());
    const QString runDir = QString::fromStdString(ended.front().front().value<RunSummary>().run_dir);

    // Opened later from its folder: the same profile, read from the run's files.
    view->clear();
    QVERIFY(!view->hasReport());
    QSignalSpy loaded(view, &ProfileView::loaded);
    window.profile()->openRunFolder(runDir);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, kProfileRunTimeoutMs);
    QVERIFY2(loaded.front().at(1).toBool(), qPrintable(loaded.front().at(2).toString()));
    QVERIFY(view->hasReport());
    QCOMPARE(view->report().first_step, shown.first_step);
    QCOMPARE(view->proxy()->rowCount(), static_cast<int>(shown.operators.size()));
  }
};

QTEST_MAIN(ProfileTest)
#include "profile_test.moc"
