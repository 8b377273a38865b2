// Issue 42 in the editor: train.pipeline as a stages table (each stage's device and first and last layer,
// chosen from the machine's devices and the model's layers), Balanced showing the engine's cut, the
// micro-batches and the schedule — the file's value shown and written back exactly unless edited, an edit
// changing only what it edits, the engine's messages at the chooser at fault — and the Sharded state chooser
// offering only the levels the engine trains.

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QPushButton>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>

#include "editor/experiment_editor.h"
#include "editor/pipeline_binding.h"
#include "gui_test_support.h"
#include "model_view/model_summary_view.h"
#include "window/main_window.h"
#include "workbench/training_memory.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kPipelineTimeoutMs = 60000;
using Stages = PipelineBinding;

// flatten, fc1 (linear), an unnamed relu, head (linear): 1x8x8 synthetic samples in 4 classes.
nlohmann::json namedLayers() {
  return nlohmann::json::parse(R"([
    {"type": "flatten"},
    {"type": "linear", "out_features": 16, "name": "fc1"},
    {"type": "relu"},
    {"type": "linear", "out_features": 4, "name": "head"}
  ])");
}

nlohmann::json pipelineDocument(const QString& runsDir, const nlohmann::json& pipeline) {
  nlohmann::json doc = test::tinyExperimentJson(runsDir);
  doc["model"] = {{"layers", namedLayers()}};
  doc["train"]["devices"] = {"cpu"};
  doc["train"]["pipeline"] = pipeline;
  return doc;
}

// Written as a person writes it: an index to a name (fc1 as the last end takes the unnamed relu after it),
// a name alone, a key order of its own.
nlohmann::json twoStages() {
  return nlohmann::json::parse(R"({"stages": [["cpu", "0..fc1"], ["cpu", "head"]], "micro_batches": 2,
                                   "schedule": "gpipe"})");
}

PipelineBinding* stagesOf(ExperimentEditor& editor) {
  return dynamic_cast<PipelineBinding*>(editor.binding("train.pipeline"));
}

nlohmann::json pipelineIn(const ExperimentEditor& editor) {
  return editor.document()["train"]["pipeline"];
}

// The model's summary and figures, as the Model tab hands them to the table.
void showModelOf(PipelineBinding* stages, const ExperimentEditor& editor) {
  const std::optional<Experiment> experiment = editor.experiment();
  QVERIFY(experiment);
  const ModelSummary summary = summarizeModel(*experiment);
  QVERIFY(summary.ok());
  stages->showModel(summary, estimateTrainingMemory(*experiment, summary, {}));
}

// Picks `text` in a chooser as a user does (the item, then the activation the popup sends).
void choose(QComboBox* combo, const QString& text) {
  const int index = combo->findText(text);
  QVERIFY2(index >= 0, qPrintable(QStringLiteral("no item %1").arg(text)));
  combo->setCurrentIndex(index);
  emit combo->activated(index);
}

bool marked(QComboBox* combo) {
  return combo->property("pipelineFault").toBool();
}

}  // namespace

class PipelineEditorTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aDocumentWithStagesShowsThemAndRoundTrips() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    PipelineBinding* stages = stagesOf(editor);
    QVERIFY(stages);
    nlohmann::json written = twoStages();
    written["enabled"] = true;
    editor.setDocument(pipelineDocument(dir.path(), written));
    showModelOf(stages, editor);
    QCOMPARE(stages->table()->rowCount(), 2);
    QCOMPARE(stages->chooser(0, Stages::Device)->currentData().toString(), QStringLiteral("cpu"));
    QCOMPARE(stages->chooser(0, Stages::FirstLayer)->currentText(), QStringLiteral("0 (flatten)"));
    QCOMPARE(stages->chooser(0, Stages::LastLayer)->currentText(), QStringLiteral("fc1 (as written)"));
    QCOMPARE(stages->chooser(1, Stages::FirstLayer)->currentText(), QStringLiteral("head"));
    QCOMPARE(stages->chooser(1, Stages::LastLayer)->currentText(), QStringLiteral("head"));
    QVERIFY(!stages->balancedBox()->isChecked());
    // Every key as written, the table's and the fields' after it.
    QCOMPARE(pipelineIn(editor)["stages"], written["stages"]);
    QCOMPARE(pipelineIn(editor)["micro_batches"], nlohmann::json(2));
    QCOMPARE(pipelineIn(editor)["schedule"], nlohmann::json("gpipe"));
    QCOMPARE(pipelineIn(editor)["enabled"], nlohmann::json(true));
    QVERIFY(!editor.isModified());
    QTRY_VERIFY_WITH_TIMEOUT(!editor.checksPending(), kPipelineTimeoutMs);
    QVERIFY2(editor.issues().empty(), qPrintable(stages->messages().join(QLatin1Char('\n'))));

    // `"pipeline": true` (the switch's shorthand) is the section on, its keys at their defaults.
    editor.setDocument(pipelineDocument(dir.path(), true));
    QCOMPARE(pipelineIn(editor)["enabled"], nlohmann::json(true));
    QCOMPARE(stages->table()->rowCount(), 0);
    QVERIFY(!stages->row()->isHidden());
  }

  void choosingAStagesLayersAndDeviceChangesOnlyThem() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    PipelineBinding* stages = stagesOf(editor);
    nlohmann::json written = twoStages();
    editor.setDocument(pipelineDocument(dir.path(), written));
    showModelOf(stages, editor);
    QCOMPARE(stages->layers().size(), 4u);

    // The last layer of stage 0 becomes the relu: the layer named fc1 as an end would take the unnamed relu
    // after it too, so the chooser writes indices where a name would mean more than the layer chosen.
    choose(stages->chooser(0, Stages::LastLayer), QStringLiteral("2 (relu)"));
    nlohmann::json expected = written["stages"];
    expected[0][1] = "0..2";
    QCOMPARE(pipelineIn(editor)["stages"], expected);
    QVERIFY(editor.isModified());
    choose(stages->chooser(0, Stages::LastLayer), QStringLiteral("fc1"));
    expected[0][1] = "0..1";
    QCOMPARE(pipelineIn(editor)["stages"], expected);
    choose(stages->chooser(1, Stages::FirstLayer), QStringLiteral("2 (relu)"));
    expected[1][1] = "2..head";
    QCOMPARE(pipelineIn(editor)["stages"], expected);
    QTRY_VERIFY_WITH_TIMEOUT(!editor.checksPending(), kPipelineTimeoutMs);
    QVERIFY2(editor.issues().empty(), qPrintable(stages->messages().join(QLatin1Char('\n'))));

    // Devices: the machine's, as the device picker lists them.
    QComboBox* device = stages->chooser(1, Stages::Device);
    QVERIFY(device->count() >= 1);
    QCOMPARE(device->itemData(0).toString(), QStringLiteral("cpu"));
    QVERIFY2(device->itemText(0).startsWith(QStringLiteral("cpu — ")), qPrintable(device->itemText(0)));
  }

  void addedStageAsksForItsLayersAndRemovingItTakesItBack() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    PipelineBinding* stages = stagesOf(editor);
    editor.setDocument(pipelineDocument(dir.path(), twoStages()));
    showModelOf(stages, editor);
    stages->addButton()->click();
    QCOMPARE(stages->table()->rowCount(), 3);
    QCOMPARE(pipelineIn(editor)["stages"][2], nlohmann::json::array({"cpu", ""}));
    QCOMPARE(stages->chooser(2, Stages::FirstLayer)->currentData().toString(), QString());
    // The engine's own words at the new stage's layers, in red there and under the table.
    editor.validateNow();
    QVERIFY(marked(stages->chooser(2, Stages::FirstLayer)));
    QVERIFY(marked(stages->chooser(2, Stages::LastLayer)));
    QVERIFY(!marked(stages->chooser(2, Stages::Device)));
    QVERIFY(!marked(stages->chooser(0, Stages::FirstLayer)));
    QVERIFY2(stages->chooser(2, Stages::FirstLayer)
                 ->toolTip()
                 .contains(QStringLiteral("expected the stage's layers")),
             qPrintable(stages->chooser(2, Stages::FirstLayer)->toolTip()));
    QVERIFY2(stages->messages().join(QString()).contains(QStringLiteral("train.pipeline.stages[2][1]")),
             qPrintable(stages->messages().join(QLatin1Char('\n'))));
    QVERIFY(!editor.experiment());  // never accepted

    // The layers' choosers still list the model (no summary while the form has problems).
    choose(stages->chooser(2, Stages::FirstLayer), QStringLiteral("head"));
    QCOMPARE(pipelineIn(editor)["stages"][2], nlohmann::json::array({"cpu", "head"}));

    // The stage whose chooser the user clicks is the one Remove takes.
    editor.resize(520, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    QTest::mouseClick(stages->chooser(0, Stages::Device), Qt::LeftButton);
    QTRY_COMPARE(stages->table()->currentRow(), 0);
    QApplication::processEvents();
    if (QWidget* popup = QApplication::activePopupWidget()) popup->close();
    stages->chooser(2, Stages::Device)->setFocus(Qt::TabFocusReason);
    QCOMPARE(stages->table()->currentRow(), 2);
    QVERIFY(stages->removeButton()->isEnabled());
    stages->removeButton()->click();
    QCOMPARE(pipelineIn(editor)["stages"], twoStages()["stages"]);
    editor.validateNow();
    QVERIFY(!marked(stages->chooser(1, Stages::FirstLayer)));
    QVERIFY(editor.experiment());
  }

  // train.devices must be the first stage's device (batches are loaded there): choosing the first stage's
  // device moves it along, in the same edit; another stage's device leaves it.
  void theFirstStagesDeviceIsTrainDevices() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    PipelineBinding* stages = stagesOf(editor);
    nlohmann::json pipeline = twoStages();
    pipeline["enabled"] = true;
    pipeline["stages"][0][0] = "cuda:7";
    nlohmann::json doc = pipelineDocument(dir.path(), pipeline);
    doc["train"]["devices"] = {"cuda:7"};
    editor.setDocument(doc);
    QCOMPARE(stages->chooser(0, Stages::Device)->currentText(),
             QStringLiteral("cuda:7 — not found on this machine"));
    choose(stages->chooser(1, Stages::Device), stages->chooser(1, Stages::Device)->itemText(0));  // the CPU
    QCOMPARE(editor.document()["train"]["devices"], nlohmann::json::array({"cuda:7"}));
    choose(stages->chooser(0, Stages::Device), stages->chooser(0, Stages::Device)->itemText(0));
    QCOMPARE(pipelineIn(editor)["stages"][0][0], nlohmann::json("cpu"));
    QCOMPARE(editor.document()["train"]["devices"], nlohmann::json::array({"cpu"}));
    QVERIFY(editor.isModified());
    editor.validateNow();
    QTRY_VERIFY_WITH_TIMEOUT(!editor.checksPending(), kPipelineTimeoutMs);
    QVERIFY2(editor.binding("train.devices")->messages().isEmpty(),
             qPrintable(editor.binding("train.devices")->messages().join(QLatin1Char('\n'))));
  }

  // A device the engine refuses in the file: its chooser keeps it, marked with the engine's message.
  void aRefusedDeviceIsMarkedAtItsChooser() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    PipelineBinding* stages = stagesOf(editor);
    nlohmann::json pipeline = twoStages();
    pipeline["stages"][1][0] = "cuda:x";
    editor.setDocument(pipelineDocument(dir.path(), pipeline));
    QCOMPARE(pipelineIn(editor), [&] {
      nlohmann::json expected = pipelineIn(editor);
      expected["stages"] = pipeline["stages"];
      return expected;
    }());
    QCOMPARE(stages->chooser(1, Stages::Device)->currentData().toString(), QStringLiteral("cuda:x"));
    QVERIFY(marked(stages->chooser(1, Stages::Device)));
    QVERIFY(!marked(stages->chooser(1, Stages::FirstLayer)));
    QVERIFY2(
        stages->chooser(1, Stages::Device)->toolTip().contains(QStringLiteral("expected a stage's device")),
        qPrintable(stages->chooser(1, Stages::Device)->toolTip()));
    editor.focusIssue("train.pipeline.stages[1][0]");
    QCOMPARE(stages->table()->currentRow(), 1);

    // More micro-batches than a batch has samples: at the micro-batches field.
    pipeline = twoStages();
    pipeline["micro_batches"] = 64;
    editor.setDocument(pipelineDocument(dir.path(), pipeline));
    QTRY_VERIFY_WITH_TIMEOUT(!editor.checksPending(), kPipelineTimeoutMs);
    QVERIFY2(editor.binding("train.pipeline.micro_batches")
                 ->messages()
                 .join(QString())
                 .contains(QStringLiteral("lower micro_batches")),
             qPrintable(editor.binding("train.pipeline.micro_batches")->messages().join(QString())));
  }

  // The engine resolves the cut against the model off the UI thread (checkExperiment): a layer the model
  // does not have, or one in two stages, is marked at the stage's layers with its words.
  void theEnginesRefusalOfACutIsMarkedAtTheStage() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    PipelineBinding* stages = stagesOf(editor);
    nlohmann::json pipeline = twoStages();
    pipeline["stages"][1][1] = "haed";
    editor.setDocument(pipelineDocument(dir.path(), pipeline));
    QTRY_VERIFY_WITH_TIMEOUT(!editor.checksPending(), kPipelineTimeoutMs);
    QVERIFY(marked(stages->chooser(1, Stages::FirstLayer)));
    QVERIFY(marked(stages->chooser(1, Stages::LastLayer)));
    QVERIFY(!marked(stages->chooser(0, Stages::FirstLayer)));
    QVERIFY2(
        stages->chooser(1, Stages::FirstLayer)->toolTip().contains(QStringLiteral("did you mean \"head\"")),
        qPrintable(stages->chooser(1, Stages::FirstLayer)->toolTip()));
    QCOMPARE(stages->chooser(1, Stages::FirstLayer)->currentText(), QStringLiteral("haed (as written)"));

    // The model's layers arriving (the Model tab's summary, after the checks) rebuild the choosers: the marks
    // stay until the engine checks again.
    showModelOf(stages, editor);
    QVERIFY(marked(stages->chooser(1, Stages::FirstLayer)));
    QVERIFY(!marked(stages->chooser(0, Stages::LastLayer)));

    // Stage 1 starting at the relu that fc1 (stage 0's last, a name) already takes.
    choose(stages->chooser(1, Stages::FirstLayer), QStringLiteral("2 (relu)"));
    choose(stages->chooser(1, Stages::LastLayer), QStringLiteral("head"));
    QCOMPARE(pipelineIn(editor)["stages"][1][1], nlohmann::json("2..head"));
    editor.validateNow();
    QTRY_VERIFY_WITH_TIMEOUT(!editor.checksPending(), kPipelineTimeoutMs);
    QVERIFY2(marked(stages->chooser(1, Stages::FirstLayer)),
             qPrintable(stages->messages().join(QLatin1Char('\n'))));
    // Stage 0 ends at the layer itself: the cut is whole again.
    choose(stages->chooser(0, Stages::LastLayer), QStringLiteral("fc1"));
    editor.validateNow();
    QTRY_VERIFY_WITH_TIMEOUT(!editor.checksPending(), kPipelineTimeoutMs);
    QVERIFY2(editor.issues().empty(), qPrintable(stages->messages().join(QLatin1Char('\n'))));
    QVERIFY(!marked(stages->chooser(1, Stages::FirstLayer)));
  }

  // The wheel over a stage's chooser the user has not clicked scrolls the form, it does not pick.
  void wheelOverAnUnfocusedChooserPicksNothing() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    editor.resize(520, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    PipelineBinding* stages = stagesOf(editor);
    editor.setDocument(pipelineDocument(dir.path(), twoStages()));
    showModelOf(stages, editor);
    const nlohmann::json before = editor.document();
    for (int column = 0; column < 3; ++column) {
      QComboBox* combo = stages->chooser(0, column);
      QCOMPARE(combo->focusPolicy(), Qt::StrongFocus);
      const int index = combo->currentIndex();
      const QPoint at = combo->rect().center();
      QWheelEvent wheel(at, combo->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                        Qt::NoScrollPhase, false);
      QApplication::sendEvent(combo, &wheel);
      QCOMPARE(combo->currentIndex(), index);
    }
    QCOMPARE(editor.document(), before);
    QVERIFY(!editor.isModified());
  }

  void theStagesShowOnlyWhileThePipelineIsOn() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    editor.show();
    PipelineBinding* stages = stagesOf(editor);
    nlohmann::json off = twoStages();
    off["enabled"] = false;
    editor.setDocument(pipelineDocument(dir.path(), off));
    QVERIFY(stages->row()->isHidden());
    QVERIFY(editor.binding("train.pipeline.micro_batches")->row()->isHidden());
    QVERIFY(!editor.binding("train.pipeline.enabled")->row()->isHidden());
    QCOMPARE(pipelineIn(editor)["stages"], twoStages()["stages"]);  // kept while off
    editor.setValue("train.pipeline.enabled", true);
    QVERIFY(!stages->row()->isHidden());
    QVERIFY(!editor.binding("train.pipeline.schedule")->row()->isHidden());
  }

  // The Sharded state chooser: every level listed, those the engine does not train not pickable.
  void shardChooserOffersWhatTheEngineTrains() {
    ExperimentEditor editor;
    auto* combo = qobject_cast<QComboBox*>(editor.binding("train.shard")->input());
    QVERIFY(combo);
    auto* items = qobject_cast<QStandardItemModel*>(combo->model());
    QVERIFY(items);
    QCOMPARE(combo->count(), 4);
    for (int row = 0; row < combo->count(); ++row) {
      const std::optional<ShardLevel> level =
          fromWord<ShardLevel>(combo->itemData(row).toString().toStdString());
      QVERIFY(level);
      QCOMPARE(items->item(row)->isEnabled(), shardLevelTrains(*level));
      QCOMPARE(items->item(row)->text().contains(QStringLiteral("not available yet")),
               !shardLevelTrains(*level));
    }
    // What the engine says now: stage 3 (parameters) is refused by `check` until it trains.
    nlohmann::json doc = test::tinyExperimentJson(QStringLiteral("/tmp/wb-h4-unused"));
    doc["train"]["devices"] = {"cpu", "cpu"};
    doc["train"]["shard"] = "parameters";
    editor.setDocument(doc);
    QCOMPARE(combo->currentData().toString(), QStringLiteral("parameters"));  // the file's, shown
    QTRY_VERIFY_WITH_TIMEOUT(!editor.checksPending(), kPipelineTimeoutMs);
    const bool refused = !editor.binding("train.shard")->messages().isEmpty();
    QCOMPARE(refused, !shardLevelTrains(ShardLevel::Parameters));
  }

  // In the window: the Model tab hands the table the model's layers and the engine's cut; Balanced shows
  // that cut read-only, and turning it off starts the explicit stages from it.
  void balancedShowsTheEnginesCutAndOffAdoptsIt() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    ExperimentEditor* editor = window.editor();
    ModelSummaryView* tab = window.modelView();
    PipelineBinding* stages = stagesOf(*editor);
    nlohmann::json pipeline = {{"enabled", true}, {"stages", "balanced"}, {"devices", {"cpu", "cpu"}}};
    editor->setDocument(pipelineDocument(dir.path(), pipeline));
    QTRY_VERIFY_WITH_TIMEOUT(
        !tab->isComputing() && tab->memory().chosen() && tab->memory().chosen()->pipeline,
        kPipelineTimeoutMs);
    QCOMPARE(stages->layers().size(), 4u);
    QCOMPARE(stages->proposedCut().size(), 2u);
    QVERIFY(stages->balancedBox()->isChecked());
    QCOMPARE(stages->table()->rowCount(), 2);
    QVERIFY(!stages->chooser(0, Stages::FirstLayer)->isEnabled());
    QVERIFY(stages->chooser(0, Stages::Device)->isEnabled());
    QCOMPARE(stages->chooser(0, Stages::FirstLayer)->currentText(), QStringLiteral("0 (flatten)"));
    QCOMPARE(stages->chooser(1, Stages::LastLayer)->currentText(), QStringLiteral("head"));
    QCOMPARE(pipelineIn(*editor)["stages"], nlohmann::json("balanced"));
    QCOMPARE(pipelineIn(*editor)["devices"], pipeline["devices"]);
    QVERIFY(!editor->isModified());

    stages->balancedBox()->click();
    const nlohmann::json adopted = pipelineIn(*editor);
    QCOMPARE(adopted["devices"], nlohmann::json::array());
    // The engine's cut (fc1's FLOPs alone, then the rest) in the choosers' spelling: the indices where a
    // name would take more (fc1 as a last end takes the relu after it).
    QCOMPARE(stages->proposedCut(), (std::vector<std::string>{"0..1", "2..3"}));
    QCOMPARE(adopted["stages"], nlohmann::json::parse(R"([["cpu", "0..1"], ["cpu", "2..head"]])"));
    QVERIFY(stages->chooser(0, Stages::FirstLayer)->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!editor->checksPending(), kPipelineTimeoutMs);
    QVERIFY2(editor->issues().empty(), qPrintable(stages->messages().join(QLatin1Char('\n'))));

    stages->balancedBox()->click();
    QCOMPARE(pipelineIn(*editor)["stages"], nlohmann::json("balanced"));
    QCOMPARE(pipelineIn(*editor)["devices"], pipeline["devices"]);
  }
};

QTEST_MAIN(PipelineEditorTest)
#include "pipeline_editor_test.moc"
