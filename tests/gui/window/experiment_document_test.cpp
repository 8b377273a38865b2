// The experiment file as a document, without the window: opening a file puts it in the editor and names it in
// the title; saving writes the editor's JSON and clears the unsaved mark; an unreadable file or run folder is
// refused with the reason and leaves the document as it was; a run's experiment comes in untitled; New, Open
// and Open Recent follow whether the experiment may change.

#include "window/experiment_document.h"

#include <QAction>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QWidget>
#include <QtTest>
#include <fstream>

#include "editor/experiment_editor.h"
#include "editor/field_binding.h"
#include "gui_test_support.h"

using namespace wb;
using namespace wb::gui;

namespace {

void writeJson(const QString& file, const nlohmann::json& doc) {
  std::ofstream(file.toStdString()) << doc.dump(2);
}

nlohmann::json readJson(const QString& file) {
  std::ifstream in(file.toStdString());
  return nlohmann::json::parse(in);
}

// The document's window and editor, and the problems it told the user of.
struct Fixture {
  QWidget window;
  ExperimentEditor* editor = new ExperimentEditor(&window);
  QStringList errors;
  ExperimentDocument document{editor, &window,
                              [this](const QString& title, const QString& message, const QString&) {
                                errors << title + QStringLiteral(": ") + message;
                              }};
};

}  // namespace

class ExperimentDocumentTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void anOpenedFileIsInTheEditorAndTheTitle() {
    QTemporaryDir dir;
    Fixture f;
    QVERIFY2(f.window.windowTitle().startsWith(QStringLiteral("Untitled[*]")),
             qPrintable(f.window.windowTitle()));
    const QString file = dir.filePath(QStringLiteral("spirals.json"));
    writeJson(file, test::tinyExperimentJson(dir.path(), 3, 0, "spirals"));
    QSignalSpy status(&f.document, &ExperimentDocument::statusMessage);
    QVERIFY(f.document.openFile(file));
    QCOMPARE(f.document.file(), QFileInfo(file).absoluteFilePath());
    QCOMPARE(f.editor->document().value("name", std::string()), std::string("spirals"));
    QCOMPARE(f.window.windowTitle(), QStringLiteral("spirals.json[*] (spirals) — Torch Workbench"));
    QVERIFY(!f.window.isWindowModified());
    QCOMPARE(status.count(), 1);
    QVERIFY(f.errors.isEmpty());
  }

  // An unnamed experiment: the title has no empty "()", and the Name field's placeholder says what its runs
  // will be called, following the model and the data.
  void anUnnamedExperimentsTitleAndNamePlaceholder() {
    QTemporaryDir dir;
    Fixture f;
    f.editor->setDocument(test::tinyExperimentJson(dir.path(), 1, 0, ""));
    f.editor->validateNow();
    QCOMPARE(f.window.windowTitle(), QStringLiteral("Untitled[*] — Torch Workbench"));
    auto* name = qobject_cast<QLineEdit*>(f.editor->binding("name")->input());
    QVERIFY(name);
    QTRY_VERIFY2(name->placeholderText().contains(QStringLiteral("(mlp-synthetic-0001")),
                 qPrintable(name->placeholderText()));
    nlohmann::json doc = f.editor->document();
    doc["model"]["preset"] = "cnn";
    doc["data"]["synthetic"]["shape"] = {1, 28, 28};
    f.editor->setDocument(doc);
    f.editor->validateNow();
    QTRY_VERIFY2(name->placeholderText().contains(QStringLiteral("(cnn-synthetic-0001")),
                 qPrintable(name->placeholderText()));
  }

  void savingWritesTheEditorsJsonAndClearsTheUnsavedMark() {
    QTemporaryDir dir;
    Fixture f;
    nlohmann::json doc = test::tinyExperimentJson(dir.path(), 3, 0, "edited");
    f.editor->setDocument(doc);
    qobject_cast<QSpinBox*>(f.editor->binding("train.batch_size")->input())->setValue(64);
    QVERIFY(f.editor->isModified());
    QVERIFY(f.window.isWindowModified());
    const QString file = dir.filePath(QStringLiteral("edited.json"));
    QVERIFY(f.document.saveFile(file));
    QCOMPARE(readJson(file), f.editor->document());
    QCOMPARE(readJson(file)["train"]["batch_size"].get<int>(), 64);
    QVERIFY(!f.editor->isModified());
    QVERIFY(!f.window.isWindowModified());
    QCOMPARE(f.document.file(), QFileInfo(file).absoluteFilePath());
    QVERIFY(f.window.windowTitle().startsWith(QStringLiteral("edited.json[*]")));
    // Saved as it is, with what the engine would refuse said, not hidden.
    doc["trian"] = 1;
    f.editor->setDocument(doc);
    QSignalSpy unknown(&f.document, &ExperimentDocument::savedWithUnknownKeys);
    QVERIFY(f.document.save());
    QCOMPARE(unknown.count(), 1);
    QVERIFY(unknown.front().front().toString().contains(QStringLiteral("\"trian\"")));
    QVERIFY(readJson(file).contains("trian"));
  }

  void anUnreadableFileIsRefusedAndTheDocumentStays() {
    QTemporaryDir dir;
    Fixture f;
    const QString good = dir.filePath(QStringLiteral("good.json"));
    writeJson(good, test::tinyExperimentJson(dir.path()));
    QVERIFY(f.document.openFile(good));
    const QString broken = dir.filePath(QStringLiteral("broken.json"));
    QFile out(broken);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write("{\"name\": \"tiny\",}");
    out.close();
    QVERIFY(!f.document.openFile(broken));
    QVERIFY(!f.document.openFile(dir.filePath(QStringLiteral("missing.json"))));
    QCOMPARE(f.errors.size(), 2);
    QVERIFY2(f.errors.front().startsWith(QStringLiteral("Could not open broken.json")),
             qPrintable(f.errors.front()));
    QCOMPARE(f.document.file(), QFileInfo(good).absoluteFilePath());
    QVERIFY(f.window.windowTitle().startsWith(QStringLiteral("good.json[*]")));
  }

  void aRunsExperimentComesInUntitled() {
    QTemporaryDir dir;
    Fixture f;
    const QString file = dir.filePath(QStringLiteral("named.json"));
    writeJson(file, test::tinyExperimentJson(dir.path()));
    QVERIFY(f.document.openFile(file));
    const QString run = dir.filePath(QStringLiteral("run-0001"));
    QVERIFY(QDir().mkpath(run));
    writeJson(run + QStringLiteral("/experiment.json"), test::tinyExperimentJson(dir.path(), 7, 0, "cloned"));
    QSignalSpy broughtIn(&f.document, &ExperimentDocument::broughtIn);
    f.document.cloneRun(run);
    QCOMPARE(broughtIn.count(), 1);
    QVERIFY(broughtIn.front().front().toString().contains(QStringLiteral("run-0001")));
    QVERIFY(f.document.file().isEmpty());
    QCOMPARE(f.editor->document()["train"]["epochs"].get<int>(), 7);
    QCOMPARE(f.window.windowTitle(), QStringLiteral("Untitled[*] (cloned) — Torch Workbench"));

    // A folder without an experiment, or an editor a run has locked: nothing changes, and the user is told.
    f.document.cloneRun(dir.filePath(QStringLiteral("nothing-here")));
    f.editor->setLocked(QStringLiteral("a run is training"));
    f.document.cloneRun(run);
    QCOMPARE(f.errors.size(), 2);
    QVERIFY(f.errors.front().startsWith(QStringLiteral("Could not clone the run")));
    QVERIFY(f.errors.back().startsWith(QStringLiteral("A run is training")));
    QCOMPARE(broughtIn.count(), 1);
  }

  void newOpenAndRecentFollowWhetherTheExperimentMayChange() {
    Fixture f;
    f.document.setChangeAllowed(false);
    QVERIFY(!f.document.newAction()->isEnabled());
    QVERIFY(!f.document.openAction()->isEnabled());
    QVERIFY(!f.document.recentMenu()->menuAction()->isEnabled());
    QVERIFY(f.document.saveAction()->isEnabled());  // saving what the form shows is always possible
    f.document.setChangeAllowed(true);
    QVERIFY(f.document.newAction()->isEnabled());
    QVERIFY(f.document.openAction()->isEnabled());
    QVERIFY(f.document.recentMenu()->menuAction()->isEnabled());
  }
};

QTEST_MAIN(ExperimentDocumentTest)
#include "experiment_document_test.moc"
