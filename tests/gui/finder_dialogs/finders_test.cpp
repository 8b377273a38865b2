// Tools ▸ Find Learning Rate and Find Batch Size in the window: each dialog runs its finder on a worker
// thread on the form's experiment, shows what it found (the curve on a log axis with the suggestion marked;
// the table of sizes tried), and Apply puts the suggestion into the form. (The README's screenshot of the LR
// finder: gui/bench/lr_finder_shot.cpp.)

#include <qcustomplot.h>

#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>

#include "editor/experiment_editor.h"
#include "finder_dialogs/batch_size_finder_dialog.h"
#include "finder_dialogs/finders_menu.h"
#include "finder_dialogs/lr_finder_dialog.h"
#include "gui_test_support.h"
#include "window/main_window.h"

using namespace wb;
using namespace wb::gui;

namespace {

FindersMenu* toolsMenu(MainWindow& window) {
  // The menu bar shows it; the window owns it.
  return window.findChild<FindersMenu*>(QStringLiteral("toolsMenu"));
}

}  // namespace

class FindersTest : public QObject {
  Q_OBJECT

 private slots:
  void lrFinderPlotsTheCurveAndApplySetsTheFormsLearningRate() {
    QTemporaryDir runs;
    MainWindow window(MainWindow::Options{false});
    window.editor()->setDocument(test::tinyExperimentJson(runs.path()));
    FindersMenu* menu = toolsMenu(window);
    QVERIFY(menu);
    menu->findLrAction()->trigger();
    auto* dialog = window.findChild<LrFinderDialog*>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QVERIFY(!dialog->applyButton()->isEnabled());  // nothing to apply before a run
    QCOMPARE(dialog->plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);

    QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
    QVERIFY(dialog->isRunning());
    QVERIFY(!dialog->runButton()->isEnabled());
    // The UI thread is free while it runs: events are processed here until the worker reports the end.
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isRunning(), 120000);
    QVERIFY2(dialog->result().has_value(), qPrintable(dialog->summaryLabel()->text()));
    const LrFinderResult& r = *dialog->result();
    QVERIFY(r.points.size() >= 20);
    // The curve: raw and smoothed loss, one point per step, against the learning rate.
    QCOMPARE(dialog->plot()->graph(0)->dataCount(), static_cast<int>(r.points.size()));
    QCOMPARE(dialog->plot()->graph(1)->dataCount(), static_cast<int>(r.points.size()));
    QCOMPARE(dialog->plot()->graph(1)->data()->at(0)->key, r.points.front().lr);
    QVERIFY2(r.suggestion.rule != LrSuggestionRule::None, r.suggestion.explanation.c_str());
    QCOMPARE(dialog->plot()->graph(2)->dataCount(), 1);  // the suggestion's marker
    QVERIFY(dialog->summaryLabel()->text().contains(QStringLiteral("Suggested learning rate")));

    // Apply: the form's optimizer.lr becomes the suggestion, as an unsaved edit.
    QVERIFY(dialog->applyButton()->isEnabled());
    QVERIFY(!window.editor()->isModified());
    QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
    QCOMPARE(window.editor()->document()["optimizer"]["lr"].get<double>(), r.suggestion.lr);
    QVERIFY(window.editor()->isModified());
    QVERIFY(window.editor()->experiment().has_value());
    QCOMPARE(window.editor()->experiment()->optimizer.lr, r.suggestion.lr);
    // The finder wrote nothing into the runs folder.
    QVERIFY(QDir(runs.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).isEmpty());
  }

  void lrFinderCancelEndsTheTestWithThePointsSoFar() {
    QTemporaryDir runs;
    auto experiment = test::tinyExperiment(runs.path());
    LrFinderDialog dialog(experiment, [](double) { return true; });
    dialog.show();
    dialog.stepsBox()->setValue(5000);
    dialog.start();
    QTRY_VERIFY_WITH_TIMEOUT(dialog.plot()->graph(1)->dataCount() > 0, 60000);
    dialog.cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isRunning(), 60000);
    QVERIFY(dialog.result().has_value());
    QCOMPARE(dialog.result()->stop, LrFinderStop::Cancelled);
    QVERIFY(dialog.result()->steps_run < 5000);
  }

  void batchFinderShowsEachSizeAndApplySetsTheFormsBatchSize() {
    QTemporaryDir runs;
    MainWindow window(MainWindow::Options{false});
    window.editor()->setDocument(test::tinyExperimentJson(runs.path()));
    FindersMenu* menu = toolsMenu(window);
    QVERIFY(menu);
    QVERIFY(window.menuBar()->actions().contains(menu->menuAction()));
    menu->findBatchAction()->trigger();
    auto* dialog = window.findChild<BatchSizeFinderDialog*>();
    QVERIFY(dialog);
    dialog->maxMemoryEdit()->setText(QStringLiteral("64GiB"));
    dialog->maxBatchBox()->setValue(128);
    dialog->start();
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isRunning(), 120000);
    QVERIFY2(dialog->result().has_value(), qPrintable(dialog->summaryLabel()->text()));
    const BatchFinderResult& r = *dialog->result();
    // 1, 2, ..., 128 all fit on the tiny MLP: one row each, the suggestion preselected.
    QCOMPARE(r.largest, 128);
    QCOMPARE(r.suggested, 128);
    QCOMPARE(dialog->table()->rowCount(), 8);
    QCOMPARE(dialog->table()->item(7, 0)->text(), QStringLiteral("128"));
    QVERIFY(dialog->table()->item(7, 2)->text().contains(QStringLiteral("iB")));  // its peak memory
    QCOMPARE(dialog->batchToApply(), 128);

    // Another size that fits, selected: Apply sets that one (the form has 32).
    dialog->table()->selectRow(4);  // 16
    QCOMPARE(dialog->batchToApply(), 16);
    QVERIFY(dialog->applyButton()->text().contains(QStringLiteral("16")));
    dialog->maxBatchBox()->setFocus();
    QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
    QCOMPARE(window.editor()->document()["train"]["batch_size"].get<int64_t>(), 16);
    QVERIFY(window.editor()->isModified());
  }

  void aMemoryLimitThatIsNotASizeIsRefusedInTheDialog() {
    QTemporaryDir runs;
    BatchSizeFinderDialog dialog(test::tinyExperiment(runs.path()), [](int64_t) { return true; });
    dialog.maxMemoryEdit()->setText(QStringLiteral("lots"));
    dialog.start();
    QVERIFY(!dialog.isRunning());
    QVERIFY(dialog.summaryLabel()->text().contains(QStringLiteral("not a size")));
  }
};

QTEST_MAIN(FindersTest)
#include "finders_test.moc"
