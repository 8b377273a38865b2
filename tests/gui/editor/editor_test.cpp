// The experiment editor: form <-> experiment file round trip, and the engine's validation messages at the
// field at fault.

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSpontaneKeyEvent>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "charts/metric_chart.h"
#include "editor/experiment_editor.h"
#include "editor/json_path.h"
#include "editor/lr_preview.h"
#include "gui_test_support.h"
#include "window/experiment_document.h"
#include "window/main_window.h"
#include "workbench/experiment_keys.h"
#include "workbench/system_info.h"

using namespace wb;
using namespace wb::gui;

namespace {

nlohmann::json readJson(const QString& file) {
  std::ifstream in(file.toStdString());
  return nlohmann::json::parse(in);
}

void writeJson(const QString& file, const nlohmann::json& doc) {
  std::ofstream out(file.toStdString());
  out << doc.dump(2);
}

// Types into a line edit the way a user does (textEdited fires), replacing what was there.
void typeInto(QWidget* widget, const QString& text) {
  auto* edit = qobject_cast<QLineEdit*>(widget);
  QVERIFY(edit);
  edit->selectAll();
  QTest::keyClick(edit, Qt::Key_Backspace);
  QTest::keyClicks(edit, text);
}

QString messageOf(ExperimentEditor* editor, const std::string& path) {
  FieldBinding* b = editor->binding(path);
  return b ? b->messages().join(QLatin1Char('\n'))
           : QStringLiteral("<no field %1>").arg(QString::fromStdString(path));
}

}  // namespace

class EditorTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void everyKeyOfTheEngineHasAField() {
    ExperimentEditor editor;
    const nlohmann::json defaults = experimentToJson(Experiment{});
    for (auto section = defaults.begin(); section != defaults.end(); ++section) {
      if (!section->is_object()) {
        QVERIFY2(editor.binding(section.key()), section.key().c_str());
        continue;
      }
      for (auto key = section->begin(); key != section->end(); ++key) {
        const std::string path = section.key() + "." + key.key();
        QVERIFY2(!editor.bindingsFor(path).empty(), path.c_str());
      }
    }
    // The default experiment is what the form shows on a fresh start.
    QCOMPARE(editor.document(), defaults);
  }

  void fileToFormToFileRoundTrip() {
    QTemporaryDir dir;
    const QString in = dir.filePath(QStringLiteral("in.json"));
    nlohmann::json doc = test::tinyExperimentJson(dir.filePath(QStringLiteral("runs")), 4, 50, "round-trip");
    doc["optimizer"] = {
        {"name", "sgd"}, {"lr", 0.05}, {"momentum", 0.8}, {"nesterov", true}, {"weight_decay", 5e-4}};
    doc["schedule"] = {{"name", "multistep"}, {"milestones", {20, 40}}, {"gamma", 0.5}, {"warmup_steps", 3}};
    doc["model"] = {{"layers",
                     {{{"type", "flatten"}},
                      {{"type", "linear"}, {"out_features", 32}},
                      {{"type", "relu"}},
                      {{"type", "linear"}, {"out_features", 4}}}}};
    doc["train"]["early_stopping"] = {{"metric", "val_accuracy"}, {"patience", 2}};
    doc["train"]["devices"] = "cpu";
    writeJson(in, doc);

    MainWindow window(MainWindow::Options{false});
    QVERIFY(window.document()->openFile(in));
    ExperimentEditor* editor = window.editor();
    QVERIFY2(editor->issues().empty(), qPrintable(messageOf(editor, "")));
    const Experiment expected = parseExperiment(doc).experiment;
    // The form shows the file: the complete document equals the engine's own reading of the file.
    QCOMPARE(editor->document(), experimentToJson(expected));
    QCOMPARE(qobject_cast<QComboBox*>(editor->binding("optimizer.name")->input())->currentData().toString(),
             QStringLiteral("sgd"));
    QCOMPARE(qobject_cast<QLineEdit*>(editor->binding("optimizer.lr")->input())->text(),
             QStringLiteral("0.05"));
    QCOMPARE(qobject_cast<QLineEdit*>(editor->binding("schedule.milestones")->input())->text(),
             QStringLiteral("20, 40"));
    QVERIFY(qobject_cast<QCheckBox*>(editor->binding("train.early_stopping.enabled")->input())->isChecked());
    QVERIFY(!editor->isModified());

    // Edit through the widgets, save, and read the file back with the engine.
    qobject_cast<QSpinBox*>(editor->binding("train.batch_size")->input())->setValue(64);
    typeInto(editor->binding("optimizer.lr")->input(), QStringLiteral("3e-4"));
    auto* amp = qobject_cast<QComboBox*>(editor->binding("train.amp")->input());
    amp->setCurrentIndex(amp->findData(QStringLiteral("bf16")));
    QVERIFY(editor->isModified());
    QVERIFY(window.windowTitle().contains(QStringLiteral("in.json")));
    const QString out = dir.filePath(QStringLiteral("out.json"));
    QVERIFY(window.document()->saveFile(out));
    QVERIFY(!editor->isModified());
    const ParseResult saved = parseExperiment(readJson(out));
    QVERIFY2(saved.ok(), formatIssues(saved.issues).c_str());
    QCOMPARE(saved.experiment.train.batch_size, int64_t{64});
    QCOMPARE(saved.experiment.optimizer.lr, 3e-4);
    QVERIFY(saved.experiment.train.amp == Precision::Bf16);
    QCOMPARE(saved.experiment.schedule.milestones, (std::vector<int64_t>{20, 40}));
    QCOMPARE(saved.experiment.model.layers, expected.model.layers);
    QCOMPARE(saved.experiment.name, std::string("round-trip"));

    // And the saved file loads into a fresh window unchanged.
    MainWindow again(MainWindow::Options{false});
    QVERIFY(again.document()->openFile(out));
    QCOMPARE(again.editor()->document(), readJson(out));
  }

  // The choosers list the schema's words in its order, and a field shows exactly while the schema says it
  // matters (experiment_keys.h): the file, `keys` and the form read one table.
  void choosersAndShownFieldsFollowTheSchema() {
    MainWindow window(MainWindow::Options{false});
    ExperimentEditor* editor = window.editor();
    int choosers = 0;
    int conditioned = 0;
    for (const ExperimentKey& key : experimentKeys()) {
      FieldBinding* field = editor->binding(key.path);
      if (field == nullptr) field = editor->binding(key.path + "[0]");  // optimizer.betas: one field an item
      if (field == nullptr) continue;  // edited elsewhere (compress.*) or as JSON
      if (!key.choices.empty()) {
        auto* combo = qobject_cast<QComboBox*>(field->input());
        QVERIFY2(combo != nullptr, key.path.c_str());
        QStringList shown, wanted;
        for (int i = 0; i < combo->count(); ++i) shown << combo->itemData(i).toString();
        for (const std::string& choice : key.choices) wanted << QString::fromStdString(choice);
        QCOMPARE(shown, wanted);
        ++choosers;
      }
      if (key.applies_when.path.empty()) continue;
      auto* decider = qobject_cast<QComboBox*>(editor->binding(key.applies_when.path)->input());
      QVERIFY2(decider != nullptr, key.applies_when.path.c_str());
      for (int i = 0; i < decider->count(); ++i) {
        decider->setCurrentIndex(i);
        const std::string value = decider->itemData(i).toString().toStdString();
        QVERIFY2(field->row()->isHidden() != key.applies_when.heldBy(value),
                 (key.path + " while " + key.applies_when.path + " is " + value).c_str());
      }
      ++conditioned;
    }
    QVERIFY2(choosers >= 10, std::to_string(choosers).c_str());
    QVERIFY2(conditioned >= 30, std::to_string(conditioned).c_str());

    // What that means for a user, as torch.optim and torch.optim.lr_scheduler take their arguments.
    auto choose = [&](const std::string& path, const char* value) {
      auto* combo = qobject_cast<QComboBox*>(editor->binding(path)->input());
      combo->setCurrentIndex(combo->findData(QString::fromLatin1(value)));
    };
    auto shown = [&](const std::string& path) { return !editor->binding(path)->row()->isHidden(); };
    choose("optimizer.name", "sgd");
    QVERIFY(shown("optimizer.momentum") && shown("optimizer.nesterov"));
    QVERIFY(!shown("optimizer.betas[0]") && !shown("optimizer.eps") && !shown("optimizer.alpha"));
    choose("optimizer.name", "adamw");
    QVERIFY(shown("optimizer.betas[0]") && shown("optimizer.betas[1]") && shown("optimizer.eps"));
    QVERIFY(!shown("optimizer.momentum") && !shown("optimizer.nesterov"));
    choose("schedule.name", "cosine");
    QVERIFY(shown("schedule.t_max") && shown("schedule.eta_min") && !shown("schedule.gamma"));
    choose("data.dataset", "synthetic");
    QVERIFY(!shown("data.path") && shown("data.synthetic.shape") && !shown("data.label_column"));
  }

  // From an image folder back to Fashion-MNIST: the folder's path and the settings only an image folder reads
  // go back to their defaults (the path would be an error to clear by hand; the rest would stay unseen in the
  // file). What every dataset reads (the batch size, the validation share) stays as the user set it.
  void switchingTheDatasetForgetsTheOldOnesSettings() {
    MainWindow window(MainWindow::Options{false});
    ExperimentEditor* editor = window.editor();
    nlohmann::json doc = editor->document();
    doc["data"]["dataset"] = "image_folder";
    doc["data"]["path"] = "/srv/photos";
    doc["data"]["images"]["resize"] = 72;
    doc["data"]["images"]["bad_files"] = "skip";
    doc["data"]["val_fraction"] = 0.25;
    editor->setDocument(doc);
    auto* dataset = qobject_cast<QComboBox*>(editor->binding("data.dataset")->input());
    dataset->setCurrentIndex(dataset->findData(QStringLiteral("fashion-mnist")));
    const nlohmann::json after = editor->document();
    QCOMPARE(after["data"]["dataset"].get<std::string>(), std::string("fashion-mnist"));
    QCOMPARE(after["data"]["path"].get<std::string>(), std::string());
    QCOMPARE(after["data"]["images"]["resize"].get<int>(), 0);
    QCOMPARE(after["data"]["images"]["bad_files"].get<std::string>(), std::string("error"));
    QCOMPARE(after["data"]["val_fraction"].get<double>(), 0.25);
    QVERIFY(editor->isModified());
    QVERIFY(editor->experiment().has_value());
  }

  // train.amp bf16 on the CPU: the field says what bf16 costs on this machine's CPU (many times slower than
  // fp32 without AVX-512); not for fp32, and not when every device is a GPU.
  void theAmpFieldSaysWhatBf16CostsOnThisCpu() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    ExperimentEditor* editor = window.editor();
    auto* note = editor->findChild<QLabel*>(QStringLiteral("ampNote"));
    QVERIFY(note != nullptr);
    nlohmann::json doc = test::tinyExperimentJson(dir.filePath(QStringLiteral("runs")));
    editor->setDocument(doc);
    QVERIFY(note->isHidden());
    auto* amp = qobject_cast<QComboBox*>(editor->binding("train.amp")->input());
    amp->setCurrentIndex(amp->findData(QStringLiteral("bf16")));
    QVERIFY(!note->isHidden());
    const CpuBf16Cost cost = cpuBf16Cost(queryCpuFeatures());
    QVERIFY2(note->text().contains(QString::fromStdString(cost.summary)), qPrintable(note->text()));
    QCOMPARE(note->text().startsWith(QStringLiteral("⚠")), cost.slower_than_fp32);
    amp->setCurrentIndex(amp->findData(QStringLiteral("off")));
    QVERIFY(note->isHidden());
    doc["train"]["amp"] = "bf16";
    doc["train"]["devices"] = {"cuda:0"};
    editor->setDocument(doc);
    QVERIFY(note->isHidden());
  }

  void invalidInputIsFlaggedAtTheField() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false});
    QStringList shown;
    window.setErrorPresenter(
        [&shown](const QString& title, const QString&, const QString&) { shown << title; });
    window.show();
    ExperimentEditor* editor = window.editor();
    editor->setDocument(test::tinyExperimentJson(dir.path()));
    QVERIFY(editor->issues().empty());

    // The field holds only what the engine accepts (its range is the schema's): 0 comes only from a file,
    // which the form shows and flags.
    auto* batch = qobject_cast<QSpinBox*>(editor->binding("train.batch_size")->input());
    batch->setValue(0);
    QCOMPARE(batch->value(), 1);
    nlohmann::json zeroBatch = test::tinyExperimentJson(dir.path());
    zeroBatch["train"]["batch_size"] = 0;
    editor->setDocument(zeroBatch);
    typeInto(editor->binding("optimizer.lr")->input(), QStringLiteral("abc"));
    typeInto(editor->binding("optimizer.betas[1]")->input(), QStringLiteral("1.5"));
    editor->validateNow();

    QVERIFY2(messageOf(editor, "train.batch_size").contains(QStringLiteral("positive")),
             qPrintable(messageOf(editor, "train.batch_size")));
    QVERIFY2(messageOf(editor, "optimizer.lr").contains(QStringLiteral("abc")),
             qPrintable(messageOf(editor, "optimizer.lr")));
    QVERIFY2(messageOf(editor, "optimizer.betas[1]").contains(QStringLiteral("1.5")),
             qPrintable(messageOf(editor, "optimizer.betas[1]")));
    QVERIFY(!editor->binding("train.batch_size")->messageLabel()->isHidden());
    QVERIFY(messageOf(editor, "train.epochs").isEmpty());
    QCOMPARE(editor->issues().size(), size_t{3});

    // Start refuses, says so, and takes the user to the first field at fault.
    QVERIFY(!window.runActions()->startRun());
    QCOMPARE(shown.size(), 1);
    QVERIFY(!window.runActions()->controller()->isActive());

    // A layer list that is not even JSON is flagged at the layer list.
    auto* source = editor->findChild<QComboBox*>(QStringLiteral("modelSource"));
    QVERIFY(source);
    source->setCurrentIndex(1);
    auto* layers = qobject_cast<QPlainTextEdit*>(editor->binding("model.layers")->input());
    layers->setPlainText(QStringLiteral("[{\"type\": \"linear\", \"out_features\": 4},"));
    editor->validateNow();
    QVERIFY2(messageOf(editor, "model.layers").contains(QStringLiteral("JSON")),
             qPrintable(messageOf(editor, "model.layers")));

    // Fixing the fields clears the messages.
    source->setCurrentIndex(0);
    qobject_cast<QSpinBox*>(editor->binding("train.batch_size")->input())->setValue(32);
    typeInto(editor->binding("optimizer.lr")->input(), QStringLiteral("0.001"));
    typeInto(editor->binding("optimizer.betas[1]")->input(), QStringLiteral("0.999"));
    editor->validateNow();
    QVERIFY2(editor->issues().empty(), qPrintable(messageOf(editor, "optimizer.lr")));
    QVERIFY(editor->binding("train.batch_size")->messageLabel()->isHidden());

    // The engine's data check (run off the UI thread) flags a dataset folder that does not exist.
    auto* dataset = qobject_cast<QComboBox*>(editor->binding("data.dataset")->input());
    dataset->setCurrentIndex(dataset->findData(QStringLiteral("fashion-mnist")));
    typeInto(editor->binding("data.path")->input(), dir.filePath(QStringLiteral("no-such-folder")));
    editor->validateNow();
    QTRY_VERIFY_WITH_TIMEOUT(!messageOf(editor, "data.path").isEmpty(), 10000);
    QVERIFY(messageOf(editor, "data.path").contains(QStringLiteral("no-such-folder")));
  }

  // Each integer field's range is the engine's: its least and greatest values are accepted, one beyond is
  // refused (so the loader's workers cannot go below 0 as they once did under the wheel).
  void integerFieldsHoldOnlyWhatTheEngineAccepts() {
    ExperimentEditor editor;
    int checked = 0;
    for (const ExperimentKey& key : experimentKeys()) {
      FieldBinding* b = key.kind == ExperimentKeyKind::Integer ? editor.binding(key.path) : nullptr;
      auto* spin = b ? qobject_cast<QSpinBox*>(b->input()) : nullptr;
      if (!spin) continue;
      ++checked;
      // Beyond an edge the spin box has from int's range rather than the engine's, nothing is checked.
      std::vector<std::pair<int64_t, bool>> values{{spin->minimum(), true}, {spin->maximum(), true}};
      if (spin->minimum() == key.minimum) values.emplace_back(int64_t{spin->minimum()} - 1, false);
      if (spin->maximum() == key.maximum) values.emplace_back(int64_t{spin->maximum()} + 1, false);
      for (const auto& [value, accepted] : values) {
        const QString what = QStringLiteral("%1 = %2: the field's range is [%3, %4]")
                                 .arg(QString::fromStdString(key.path))
                                 .arg(value)
                                 .arg(spin->minimum())
                                 .arg(spin->maximum());
        if (accepted) {  // inside the schema's range (other keys' checks aside, such as epochs 0 with no max)
          QVERIFY2(value >= key.minimum && value <= key.maximum, qPrintable(what));
          continue;
        }
        nlohmann::json doc = nlohmann::json::object();
        setJsonAt(doc, key.path, value);
        const ParseResult parsed = parseExperiment(doc);
        bool flagged = false;
        for (const ValidationIssue& issue : parsed.issues) flagged = flagged || issue.path == key.path;
        QVERIFY2(flagged, qPrintable(what));
      }
    }
    QVERIFY(checked > 20);
    auto* workers = qobject_cast<QSpinBox*>(editor.binding("data.workers")->input());
    QCOMPARE(workers->minimum(), 0);
    workers->setValue(0);
    workers->stepDown();
    QCOMPARE(workers->value(), 0);
  }

  // The wheel over a field the user has not clicked into scrolls the form and leaves the value alone; once
  // the field has focus, the wheel steps it.
  void theWheelScrollsTheFormPastUnfocusedFields() {
    ExperimentEditor editor;
    editor.resize(420, 360);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    auto* limit = qobject_cast<QSpinBox*>(editor.binding("data.limit")->input());
    auto* dataset = qobject_cast<QComboBox*>(editor.binding("data.dataset")->input());
    QScrollArea* form = nullptr;
    for (QWidget* w = limit->parentWidget(); w && !form; w = w->parentWidget())
      form = qobject_cast<QScrollArea*>(w);
    QVERIFY(form && form->verticalScrollBar()->maximum() > 0);
    QCOMPARE(limit->focusPolicy(), Qt::StrongFocus);
    auto wheelOver = [](QWidget* widget, int delta = -120) {
      const QPointF at(widget->width() / 2.0, widget->height() / 2.0);
      QWheelEvent wheel(at, widget->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                        Qt::NoScrollPhase, false);
      QSpontaneKeyEvent::setSpontaneous(&wheel);  // as from the window system: it propagates when ignored
      // Through notify(): sendEvent() would mark the event as the program's own, which does not propagate.
      qApp->notify(widget, &wheel);
    };
    const int limitBefore = limit->value();
    const int datasetBefore = dataset->currentIndex();
    editor.setFocus();
    wheelOver(dataset);
    wheelOver(limit);
    QCOMPARE(dataset->currentIndex(), datasetBefore);
    QCOMPARE(limit->value(), limitBefore);
    QVERIFY(form->verticalScrollBar()->value() > 0);  // the form scrolled instead

    form->verticalScrollBar()->setValue(0);
    limit->setFocus();
    QTRY_VERIFY(limit->hasFocus());
    wheelOver(limit, 120);
    QCOMPARE(limit->value(), limitBefore + 1);
  }

  void learningRatePreviewFollowsTheSchedule() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    nlohmann::json doc = test::tinyExperimentJson(dir.path(), 3);
    editor.setDocument(doc);
    QTRY_VERIFY_WITH_TIMEOUT(!editor.checksPending() && editor.lrPreview()->pointCount() > 10, 10000);
    // 460 training samples / 32 = 15 steps per epoch, 3 epochs: the cosine reaches ~0 at the end.
    MetricChart* chart = editor.lrPreview()->chart();
    QVERIFY(chart->totalPointCount() > 10);
    QVERIFY(chart->yAxis->range().upper >= 0.003);
  }
};

QTEST_MAIN(EditorTest)
#include "editor_test.moc"
