// The editor marks each field left at its default, with the defaults of the optimizer chosen (torch.optim's).

#include <QLabel>
#include <QStandardPaths>
#include <QtTest>

#include "editor/experiment_editor.h"

using namespace wb;
using namespace wb::gui;

class DefaultMarksTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aFreshFormIsAllDefaults() {
    ExperimentEditor editor;
    for (const char* path : {"train.epochs", "data.augment.enabled", "schedule.name", "optimizer.momentum",
                             "optimizer.betas[1]", "data.val_fraction"}) {
      FieldBinding* b = editor.binding(path);
      QVERIFY2(b, path);
      QVERIFY2(b->isAtDefault(), path);
      QVERIFY2(!b->defaultMark()->isHidden(), path);
      QVERIFY2(b->defaultMark()->toolTip().contains(QString::fromLatin1(path)), path);
    }
  }

  void changedValuesAndAnotherOptimizersDefaultsAreNotMarked() {
    ExperimentEditor editor;
    nlohmann::json doc = experimentToJson(Experiment{});
    doc["train"]["epochs"] = 3;
    doc["optimizer"]["name"] = "sgd";  // AdamW's weight decay 0.01 stays: SGD's own default is 0
    editor.setDocument(doc);
    QVERIFY(!editor.binding("train.epochs")->isAtDefault());
    QVERIFY(editor.binding("train.epochs")->defaultMark()->isHidden());
    QVERIFY(!editor.binding("optimizer.weight_decay")->isAtDefault());
    QVERIFY(editor.binding("optimizer.momentum")->isAtDefault());
    QVERIFY(editor.binding("optimizer.weight_decay")
                ->defaultMark()
                ->toolTip()
                .contains(QStringLiteral("The default, 0")));

    doc["optimizer"]["weight_decay"] = 0;
    editor.setDocument(doc);
    QVERIFY(editor.binding("optimizer.weight_decay")->isAtDefault());
  }
};

QTEST_MAIN(DefaultMarksTest)
#include "default_marks_test.moc"
