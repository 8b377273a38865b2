// The editor's fields for fine-tuning: optimizer.param_groups as a table of groups and model.freeze as a
// choice — each shows the file's value, writes back exactly what it read unless edited, changes only the key
// an edit touches, and shows the engine's messages at the group (the cell) at fault.

#include <QApplication>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSpontaneKeyEvent>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "editor/experiment_editor.h"
#include "editor/freeze_binding.h"
#include "editor/param_groups_binding.h"
#include "gui_test_support.h"

using namespace wb;
using namespace wb::gui;

namespace {

using Groups = ParamGroupsBinding;

// The tiny MLP's parameters are layers.1.*, layers.4.* and layers.6.* (linear, linear, linear head).
nlohmann::json twoGroups() {
  return nlohmann::json::parse(R"([
    {"params": ["layers.1.*"], "lr_scale": 0.1},
    {"params": ["layers.4.*", "layers.6.weight"], "lr": 0.01, "weight_decay": 0}
  ])");
}

nlohmann::json documentWith(const QString& runsDir, const nlohmann::json& groups) {
  nlohmann::json doc = test::tinyExperimentJson(runsDir);
  doc["optimizer"]["param_groups"] = groups;
  return doc;
}

ParamGroupsBinding* groupsOf(ExperimentEditor& editor) {
  return dynamic_cast<ParamGroupsBinding*>(editor.binding("optimizer.param_groups"));
}

nlohmann::json groupsIn(const ExperimentEditor& editor) {
  return editor.document()["optimizer"]["param_groups"];
}

QString cell(ParamGroupsBinding* groups, int row, int column) {
  return groups->table()->item(row, column)->text();
}

// The line edit of a cell being edited (the table's delegate made it).
QLineEdit* openCell(QTableWidget* table, int row, int column) {
  return qobject_cast<QLineEdit*>(table->indexWidget(table->model()->index(row, column)));
}

// Types into a cell through the table's own editor, as a user does: the cell opens, the text replaces what
// was there, Return commits it.
void typeIntoCell(QTableWidget* table, int row, int column, const QString& text) {
  table->setCurrentCell(row, column);
  table->editItem(table->item(row, column));
  auto* edit = openCell(table, row, column);
  QVERIFY2(edit, "the cell opened no line edit");
  edit->selectAll();
  QTest::keyClick(edit, Qt::Key_Backspace);
  QTest::keyClicks(edit, text);
  QTest::keyClick(edit, Qt::Key_Return);
  QTRY_VERIFY(!openCell(table, row, column));  // the delegate commits on the next turn of the event loop
}

bool marked(ParamGroupsBinding* groups, int row, int column) {
  return groups->table()->item(row, column)->background().style() != Qt::NoBrush;
}

}  // namespace

class ParamGroupsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aDocumentWithTwoGroupsShowsThemAndRoundTrips() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    ParamGroupsBinding* groups = groupsOf(editor);
    QVERIFY(groups);
    // Written as the engine never writes it (no lr_scale at all, an unusual number) and kept exactly so.
    nlohmann::json written = twoGroups();
    written.push_back({{"params", {"layers.6.bias"}}});
    editor.setDocument(documentWith(dir.path(), written));
    QCOMPARE(groups->table()->rowCount(), 3);
    QCOMPARE(cell(groups, 0, Groups::Patterns), QStringLiteral("layers.1.*"));
    QCOMPARE(cell(groups, 0, Groups::LearningRate), QStringLiteral("0.1"));
    QCOMPARE(groups->rateKindOf(0)->currentIndex(), int{Groups::ScaleOfOptimizerLr});
    QCOMPARE(cell(groups, 0, Groups::WeightDecay), QString());
    QCOMPARE(cell(groups, 1, Groups::Patterns), QStringLiteral("layers.4.*, layers.6.weight"));
    QCOMPARE(cell(groups, 1, Groups::LearningRate), QStringLiteral("0.01"));
    QCOMPARE(groups->rateKindOf(1)->currentIndex(), int{Groups::AbsoluteLr});
    QCOMPARE(cell(groups, 1, Groups::WeightDecay), QStringLiteral("0"));
    QCOMPARE(cell(groups, 2, Groups::LearningRate), QString());  // lr_scale 1, the engine's default
    QCOMPARE(groupsIn(editor), written);
    QVERIFY(!editor.isModified());
    QTRY_VERIFY_WITH_TIMEOUT(!editor.checksPending(), 10000);
    QVERIFY2(editor.issues().empty(), qPrintable(groups->messages().join(QLatin1Char('\n'))));

    // No groups: the table makes way for a line saying what that means.
    editor.setDocument(documentWith(dir.path(), nlohmann::json::array()));
    QCOMPARE(groups->table()->rowCount(), 0);
    QCOMPARE(groupsIn(editor), nlohmann::json::array());
  }

  void editingACellChangesOnlyItsKey() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    editor.resize(460, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    ParamGroupsBinding* groups = groupsOf(editor);
    editor.setDocument(documentWith(dir.path(), twoGroups()));

    typeIntoCell(groups->table(), 0, Groups::LearningRate, QStringLiteral("0.5"));
    nlohmann::json expected = twoGroups();
    expected[0]["lr_scale"] = 0.5;
    QCOMPARE(groupsIn(editor), expected);
    QVERIFY(editor.isModified());

    typeIntoCell(groups->table(), 0, Groups::Patterns, QStringLiteral("layers.1.weight,  layers.1.bias ,"));
    expected[0]["params"] = {"layers.1.weight", "layers.1.bias"};
    QCOMPARE(groupsIn(editor), expected);

    // The rate's kind moves the number between lr and lr_scale; an empty weight decay is the optimizer's.
    groups->rateKindOf(1)->setCurrentIndex(Groups::ScaleOfOptimizerLr);
    expected[1].erase("lr");
    expected[1]["lr_scale"] = 0.01;
    QCOMPARE(groupsIn(editor), expected);
    typeIntoCell(groups->table(), 1, Groups::WeightDecay, QString());
    expected[1].erase("weight_decay");
    QCOMPARE(groupsIn(editor), expected);
    groups->rateKindOf(0)->setCurrentIndex(Groups::AbsoluteLr);
    typeIntoCell(groups->table(), 0, Groups::LearningRate, QStringLiteral("3e-4"));
    expected[0].erase("lr_scale");
    expected[0]["lr"] = 3e-4;
    QCOMPARE(groupsIn(editor), expected);
    editor.validateNow();
    QVERIFY(editor.experiment().has_value());
    QCOMPARE(editor.experiment()->optimizer.param_groups[0].lr, 3e-4);

    // The engine's checks end while the user types into a cell: marking the cell changes its item, and
    // what is typed stays (it was reset to the cell's old text, then committed unchanged).
    QTableWidget* table = groups->table();
    table->setCurrentCell(1, Groups::WeightDecay);
    table->editItem(table->item(1, Groups::WeightDecay));
    QLineEdit* open = openCell(table, 1, Groups::WeightDecay);
    QVERIFY(open);
    QTest::keyClicks(open, QStringLiteral("0.2"));
    editor.showEngineIssues({{"optimizer.param_groups[1].weight_decay", "a check's message"}});
    QVERIFY(marked(groups, 1, Groups::WeightDecay));
    QCOMPARE(open->text(), QStringLiteral("0.2"));
    QTest::keyClick(open, Qt::Key_Return);
    QTRY_VERIFY(!openCell(table, 1, Groups::WeightDecay));
    expected[1]["weight_decay"] = 0.2;
    QCOMPARE(groupsIn(editor), expected);

    // Closed with a cell still open: the cell commits as the window goes, after the form's fields are gone.
    table->editItem(table->item(0, Groups::Patterns));
    QVERIFY(openCell(table, 0, Groups::Patterns));
    QTest::keyClicks(openCell(table, 0, Groups::Patterns), QStringLiteral(", layers.4.bias"));
  }

  void groupsAreAddedAndRemoved() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    editor.resize(460, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    ParamGroupsBinding* groups = groupsOf(editor);
    editor.setDocument(documentWith(dir.path(), twoGroups()));

    QTest::mouseClick(groups->addButton(), Qt::LeftButton);
    QCOMPARE(groups->table()->rowCount(), 3);
    nlohmann::json expected = twoGroups();
    expected.push_back({{"params", nlohmann::json::array()}, {"lr_scale", 1}});
    QCOMPARE(groupsIn(editor), expected);
    QVERIFY(editor.isModified());
    // A group without patterns is the engine's error, at that group's patterns.
    editor.validateNow();
    QVERIFY(marked(groups, 2, Groups::Patterns));
    QVERIFY(!marked(groups, 1, Groups::Patterns));
    // Its patterns cell is open for typing.
    QLineEdit* edit = openCell(groups->table(), 2, Groups::Patterns);
    QVERIFY(edit);
    QTest::keyClicks(edit, QStringLiteral("layers.6.bias"));
    QTest::keyClick(edit, Qt::Key_Return);
    QTRY_VERIFY(!openCell(groups->table(), 2, Groups::Patterns));
    expected[2]["params"] = {"layers.6.bias"};
    QCOMPARE(groupsIn(editor), expected);

    groups->table()->selectRow(0);
    QVERIFY(groups->removeButton()->isEnabled());
    QTest::mouseClick(groups->removeButton(), Qt::LeftButton);
    expected.erase(0);
    QCOMPARE(groupsIn(editor), expected);
    QCOMPARE(groups->table()->rowCount(), 2);
    QCOMPARE(cell(groups, 0, Groups::Patterns), QStringLiteral("layers.4.*, layers.6.weight"));
    QCOMPARE(groups->rateKindOf(0)->currentIndex(), int{Groups::AbsoluteLr});
  }

  void aValueTheEngineRefusesIsFlaggedAtItsCell() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    ParamGroupsBinding* groups = groupsOf(editor);
    editor.setDocument(documentWith(dir.path(), twoGroups()));
    groups->table()->item(1, Groups::LearningRate)->setText(QStringLiteral("-1"));
    editor.validateNow();
    QVERIFY(!editor.experiment().has_value());
    const QString message = groups->messages().join(QLatin1Char('\n'));
    QVERIFY2(message.contains(QStringLiteral("optimizer.param_groups[1].lr")), qPrintable(message));
    QVERIFY(!groups->messageLabel()->isHidden());
    QVERIFY(marked(groups, 1, Groups::LearningRate));
    QVERIFY(!marked(groups, 1, Groups::Patterns));
    QVERIFY(!marked(groups, 0, Groups::LearningRate));
    QVERIFY2(groups->table()->item(1, Groups::LearningRate)->toolTip().contains(QStringLiteral("-1")),
             qPrintable(groups->table()->item(1, Groups::LearningRate)->toolTip()));
    // Going to the problem (a click in the list under the form) goes to its cell.
    editor.focusIssue("optimizer.param_groups[1].lr");
    QCOMPARE(groups->table()->currentRow(), 1);
    QCOMPARE(groups->table()->currentColumn(), int{Groups::LearningRate});
    // Text that is no number reaches the engine as typed, and the engine names it.
    groups->table()->item(1, Groups::WeightDecay)->setText(QStringLiteral("lots"));
    editor.validateNow();
    QVERIFY(marked(groups, 1, Groups::WeightDecay));
    QVERIFY(groups->table()->item(1, Groups::WeightDecay)->toolTip().contains(QStringLiteral("lots")));

    // Fixed, the marks go.
    groups->table()->item(1, Groups::LearningRate)->setText(QStringLiteral("0.02"));
    groups->table()->item(1, Groups::WeightDecay)->setText(QString());
    editor.validateNow();
    QVERIFY(!marked(groups, 1, Groups::LearningRate));
    QVERIFY(groups->messageLabel()->isHidden());

    // A pattern that picks no parameter of the model: the engine's check (off the UI thread) names it.
    groups->table()->item(0, Groups::Patterns)->setText(QStringLiteral("layer4.*"));
    editor.validateNow();
    QTRY_VERIFY_WITH_TIMEOUT(!groups->messages().isEmpty(), 10000);
    QVERIFY2(groups->messages().join(QString()).contains(QStringLiteral("matches no parameter")),
             qPrintable(groups->messages().join(QString())));
    QVERIFY(marked(groups, 0, Groups::Patterns));
    QVERIFY(!marked(groups, 1, Groups::Patterns));
  }

  void theTableFitsTheFormAndTheWheelPassesOver() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    editor.resize(430, 360);  // the form's dock at 1366x768
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    ParamGroupsBinding* groups = groupsOf(editor);
    editor.setDocument(documentWith(dir.path(), twoGroups()));
    QScrollArea* form = nullptr;
    for (QWidget* w = groups->table()->parentWidget(); w && !form; w = w->parentWidget())
      form = qobject_cast<QScrollArea*>(w);
    QVERIFY(form);
    QTabWidget* tabs = nullptr;
    for (QWidget* w = form->parentWidget(); w && !tabs; w = w->parentWidget())
      tabs = qobject_cast<QTabWidget*>(w);
    QVERIFY(tabs);
    tabs->setCurrentWidget(form);  // the optimizer's tab
    QTRY_VERIFY(groups->table()->isVisible());
    // No sideways scroll: the form's page fits its viewport, the columns fit the table.
    QVERIFY2(form->widget()->minimumSizeHint().width() <= form->viewport()->width(),
             qPrintable(QStringLiteral("%1 > %2")
                            .arg(form->widget()->minimumSizeHint().width())
                            .arg(form->viewport()->width())));
    QHeaderView* header = groups->table()->horizontalHeader();
    QVERIFY2(header->length() <= groups->table()->viewport()->width(),
             qPrintable(
                 QStringLiteral("%1 > %2").arg(header->length()).arg(groups->table()->viewport()->width())));
    QVERIFY(header->sectionSize(Groups::Patterns) >= 80);
    // Every row shows without a scroll of its own.
    QCOMPARE(groups->table()->verticalScrollBar()->maximum(), 0);

    // The wheel over a group's rate chooser scrolls the form and leaves the kind alone.
    QVERIFY(form->verticalScrollBar()->maximum() > 0);
    form->verticalScrollBar()->setValue(0);
    QComboBox* kind = groups->rateKindOf(0);
    QCOMPARE(kind->focusPolicy(), Qt::StrongFocus);
    const QPointF at(kind->width() / 2.0, kind->height() / 2.0);
    QWheelEvent wheel(at, kind->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QSpontaneKeyEvent::setSpontaneous(&wheel);
    qApp->notify(kind, &wheel);
    QCOMPARE(kind->currentIndex(), int{Groups::ScaleOfOptimizerLr});
    QCOMPARE(groupsIn(editor), twoGroups());
    QVERIFY(form->verticalScrollBar()->value() > 0);  // the form scrolled instead
  }

  // A problem in the last group, clicked in the list under the form while another tab shows (the optimizer's
  // never shown yet): its cell comes into view, not just the table's top.
  void goingToAProblemShowsItsCell() { goToCell(/*addRow=*/false); }

  // A group added on a short form: the row the user types into comes into view.
  void anAddedGroupComesIntoView() { goToCell(/*addRow=*/true); }

 private:
  void goToCell(bool addRow) {
    QTemporaryDir dir;
    ExperimentEditor editor;
    editor.resize(430, 300);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    ParamGroupsBinding* groups = groupsOf(editor);
    nlohmann::json bad = twoGroups();
    bad[1]["lr"] = -1;
    editor.setDocument(documentWith(dir.path(), bad));
    QScrollArea* form = nullptr;
    for (QWidget* w = groups->table()->parentWidget(); w && !form; w = w->parentWidget())
      form = qobject_cast<QScrollArea*>(w);
    QVERIFY(form && !form->isVisible());
    editor.focusIssue("optimizer.param_groups[1].lr");
    QVERIFY(form->isVisible());
    auto inView = [&](int row, int column) {
      const QRect rect = groups->table()->visualItemRect(groups->table()->item(row, column));
      const QRect inForm(groups->table()->viewport()->mapTo(form->viewport(), rect.topLeft()), rect.size());
      return form->viewport()->rect().contains(inForm);
    };
    auto where = [&] {
      return qPrintable(QStringLiteral("the form scrolled to %1 of %2")
                            .arg(form->verticalScrollBar()->value())
                            .arg(form->verticalScrollBar()->maximum()));
    };
    QTRY_VERIFY2(inView(1, Groups::LearningRate), where());
    if (!addRow) return;
    form->verticalScrollBar()->setValue(0);
    QVERIFY(!inView(1, Groups::LearningRate));
    groups->addRow();
    QTRY_VERIFY2(inView(2, Groups::Patterns), where());
  }

 private slots:
  void freezeIsAChoiceThatRoundTrips() {
    QTemporaryDir dir;
    ExperimentEditor editor;
    editor.resize(460, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    auto* freeze = dynamic_cast<FreezeBinding*>(editor.binding("model.freeze"));
    QVERIFY(freeze);
    auto* after = qobject_cast<QSpinBox*>(editor.binding("model.unfreeze.after_epochs")->input());
    auto* every = qobject_cast<QSpinBox*>(editor.binding("model.unfreeze.every_epochs")->input());
    QVERIFY(after && every);
    QCOMPARE(after->maximum(), 1000000);                         // the engine's range
    QCOMPARE(freeze->choice()->focusPolicy(), Qt::StrongFocus);  // the wheel passes over it unfocused

    nlohmann::json doc = test::tinyExperimentJson(dir.path());
    doc["model"]["freeze"] = "body";
    doc["model"]["unfreeze"] = {{"after_epochs", 2}, {"every_epochs", 0}};
    editor.setDocument(doc);
    QCOMPARE(freeze->choice()->currentIndex(), int{FreezeBinding::Body});
    QVERIFY(freeze->patterns()->isHidden());
    QCOMPARE(editor.document()["model"]["freeze"], nlohmann::json("body"));
    QCOMPARE(after->value(), 2);
    QVERIFY(after->isEnabled());
    QVERIFY(!editor.isModified());

    freeze->choice()->setCurrentIndex(FreezeBinding::Patterns);
    QVERIFY(!freeze->patterns()->isHidden());
    freeze->patterns()->setFocus();
    QTest::keyClicks(freeze->patterns(), QStringLiteral("layers.1.*, layers.4.*"));
    QCOMPARE(editor.document()["model"]["freeze"], nlohmann::json({"layers.1.*", "layers.4.*"}));
    freeze->choice()->setCurrentIndex(FreezeBinding::Nothing);
    QCOMPARE(editor.document()["model"]["freeze"], nlohmann::json::array());
    QVERIFY(!after->isEnabled());  // nothing frozen: nothing to thaw
    freeze->choice()->setCurrentIndex(FreezeBinding::Body);
    QCOMPARE(editor.document()["model"]["freeze"], nlohmann::json("body"));
    QVERIFY(!editor.isModified());  // back where the file was

    // Patterns the text could not give back as they are (a space inside one) stay as written.
    doc["model"]["freeze"] = {"layers.1.*", " layers.4.weight"};
    editor.setDocument(doc);
    QCOMPARE(freeze->choice()->currentIndex(), int{FreezeBinding::Patterns});
    QCOMPARE(editor.document()["model"]["freeze"], doc["model"]["freeze"]);

    // A pattern that picks nothing: the engine's message at the field.
    doc["model"]["freeze"] = {"layer1.*"};
    editor.setDocument(doc);
    QTRY_VERIFY_WITH_TIMEOUT(!freeze->messages().isEmpty(), 10000);
    QVERIFY2(freeze->messages().join(QString()).contains(QStringLiteral("layer1.*")),
             qPrintable(freeze->messages().join(QString())));
  }
};

QTEST_MAIN(ParamGroupsTest)
#include "param_groups_test.moc"
