// Issue 41: a sweep built in the window. The draft (sweep_draft.h) turns into the engine's sweep file — a log
// range of 4 learning rates is 1e-4, 4.64e-4, 2.15e-3, 1e-2 — and only through the engine's parser; the Sweep
// Builder (Run ▸ Queue Sweep…) previews the trials as the engine plans them, refuses what the engine refuses
// (nothing to save or queue then), saves a file the engine reads back as the same sweep, opens one to edit,
// and queues its trials; the status bar then says what the queue does. Run under on_screen.sh at 1366×768
// too, where the builder must lie inside the screen with its keys and preview readable.

#include <QAction>
#include <QComboBox>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "editor/experiment_editor.h"
#include "gui_test_support.h"
#include "queue_view/queue_actions.h"
#include "queue_view/queue_activity.h"
#include "queue_view/queue_panel.h"
#include "sweep_view/sweep_builder_dialog.h"
#include "sweep_view/sweep_draft.h"
#include "window/main_window.h"
#include "workbench/errors.h"
#include "workbench/experiment_keys.h"
#include "workbench/run_queue.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kPlanTimeoutMs = 20000;

SweepDraft lrAndBatchDraft() {
  SweepDraft d;
  d.name = "lr-search";
  SweepDraftKey lr;
  lr.key = "optimizer.lr";
  lr.form = SweepValuesForm::Range;
  lr.from = 1e-4;
  lr.to = 1e-2;
  lr.count = 4;
  lr.log_scale = true;
  SweepDraftKey batch;
  batch.key = "train.batch_size";
  batch.values = {64, 128};
  d.keys = {lr, batch};
  return d;
}

QueueEntry entry(int64_t id, QueueState state, const std::string& sweep, const std::string& label) {
  QueueEntry e;
  e.id = id;
  e.state = state;
  e.sweep = sweep;
  e.label = label;
  return e;
}

}  // namespace

class SweepBuilderTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aDraftBecomesTheEnginesSweepFile() {
    const std::vector<nlohmann::json> lrs = rangeValues(1e-4, 1e-2, 4, true, false);
    QCOMPARE(nlohmann::json(lrs).dump(), std::string("[0.0001,0.000464,0.00215,0.01]"));
    QCOMPARE(nlohmann::json(rangeValues(16, 128, 4, true, true)).dump(), std::string("[16,32,64,128]"));
    QCOMPARE(nlohmann::json(rangeValues(0, 1, 3, false, false)).dump(), std::string("[0.0,0.5,1.0]"));

    SweepDraft d = lrAndBatchDraft();
    const nlohmann::json file = sweepFileJson(d);
    QCOMPARE(file["keys"]["optimizer.lr"].size(), size_t{4});
    QVERIFY(!file.contains("trials"));  // a whole grid
    const SweepSpec spec = checkedSweep(d);
    QCOMPARE(spec.keys.size(), size_t{2});
    QCOMPARE(spec.keys[1].values.size(), size_t{2});
    QCOMPARE(draftTrialCount(d), int64_t{8});

    // A random search writes the range itself, and needs a trial count (the engine's rule).
    d.search = SweepSearch::Random;
    QVERIFY_THROWS_EXCEPTION(UserError, checkedSweep(d));
    d.trials = 6;
    const SweepSpec random = checkedSweep(d);
    QVERIFY(random.keys[0].values.empty() && random.keys[0].log_scale);
    QCOMPARE(random.trials, int64_t{6});
    // Read back as a draft: the same file.
    QCOMPARE(sweepFileJson(draftFromSweep(random)).dump(), sweepFileJson(d).dump());

    // ASHA as the engine writes it; a name the engine refuses is refused here.
    d.asha = true;
    QCOMPARE(checkedSweep(d).early_stopping.rule, std::string("asha"));
    d.name = "lr search";
    QVERIFY_THROWS_EXCEPTION(UserError, checkedSweep(d));

