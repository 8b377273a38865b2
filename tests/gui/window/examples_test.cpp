// File ▸ New from Example and the window's own icons: every installed example is offered with its description
// and opens as a new, unsaved experiment (saving never writes over the installed file); the run controls and
// menu actions carry icons, ours compiled in where the desktop theme has none.

#include "workbench/examples.h"

#include <QAction>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QToolBar>
#include <QToolButton>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "app/action_icons.h"
#include "editor/experiment_editor.h"
#include "window/examples_menu.h"
#include "window/experiment_document.h"
#include "window/main_window.h"

using namespace wb;
using namespace wb::gui;

namespace {

QByteArray readAll(const QString& file) {
  QFile f(file);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QAction* menuAction(QMainWindow& window, const QString& menuTitle, const QString& text) {
  for (QAction* top : window.menuBar()->actions()) {
    if (top->text().remove(QLatin1Char('&')) != menuTitle || !top->menu()) continue;
    for (QAction* a : top->menu()->actions()) {
      if (a->text().remove(QLatin1Char('&')) == text) return a;
    }
  }
  return nullptr;
}

}  // namespace

class ExamplesTest : public QObject {
  Q_OBJECT

 private slots:
  void fileMenuOffersEveryExampleWithItsDescription() {
    MainWindow window(MainWindow::Options{false});
    auto* menu = window.findChild<ExamplesMenu*>(QStringLiteral("newFromExampleMenu"));
    QVERIFY(menu);
    QCOMPARE(menuAction(window, QStringLiteral("File"), QStringLiteral("New from Example")),
             menu->menuAction());
    const std::vector<ExampleInfo> examples = listExamples();
    QVERIFY(examples.size() >= 6);
    QCOMPARE(menu->actions().size(), static_cast<int>(examples.size()));
    for (size_t i = 0; i < examples.size(); ++i) {
      QAction* action = menu->actions()[static_cast<int>(i)];
      QCOMPARE(action->text(), QStringLiteral("&%1 ").arg(i + 1) + QString::fromStdString(examples[i].title));
      QCOMPARE(action->toolTip(), QString::fromStdString(examples[i].description));
      QVERIFY(!action->toolTip().isEmpty());
    }
  }

  void choosingAnExampleOpensItUnsavedAndSaveWritesElsewhere() {
    MainWindow window(MainWindow::Options{false});
    auto* menu = window.findChild<ExamplesMenu*>(QStringLiteral("newFromExampleMenu"));
    QVERIFY(menu);
    const std::optional<ExampleInfo> csv = findExample("csv-spirals", listExamples());
    QVERIFY(csv);
    const QByteArray installed = readAll(QString::fromStdString(csv->file));
    QVERIFY(!installed.isEmpty());

    QAction* action = menu->findChild<QAction*>(QStringLiteral("example-csv-spirals"));
    QVERIFY(action);
    action->trigger();
    const nlohmann::json doc = window.editor()->document();
    QCOMPARE(QString::fromStdString(doc["name"].get<std::string>()), QStringLiteral("example-csv-spirals"));
    // The data path is absolute: the example trains from any folder and its copy saved anywhere finds its
    // data.
    const std::string data = doc["data"]["path"];
    QVERIFY2(QDir::isAbsolutePath(QString::fromStdString(data)), data.c_str());
    QVERIFY(QFile::exists(QString::fromStdString(data)));
    QVERIFY(window.document()->file().isEmpty());  // unsaved: Save asks where (File ▸ Save As…)

    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("my-spirals.json"));
    QVERIFY(window.document()->saveFile(copy));
    QCOMPARE(window.document()->file(), copy);
    QVERIFY(readAll(copy).contains("example-csv-spirals"));
    QCOMPARE(readAll(QString::fromStdString(csv->file)), installed);  // the installed example is untouched
  }

  void everyExampleOpensInTheEditorWithoutProblems() {
    MainWindow window(MainWindow::Options{false});
    auto* menu = window.findChild<ExamplesMenu*>(QStringLiteral("newFromExampleMenu"));
    QVERIFY(menu);
    for (QAction* action : menu->actions()) {
      action->trigger();
      const nlohmann::json doc = window.editor()->document();
      QCOMPARE(QString::fromStdString(doc["name"].get<std::string>()),
               QStringLiteral("example-") + action->data().toString());
      const ParseResult parsed = parseExperiment(doc);
      QVERIFY2(parsed.ok(), formatIssues(parsed.issues).c_str());
    }
  }

  void runControlsAndMenusHaveIcons() {
    MainWindow window(MainWindow::Options{false});
    const QStringList withIcons = {QStringLiteral("File/New"),
                                   QStringLiteral("File/Open…"),
                                   QStringLiteral("File/Save"),
                                   QStringLiteral("File/Save As…"),
                                   QStringLiteral("File/Quit"),
                                   QStringLiteral("Run/Start"),
                                   QStringLiteral("Run/Pause"),
                                   QStringLiteral("Run/Stop"),
                                   QStringLiteral("Run/Checkpoint now"),
                                   QStringLiteral("Compress/Prune…"),
                                   QStringLiteral("Compress/Quantize to int8…"),
                                   QStringLiteral("Compress/Distill…"),
                                   QStringLiteral("Compress/Pipeline…"),
                                   QStringLiteral("Help/About Torch Workbench")};
    for (const QString& path : withIcons) {
      const QStringList parts = path.split(QLatin1Char('/'));
      QAction* action = menuAction(window, parts[0], parts[1]);
      QVERIFY2(action, qPrintable(path));
      QVERIFY2(!action->icon().isNull(), qPrintable(path));
      QVERIFY2(!action->icon().pixmap(16, 16).isNull(), qPrintable(path));
    }
    // The toolbar's run controls show their icons (text beside them).
    auto* bar = window.findChild<QToolBar*>(QStringLiteral("runToolbar"));
    QVERIFY(bar);
    QVERIFY(bar->toolButtonStyle() != Qt::ToolButtonTextOnly);
    int iconButtons = 0;
    for (QToolButton* button : bar->findChildren<QToolButton*>()) {
      if (button->defaultAction() && !button->defaultAction()->icon().isNull()) ++iconButtons;
    }
    QVERIFY(iconButtons >= 4);
    QVERIFY(!QApplication::windowIcon().isNull() || !applicationIcon().isNull());
  }

  void bundledIconsAreCompiledInAndRender() {
    for (const char* name :
         {"start", "pause", "resume", "stop", "checkpoint", "resume-run", "new", "new-from-example", "open",
          "save", "save-as", "export", "prune", "quantize", "distill", "compress", "quit", "about"}) {
      const QIcon icon = bundledActionIcon(QString::fromLatin1(name));
      QVERIFY2(!icon.isNull(), name);
      const QImage image = icon.pixmap(24, 24).toImage();
      QVERIFY2(!image.isNull(), name);
      // Something is drawn: not every pixel transparent.
      bool drawn = false;
      for (int y = 0; y < image.height() && !drawn; ++y) {
        for (int x = 0; x < image.width() && !drawn; ++x) drawn = qAlpha(image.pixel(x, y)) > 0;
      }
      QVERIFY2(drawn, name);
    }
    QVERIFY(bundledActionIcon(QStringLiteral("no-such-icon")).isNull());
    QVERIFY(!applicationIcon().pixmap(64, 64).isNull());
  }
};

QTEST_MAIN(ExamplesTest)
#include "examples_test.moc"
