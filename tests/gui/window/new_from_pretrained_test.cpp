// File ▸ New from Pretrained…: the draft makes the experiment each training choice asks for; the dialog,
// filled as a user would, shows the folder's classes and the weights' load report (checked off the UI
// thread), and OK brings a new, unsaved experiment into the editor with the architecture, the weights, the
// image folder preprocessed for ImageNet weights and the choice of what trains; a weights file of another
// architecture or a damaged one is refused with the engine's message and OK stays disabled; no weights file
// means from scratch, where only the whole model can train.

#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QWidget>
#include <QtTest>
#include <map>

#include "editor/experiment_editor.h"
#include "window/experiment_document.h"
#include "window/new_from_pretrained_dialog.h"
#include "window/pretrained_draft.h"

using namespace wb;
using namespace wb::gui;

namespace {

// Building resnet18 and loading 47 MB into it, on a busy machine, in a debug build.
constexpr int kCheckTimeoutMs = 120000;

// `classes` subfolders of `files` small PNGs each, a colour per class.
QString writeImageFolder(const QDir& root, const QStringList& classes, int files) {
  const QString folder = root.filePath(QStringLiteral("photos"));
  for (int c = 0; c < classes.size(); ++c) {
    QDir(folder).mkpath(classes[c]);
    for (int i = 0; i < files; ++i) {
      QImage image(40, 32, QImage::Format_RGB32);
      image.fill(QColor::fromHsv(c * 120, 200, 100 + i * 40));
      image.save(QDir(folder).filePath(QStringLiteral("%1/%2.png").arg(classes[c]).arg(i)));
    }
  }
  return folder;
}

// torchvision's resnet18 (1000 classes) as a safetensors file of zeros: every tensor's name, shape and dtype
// from tests/fixtures/weights_load/resnet18_state_dict.json (scripts/make_pretrained_dialog_fixture.py).
QString writeResnet18Weights(const QDir& root) {
  QFile list(QStringLiteral(WB_SOURCE_DIR "/tests/fixtures/weights_load/resnet18_state_dict.json"));
  if (!list.open(QIODevice::ReadOnly)) return {};
  QJsonObject header;
  qint64 offset = 0;
  for (const QJsonValue& value :
       QJsonDocument::fromJson(list.readAll()).object().value("tensors").toArray()) {
    const QJsonObject tensor = value.toObject();
    qint64 bytes = tensor.value("dtype").toString() == QStringLiteral("I64") ? 8 : 4;
    for (const QJsonValue& side : tensor.value("shape").toArray()) bytes *= side.toInteger();
    header.insert(tensor.value("name").toString(),
                  QJsonObject{{"dtype", tensor.value("dtype")},
                              {"shape", tensor.value("shape")},
                              {"data_offsets", QJsonArray{offset, offset + bytes}}});
    offset += bytes;
  }
  QByteArray text = QJsonDocument(header).toJson(QJsonDocument::Compact);
  text.append(QByteArray((8 - text.size() % 8) % 8, ' '));
  QFile out(root.filePath(QStringLiteral("r18.safetensors")));
  if (!out.open(QIODevice::WriteOnly)) return {};
  const quint64 length = static_cast<quint64>(text.size());
  QByteArray prefix(8, '\0');
  for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  out.write(prefix + text);
  out.write(QByteArray(static_cast<qsizetype>(offset), '\0'));
  return out.fileName();
}

// The document's window and editor, as the window has them.
struct PretrainedFixture {
  QWidget window;
  ExperimentEditor* editor = new ExperimentEditor(&window);
  QStringList errors;
  ExperimentDocument document{editor, &window,
                              [this](const QString& title, const QString& message, const QString&) {
                                errors << title + QStringLiteral(": ") + message;
                              }};

  // File ▸ New from Pretrained…, as the menu triggers it.
  NewFromPretrainedDialog* open() {
    document.newFromPretrainedAction()->trigger();
    return window.findChild<NewFromPretrainedDialog*>();
  }
};

template <typename T>
T* child(QWidget* dialog, const char* name) {
  return dialog->findChild<T*>(QString::fromLatin1(name));
}

// Types the choices in (their check follows off the UI thread: wait with settled()).
void fill(NewFromPretrainedDialog* dialog, const QString& weights, const QString& folder) {
  child<QLineEdit>(dialog, "pretrainedWeights")->setText(weights);
  child<QLineEdit>(dialog, "pretrainedFolder")->setText(folder);
}

bool settled(NewFromPretrainedDialog* dialog) {
  return !dialog->isChecking();
}

QString problemText(NewFromPretrainedDialog* dialog) {
  QLabel* problem = child<QLabel>(dialog, "pretrainedProblem");
  return problem->isVisibleTo(dialog) ? problem->text() : QString();
}

}  // namespace

class NewFromPretrainedTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_folder = writeImageFolder(QDir(m_dir.path()), {QStringLiteral("cats"), QStringLiteral("dogs")}, 3);
    m_weights = writeResnet18Weights(QDir(m_dir.path()));
    QVERIFY2(!m_weights.isEmpty(), "could not write the resnet18 weights");
  }

  // The architectures are the torchvision presets, in the word table's order.
  void theArchitecturesAreTorchvisions() {
    std::vector<std::string> words;
    for (ModelPreset preset : pretrainedArchitectures()) words.push_back(wordString(preset));
    QCOMPARE(words, (std::vector<std::string>{"resnet18", "resnet50", "vit_b_16", "mobilenet_v3_large",
                                              "efficientnet_b0", "convnext_tiny"}));
  }

  // Each training choice in the experiment's own keys, and the result is an experiment the engine accepts.
  void theDraftWritesEachTrainingChoice() {
    PretrainedDraft draft;
    draft.architecture = ModelPreset::Resnet50;
    draft.weights = "/w/r50.safetensors";
    draft.image_folder = "/data/photos";
    draft.head = "fc";
    const nlohmann::json head = experimentToJson(draft.experiment());
    QCOMPARE(head["model"]["freeze"], nlohmann::json("body"));
    QVERIFY(head["optimizer"]["param_groups"].empty());
    QCOMPARE(head["data"]["images"]["normalize"], nlohmann::json("imagenet"));
    QCOMPARE(head["data"]["images"]["resize"], nlohmann::json(256));
    QCOMPARE(head["data"]["images"]["crop"], nlohmann::json(224));
    draft.training = PretrainedTraining::BodySlower;
    const Experiment slower = draft.experiment();
    QVERIFY(!slower.model.freeze_body);
    QCOMPARE(slower.optimizer.param_groups.size(), size_t(1));
    QCOMPARE(slower.optimizer.param_groups[0].params, std::vector<std::string>{"fc.*"});
    QCOMPARE(slower.optimizer.param_groups[0].lr_scale * slower.optimizer.lr, Experiment().optimizer.lr);
    draft.training = PretrainedTraining::Whole;
    QVERIFY(draft.experiment().optimizer.param_groups.empty());
    QVERIFY(!draft.experiment().model.freeze_body);
    // Without weights nothing is frozen, whatever the choice says.
    draft.training = PretrainedTraining::Head;
    draft.weights.clear();
    QVERIFY(!draft.experiment().model.freeze_body);
    for (const Experiment& e : {slower, draft.experiment()}) {
      const ParseResult parsed = parseExperiment(experimentToJson(e));
      QVERIFY2(parsed.ok(), formatIssues(parsed.issues).c_str());
    }
  }

  // The head each architecture's body-slower group picks: torchvision's classifier module, found in the model
  // summary (no weights needed).
  void everyArchitectureNamesItsHead() {
    const std::map<std::string, std::string> heads = {{"resnet18", "fc"},
                                                      {"resnet50", "fc"},
                                                      {"vit_b_16", "heads.head"},
                                                      {"mobilenet_v3_large", "classifier.3"},
                                                      {"efficientnet_b0", "classifier.1"},
                                                      {"convnext_tiny", "classifier.2"}};
    for (ModelPreset preset : pretrainedArchitectures()) {
      PretrainedDraft draft;
      draft.architecture = preset;
      draft.image_folder = m_folder.toStdString();
      const PretrainedCheck check = checkPretrained(draft);
      QVERIFY2(check.ok(), (check.folder_problem + check.model_problem).c_str());
      QCOMPARE(check.head, heads.at(wordString(preset)));
      QCOMPARE(check.class_names, (std::vector<std::string>{"cats", "dogs"}));
    }
  }

  // Filled as a user would: the classes and the load report appear, and OK brings the experiment in.
  void okBringsTheFineTuneIntoTheEditor() {
    PretrainedFixture f;
    NewFromPretrainedDialog* dialog = f.open();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    fill(dialog, m_weights, m_folder);
    child<QRadioButton>(dialog, "pretrainedTrainBodySlower")->click();
    QTRY_VERIFY_WITH_TIMEOUT(settled(dialog), kCheckTimeoutMs);
    QVERIFY2(problemText(dialog).isEmpty(), qPrintable(problemText(dialog)));
    const QString classes = child<QLabel>(dialog, "pretrainedClasses")->text();
    QVERIFY2(classes.contains(QStringLiteral("2 classes")) && classes.contains(QStringLiteral("cats (3)")),
             qPrintable(classes));
    const QString report = child<QPlainTextEdit>(dialog, "pretrainedReport")->toPlainText();
    QVERIFY2(report.contains(QStringLiteral("r18.safetensors")) &&
                 report.contains(QStringLiteral("new head: 2 classes (the file's has 1000)")),
             qPrintable(report));
    QPushButton* create = child<QPushButton>(dialog, "pretrainedCreate");
    QVERIFY(create && create->isEnabled());
    QSignalSpy broughtIn(&f.document, &ExperimentDocument::broughtIn);
    create->click();

    const nlohmann::json doc = f.editor->document();
    QCOMPARE(doc["model"]["preset"], nlohmann::json("resnet18"));
    QCOMPARE(doc["model"]["weights"], nlohmann::json(QFileInfo(m_weights).absoluteFilePath().toStdString()));
    QCOMPARE(doc["data"]["dataset"], nlohmann::json("image_folder"));
    QCOMPARE(doc["data"]["path"], nlohmann::json(QFileInfo(m_folder).absoluteFilePath().toStdString()));
    QCOMPARE(doc["data"]["images"]["normalize"], nlohmann::json("imagenet"));
    QCOMPARE(doc["data"]["images"]["resize"], nlohmann::json(256));
    QCOMPARE(doc["data"]["images"]["crop"], nlohmann::json(224));
    QCOMPARE(doc["optimizer"]["param_groups"][0]["params"], nlohmann::json({"fc.*"}));
    QCOMPARE(doc["optimizer"]["param_groups"][0]["lr_scale"], nlohmann::json(10.0));
    // A new document, as an example comes in: untitled, so Save asks where.
    QVERIFY(f.document.file().isEmpty());
    QVERIFY(f.window.windowTitle().startsWith(QStringLiteral("Untitled")));
    QCOMPARE(broughtIn.count(), 1);
    QVERIFY(broughtIn.at(0).at(0).toString().contains(QStringLiteral("resnet18")));
    QVERIFY(f.errors.isEmpty());
  }

  // Weights of another architecture, a file that is no weights file and one cut short: the engine's message,
  // OK disabled, nothing crashes.
  void aWrongWeightsFileIsRefused() {
    const QString garbage = QDir(m_dir.path()).filePath(QStringLiteral("broken.safetensors"));
    QFile out(garbage);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write("\xff\xff\xff\xff\xff\xff\xff\x7fnot a weights file");
    out.close();
    // resnet18's header whole, its data cut short: the sizes the header promises are not there.
    const QString truncated = QDir(m_dir.path()).filePath(QStringLiteral("truncated.safetensors"));
    QFile whole(m_weights);
    QFile cut(truncated);
    QVERIFY(whole.open(QIODevice::ReadOnly) && cut.open(QIODevice::WriteOnly));
    cut.write(whole.read(64 * 1024));
    cut.close();
    const QString otherArch =
        QStringLiteral(WB_SOURCE_DIR "/tests/fixtures/weights_load/other_arch.safetensors");
    PretrainedFixture f;
    NewFromPretrainedDialog* dialog = f.open();
    QVERIFY(dialog);
    for (const QString& weights : {otherArch, garbage, truncated}) {
      fill(dialog, weights, m_folder);
      QTRY_VERIFY_WITH_TIMEOUT(settled(dialog), kCheckTimeoutMs);
      const QString problem = problemText(dialog);
      QVERIFY2(
          problem.startsWith(QStringLiteral("Weights: ")) && problem.contains(QFileInfo(weights).fileName()),
          qPrintable(problem));
      QPushButton* create = child<QPushButton>(dialog, "pretrainedCreate");
      QVERIFY2(create && !create->isEnabled(), qPrintable(weights));
    }
  }

  // No weights file: from scratch, where only the whole model trains; a folder that is not there is named.
  void withoutWeightsTheWholeModelTrainsFromScratch() {
    PretrainedFixture f;
    NewFromPretrainedDialog* dialog = f.open();
    QVERIFY(dialog);
    QVERIFY(!child<QRadioButton>(dialog, "pretrainedTrainHead")->isEnabled());
    QVERIFY(child<QRadioButton>(dialog, "pretrainedTrainWhole")->isChecked());
    fill(dialog, QString(), QDir(m_dir.path()).filePath(QStringLiteral("missing")));
    QTRY_VERIFY_WITH_TIMEOUT(settled(dialog), kCheckTimeoutMs);
    QVERIFY2(problemText(dialog).startsWith(QStringLiteral("Image folder: ")),
             qPrintable(problemText(dialog)));
    fill(dialog, QString(), m_folder);
    QTRY_VERIFY_WITH_TIMEOUT(settled(dialog), kCheckTimeoutMs);
    QVERIFY2(problemText(dialog).isEmpty(), qPrintable(problemText(dialog)));
    QVERIFY(child<QPlainTextEdit>(dialog, "pretrainedReport")
                ->toPlainText()
                .contains(QStringLiteral("from scratch")));
    const Experiment e = dialog->experiment();
    QVERIFY(e.model.weights.empty());
    QVERIFY(!e.model.freeze_body);
    QVERIFY(e.optimizer.param_groups.empty());
  }

  // Not while a run shows its experiment in the form, as New and Open.
  void followsWhetherTheExperimentMayChange() {
    PretrainedFixture f;
    f.document.setChangeAllowed(false);
    QVERIFY(!f.document.newFromPretrainedAction()->isEnabled());
    f.document.setChangeAllowed(true);
    QVERIFY(f.document.newFromPretrainedAction()->isEnabled());
  }

 private:
  QTemporaryDir m_dir;
  QString m_folder;
  QString m_weights;
};

QTEST_MAIN(NewFromPretrainedTest)
#include "new_from_pretrained_test.moc"
