// Issue 42's memory figures in the window: the Model tab's table of the training state per device under each
// way of spreading it, and the device picker's chooser that sets train.shard or train.pipeline from them.

#include <QComboBox>
#include <QLabel>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "editor/device_picker.h"
#include "editor/experiment_editor.h"
#include "gui_test_support.h"
#include "model_view/memory_figures_view.h"
#include "model_view/model_summary_view.h"
#include "window/main_window.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kMemoryTimeoutMs = 60000;

// The hand-checked summary of the engine's test: linear 100→10, relu, linear 10→10, on two devices.
ModelSummary threeLayerSummary() {
  ModelSummary s;
  s.input_shape = {100};
  s.output_shape = {10};
  s.rows.push_back({"0", "linear", "", 0, {10}, 1010, 0, true, 0, 2000});
  s.rows.push_back({"1", "relu", "", 0, {10}, 0, 0, true, 0, 10});
  s.rows.push_back({"2", "linear", "", 0, {10}, 110, 0, true, 0, 200});
  s.total_parameters = 1120;
  return s;
}

Experiment twoDeviceExperiment() {
  Experiment e;
  e.train.devices = {"cpu", "cpu"};
  e.train.batch_size = 8;
  return e;
}

DevicePicker* pickerOf(ExperimentEditor* editor) {
  return qobject_cast<DevicePicker*>(editor->binding("train.devices")->input());
}

bool boldRow(QStandardItemModel* table, int row) {
  return table->item(row, kMemoryChoiceColumn)->font().bold();
}

}  // namespace

class MemoryFiguresTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_dir;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
  }

  // Every choice's devices as rows, the experiment's own in bold, the refusal and what would fit below.
  void tableShowsEveryChoiceAndTheRefusal() {
    MemoryFiguresView view;
    const TrainingMemory memory =
        estimateTrainingMemory(twoDeviceExperiment(), threeLayerSummary(), {16000, 16000});
    view.showMemory(memory);
    QStandardItemModel* table = view.tableModel();
    QCOMPARE(table->rowCount(), 4 * 2 + 2);  // four shard levels on two devices, two pipeline stages
    QCOMPARE(table->item(0, kMemoryChoiceColumn)->text(), QStringLiteral("shard none"));
    QCOMPARE(table->item(0, kMemoryTotalColumn)->text(), QStringLiteral("21.6 KiB"));
    QCOMPARE(table->item(0, kMemoryHoldsColumn)->text(), QStringLiteral("15.6 KiB"));
    QVERIFY(boldRow(table, 0) && boldRow(table, 1));
    QVERIFY(!boldRow(table, 2));
    QCOMPARE(table->item(4, kMemoryGradientsColumn)->text(), QStringLiteral("2.19 KiB"));  // 560 × 4 B
    QCOMPARE(table->item(8, kMemoryChoiceColumn)->text(), QStringLiteral("pipeline · stage 0"));
    // ZeRO stage 3 keeps its figures; while the trainer does not train it (shardLevelTrains) it says so.
    QCOMPARE(table->item(6, kMemoryChoiceColumn)->text(),
             shardLevelTrains(ShardLevel::Parameters)
                 ? QStringLiteral("shard parameters")
                 : QStringLiteral("shard parameters (not available yet)"));
    // Stage 3 holds its shard plus the largest layer it gathers (the 1010-parameter linear: here the whole
    // 1120 parameters, and their gradients until reduced), and its shard of AdamW's state: 1120 × 4 B twice,
    // 560 × 8 B, and the activations' 4160 B.
    QCOMPARE(table->item(6, kMemoryTotalColumn)->text(), QStringLiteral("17.2 KiB"));
    QVERIFY(view.verdictRefuses());
    QVERIFY2(view.verdictText().contains(QStringLiteral("train.shard \"gradients\" would fit")),
             qPrintable(view.verdictText()));
    QVERIFY2(view.headingText().contains(QStringLiteral("AdamW: 2 moments")), qPrintable(view.headingText()));

    view.showMemory(estimateTrainingMemory(twoDeviceExperiment(), threeLayerSummary(), {1 << 30, 1 << 30}));
    QVERIFY(!view.verdictRefuses());
    QCOMPARE(view.verdictText(), QStringLiteral("shard none fits: at most 21.6 KiB on a device."));
  }

  // A choice refused for this model, not for this version: stage 3 of a TorchScript model (no layers to
  // gather one by one) keeps its figures and says it is not possible here, the engine's reason as its
  // tooltip.
  void aChoiceRefusedForTheModelSaysNotPossibleHere() {
    ModelSummary script = threeLayerSummary();
    script.torchscript = true;
    for (ModelSummaryRow& row : script.rows) row.type = "parameter";
    const TrainingMemory memory = estimateTrainingMemory(twoDeviceExperiment(), script, {1 << 30, 1 << 30});
    QVERIFY(!memory.choices[3].possible());
    MemoryFiguresView view;
    view.showMemory(memory);
    QStandardItem* label = view.tableModel()->item(6, kMemoryChoiceColumn);
    QCOMPARE(label->text(), QStringLiteral("shard parameters (not possible here)"));
    QVERIFY2(label->toolTip().contains(QStringLiteral("TorchScript")), qPrintable(label->toolTip()));
  }

  // The picker: the choices with their largest device, the experiment's selected; what does not fit in red.
  void pickerWarnsWhatDoesNotFit() {
    DevicePicker picker;
    picker.show();
    picker.showMemory(estimateTrainingMemory(twoDeviceExperiment(), threeLayerSummary(), {16000, 16000}),
                      true);
    QCOMPARE(picker.memoryChoice()->count(), 5);
    QCOMPARE(picker.memoryChoice()->currentIndex(), 0);
    QCOMPARE(picker.memoryChoice()->itemText(0),
             QStringLiteral("shard none — 21.6 KiB per device, does not fit"));
    QVERIFY(picker.memoryNote()->isVisible());
    QCOMPARE(picker.memoryNote()->text(),
             QStringLiteral(
                 "⚠ Does not fit: 21.6 KiB on cpu, which holds 15.6 KiB; shard gradients would (15.0 KiB)"));
    // Without the pipeline's fields in the form its choice is listed, not selectable.
    picker.showMemory(estimateTrainingMemory(twoDeviceExperiment(), threeLayerSummary(), {16000, 16000}),
                      false);
    QVERIFY(!(picker.memoryChoice()->model()->index(4, 0).flags() & Qt::ItemIsEnabled));
    QVERIFY(picker.memoryChoice()->model()->index(2, 0).flags() & Qt::ItemIsEnabled);
    // Stage 3: pickable exactly when the engine trains it.
    QCOMPARE(static_cast<bool>(picker.memoryChoice()->model()->index(3, 0).flags() & Qt::ItemIsEnabled),
             shardLevelTrains(ShardLevel::Parameters));
    picker.showMemory(TrainingMemory{}, true);
    QVERIFY(!picker.memoryNote()->isVisible());
    QVERIFY(picker.memoryChoice()->parentWidget()->isHidden());
  }

  // The window: the Model tab follows the editor's devices; the picker lists the choices with their figures
  // and picking one sets the keys that make it.
  void pickerOffersTheChoicesAndSetsThem() {
    MainWindow window(MainWindow::Options{false});
    ModelSummaryView* tab = window.modelView();
    ExperimentEditor* editor = window.editor();
    DevicePicker* picker = pickerOf(editor);
    QVERIFY(picker);
    // The wheel passes over the chooser while the form scrolls (widgets/wheel_guard.h): focus by click or
    // Tab.
    QCOMPARE(picker->memoryChoice()->focusPolicy(), Qt::StrongFocus);

    editor->setDocument(test::tinyExperimentJson(m_dir.path()));
    QTRY_VERIFY_WITH_TIMEOUT(!tab->isComputing() && tab->memory().choices.size() == 1, kMemoryTimeoutMs);
    QVERIFY(picker->memoryChoice()->parentWidget()->isHidden());  // one device: nothing to choose
    QVERIFY(picker->memoryNote()->isHidden());                    // and it fits: no row spent
    QVERIFY2(picker->memoryNote()->toolTip().contains(QStringLiteral(" on cpu: parameters ")),
             qPrintable(picker->memoryNote()->toolTip()));
    QVERIFY(!tab->memoryFigures()->isHidden());

    nlohmann::json doc = test::tinyExperimentJson(m_dir.path());
    doc["train"]["devices"] = {"cpu", "cpu"};
    editor->setDocument(doc);
    QTRY_VERIFY_WITH_TIMEOUT(!tab->isComputing() && tab->memory().choices.size() == 5, kMemoryTimeoutMs);
    QComboBox* choice = picker->memoryChoice();
    QVERIFY(!choice->parentWidget()->isHidden());
    QCOMPARE(choice->count(), 5);
    QCOMPARE(choice->currentIndex(), 0);
    QVERIFY2(choice->itemText(2).startsWith(QStringLiteral("shard gradients — ")),
             qPrintable(choice->itemText(2)));
    const int64_t none = tab->memory().choices[0].largestDevice();
    const int64_t gradients = tab->memory().choices[2].largestDevice();
    QVERIFY(gradients < none);
    QVERIFY(choice->itemText(2).contains(bytesText(gradients)));

    emit choice->activated(2);
    QCOMPARE(editor->document()["train"]["shard"], nlohmann::json("gradients"));
    QTRY_VERIFY_WITH_TIMEOUT(!tab->isComputing() && tab->memory().chosen() &&
                                 tab->memory().chosen()->shard == ShardLevel::Gradients,
                             kMemoryTimeoutMs);
    QCOMPARE(picker->memoryChoice()->currentIndex(), 2);
    QVERIFY(boldRow(tab->memoryFigures()->tableModel(), 4));
    QVERIFY(!boldRow(tab->memoryFigures()->tableModel(), 0));

    // The pipeline: its proposed cut becomes train.pipeline's stages.
    const std::string stages = tab->memory().choices[4].pipeline_stages_json;
    QVERIFY(!stages.empty());
    QVERIFY(choice->model()->index(4, 0).flags() & Qt::ItemIsEnabled);
    emit choice->activated(4);
    const nlohmann::json pipeline = editor->document()["train"]["pipeline"];
    QCOMPARE(pipeline["enabled"], nlohmann::json(true));
    QCOMPARE(pipeline["stages"], nlohmann::json::parse(stages));
    // The engine refuses a pipeline beside data parallel: train.devices keeps the first stage's device.
    QCOMPARE(editor->document()["train"]["devices"], nlohmann::json::array({"cpu"}));
    QCOMPARE(editor->document()["train"]["shard"], nlohmann::json("none"));
    QTRY_VERIFY_WITH_TIMEOUT(
        !tab->isComputing() && tab->memory().chosen() && tab->memory().chosen()->pipeline, kMemoryTimeoutMs);
    QCOMPARE(tab->memory().devices.size(), 2u);

    // Back to a shard level: the pipeline off, data parallel on the same two devices.
    emit picker->memoryChoice()->activated(1);
    QCOMPARE(editor->document()["train"]["pipeline"]["enabled"], nlohmann::json(false));
    QCOMPARE(editor->document()["train"]["devices"], nlohmann::json::array({"cpu", "cpu"}));
    QCOMPARE(editor->document()["train"]["shard"], nlohmann::json("optimizer"));
  }
};

QTEST_MAIN(MemoryFiguresTest)
#include "memory_figures_test.moc"