    // Values typed as a list, read as the key takes them.
    const ExperimentKey* batch = findExperimentKey("train.batch_size");
    const ExperimentKey* optimizer = findExperimentKey("optimizer.name");
    QVERIFY(batch && optimizer);
    QCOMPARE(nlohmann::json(parseSweepValues(" 64, 128 ,", *batch)).dump(), std::string("[64,128]"));
    QVERIFY_THROWS_EXCEPTION(UserError, parseSweepValues("64, 1e9x", *batch));
    QCOMPARE(nlohmann::json(parseSweepValues("adam, sgd", *optimizer)).dump(),
             std::string("[\"adam\",\"sgd\"]"));
    try {
      parseSweepValues("adam, sdg", *optimizer);
      QFAIL("a word the key does not take was read");
    } catch (const UserError& error) {
      QVERIFY2(std::string(error.what()).find("sdg") != std::string::npos, error.what());
    }
  }

  void queueActivityNamesTheTrialTraining() {
    std::vector<QueueEntry> entries;
    QCOMPARE(queueActivityText(entries), QString());
    for (int i = 1; i <= 12; ++i)
      entries.push_back(entry(i, i < 3 ? QueueState::Done : QueueState::Queued, "lr-search", "t"));
    entries[2].state = QueueState::Running;
    QCOMPARE(queueActivityText(entries),
             QStringLiteral("Queue: trial 3 of 12 training (sweep lr-search), 9 waiting"));
    entries.push_back(entry(13, QueueState::Held, "", "later"));
    for (QueueEntry& e : entries) e.state = e.state == QueueState::Held ? e.state : QueueState::Done;
    QCOMPARE(queueActivityText(entries), QString());  // held entries wait for the user, not the queue
    entries.push_back(entry(14, QueueState::Running, "", "tiny"));
    QCOMPARE(queueActivityText(entries), QStringLiteral("Queue: tiny training"));
  }

  void theBuilderPreviewsSavesOpensAndQueues() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString runs = dir.filePath(QStringLiteral("runs"));
    MainWindow window(MainWindow::Options{false});
    QStringList errors;
    window.setErrorPresenter([&](const QString& title, const QString& message, const QString&) {
      errors << title + QStringLiteral(": ") + message;
    });
    window.resize(1366, 768);
    window.show();
    window.editor()->setDocument(test::tinyExperimentJson(runs, 2));
    window.queueActions()->setStartsWorker(false);  // the queue's entries stay queued: the status bar says so

    // Run ▸ Queue Sweep… opens the builder, a first row on the learning rate.
    window.queueActions()->queueSweepAction()->trigger();
    auto* builder = window.findChild<SweepBuilderDialog*>(QStringLiteral("sweepBuilder"));
    QVERIFY(builder);
    QTRY_VERIFY(builder->isVisible());
    QCOMPARE(builder->keyTable()->rowCount(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(builder->isPlanned(), kPlanTimeoutMs);
    QCOMPARE(builder->previewTable()->rowCount(), 1);  // the experiment's own rate: one trial

    // lr on a log range of 4 × batch size 64, 128, as a user types them.
    auto* form = qobject_cast<QComboBox*>(builder->keyTable()->cellWidget(0, 1));
    form->setCurrentIndex(1);
    qobject_cast<QLineEdit*>(builder->keyTable()->cellWidget(0, 3))->setText(QStringLiteral("1e-4"));
    qobject_cast<QLineEdit*>(builder->keyTable()->cellWidget(0, 4))->setText(QStringLiteral("1e-2"));
    qobject_cast<QSpinBox*>(builder->keyTable()->cellWidget(0, 5))->setValue(4);
    qobject_cast<QComboBox*>(builder->keyTable()->cellWidget(0, 6))->setCurrentIndex(1);
    builder->addKey();
    QCOMPARE(qobject_cast<QComboBox*>(builder->keyTable()->cellWidget(1, 0))->currentText(),
             QStringLiteral("train.batch_size"));
    qobject_cast<QLineEdit*>(builder->keyTable()->cellWidget(1, 2))->setText(QStringLiteral("64, 128"));
    builder->findChild<QLineEdit*>(QStringLiteral("sweepName"))->setText(QStringLiteral("lr-search"));
    QVERIFY(!builder->isPlanned());  // nothing to save for fields the engine has not read
    QVERIFY(!builder->saveButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(builder->isPlanned(), kPlanTimeoutMs);
    QVERIFY(builder->saveButton()->isEnabled() && builder->queueButton()->isEnabled());
    QTableWidget* preview = builder->previewTable();
    QCOMPARE(preview->rowCount(), 8);
    QCOMPARE(preview->item(0, 0)->text(), QStringLiteral("lr-search-t01"));
    QCOMPARE(preview->item(0, 1)->text(), QStringLiteral("0.0001"));
    QCOMPARE(preview->item(1, 2)->text(), QStringLiteral("128"));
    QCOMPARE(preview->item(7, 1)->text(), QStringLiteral("0.01"));
    QVERIFY2(builder->previewSummary()->text().contains(QStringLiteral("8 trials")),
             qPrintable(builder->previewSummary()->text()));

    // What the engine refuses is shown in its words, and nothing can be saved or queued.
    qobject_cast<QLineEdit*>(builder->keyTable()->cellWidget(1, 2))->setText(QStringLiteral("64, -5"));
    QTRY_VERIFY_WITH_TIMEOUT(!builder->isPlanning(), kPlanTimeoutMs);
    QVERIFY2(builder->problem().contains(QStringLiteral("train.batch_size")), qPrintable(builder->problem()));
    QVERIFY(!builder->isPlanned() && !builder->saveButton()->isEnabled() &&
            !builder->queueButton()->isEnabled());
    QString error;
    QVERIFY(!builder->saveTo(dir.filePath(QStringLiteral("refused.json")), &error));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("refused.json"))));
    qobject_cast<QLineEdit*>(builder->keyTable()->cellWidget(1, 2))->setText(QStringLiteral("64, 128"));
    QTRY_VERIFY_WITH_TIMEOUT(builder->isPlanned(), kPlanTimeoutMs);

    // Saved: the engine reads the file back as the same 8-trial grid.
    const QString file = dir.filePath(QStringLiteral("lr-search.json"));
    QVERIFY2(builder->saveTo(file, &error), qPrintable(error));
    const SweepSpec saved = loadSweepFile(file.toStdString());
    QCOMPARE(saved.name, std::string("lr-search"));
    QCOMPARE(planSweep(experimentToJson(*window.editor()->experiment()), saved).size(), size_t{8});

    // The builder fits a 1366×768 screen with its keys and preview readable.
    QVERIFY2(builder->minimumSizeHint().width() <= 1366 && builder->minimumSizeHint().height() <= 700,
             qPrintable(QStringLiteral("%1x%2")
                            .arg(builder->minimumSizeHint().width())
                            .arg(builder->minimumSizeHint().height())));
    if (qEnvironmentVariableIsSet("WB_SCREEN")) {  // on_screen.sh: a real screen and window manager
      const QRect screen = builder->screen()->availableGeometry();
      QTRY_VERIFY(screen.contains(builder->frameGeometry()));
    }
    QVERIFY(preview->viewport()->height() >= 4 * preview->verticalHeader()->defaultSectionSize());

    // Opened to edit: another builder loads the file as it was built.
    auto* again = new SweepBuilderDialog(window.editor(), window.queueActions(), &window);
    QVERIFY2(again->loadFrom(file, &error), qPrintable(error));
    QCOMPARE(sweepFileJson(again->draft()).dump(), sweepFileJson(builder->draft()).dump());
    QTRY_VERIFY_WITH_TIMEOUT(again->isPlanned(), kPlanTimeoutMs);
    QCOMPARE(again->previewTable()->rowCount(), 8);
    delete again;

    // Queued: 8 trials in the queue; the status bar says what the queue does.
    QSignalSpy queued(window.queueActions(), &QueueActions::sweepQueued);
    builder->queueButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(queued.count(), 1, kPlanTimeoutMs);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    QCOMPARE(listQueue(runs.toStdString()).size(), size_t{8});
    QLabel* activity = window.queuePanel()->activityLabel();
    QTRY_COMPARE_WITH_TIMEOUT(activity->text(), QStringLiteral("Queue: 8 waiting"), kPlanTimeoutMs);
    QVERIFY(activity->isVisible());
    QCOMPARE(activity->parentWidget(), static_cast<QWidget*>(window.statusBar()));
  }
};

QTEST_MAIN(SweepBuilderTest)
#include "sweep_builder_test.moc"
