// The Model tab for a model that starts from a trained one (issue 40): each layer says whether it trains
// (model.freeze as the run applies it), the layers carry torchvision's names, and the Weights section shows
// the engine's load report for model.weights — made off the UI thread, a refusal in red with the engine's
// words, a stale load never shown over a newer one.

#include <QLabel>
#include <QLocale>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

#include "editor/experiment_editor.h"
#include "gui_test_support.h"
#include "model_view/model_summary_view.h"
#include "window/main_window.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kModelTabTimeoutMs = 60000;

QString weightsFixture(const char* name) {
  return QStringLiteral(WB_SOURCE_DIR "/tests/fixtures/weights_load/") + QLatin1String(name);
}

// scripts/make_weights_load_fixtures.py's network under torchvision-style names (conv1, bn1, fc), on 1x4x4
// synthetic samples in 3 classes: its files have a 5-class head.
nlohmann::json tinyNamedJson(const QString& runsDir) {
  nlohmann::json doc = test::tinyExperimentJson(runsDir);
  doc["data"]["synthetic"] = {{"samples", 64}, {"classes", 3}, {"shape", {1, 4, 4}}};
  doc["model"] = {{"preset", ""},
                  {"layers",
                   {{{"type", "conv2d"}, {"out_channels", 4}, {"kernel_size", 3}, {"name", "conv1"}},
                    {{"type", "batchnorm2d"}, {"name", "bn1"}},
                    {{"type", "relu"}},
                    {{"type", "flatten"}},
                    {{"type", "linear"}, {"out_features", 3}, {"name", "fc"}}}}};
  return doc;
}

nlohmann::json fashionResnet18Json(const QString& runsDir) {
  nlohmann::json doc = test::tinyExperimentJson(runsDir);
  doc["data"] = {{"dataset", "fashion-mnist"}, {"path", WB_FASHION_MNIST_DIR}, {"limit", 200}};
  doc["model"] = {{"preset", "resnet18"}, {"freeze", "body"}};
  return doc;
}

// The table's rows by the name the Layer column shows (indentation dropped).
std::map<QString, int> rowsByName(QStandardItemModel* table) {
  std::map<QString, int> rows;
  for (int r = 0; r < table->rowCount(); ++r) rows[table->item(r, kModelLayerColumn)->text().trimmed()] = r;
  return rows;
}

QString cell(QStandardItemModel* table, int row, int column) {
  return table->item(row, column)->text();
}

}  // namespace

class ModelTabTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_dir;

  static bool settled(ModelSummaryView* tab) { return !tab->isComputing(); }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
  }

  // resnet18 with its body frozen: only torchvision's fc trains, row by row and in the totals; a pattern
  // freezes one conv of a block, which is then partly frozen.
  void frozenLayersAreShownByTheirTorchvisionNames() {
    MainWindow window(MainWindow::Options{false});
    ModelSummaryView* tab = window.modelView();
    window.editor()->setDocument(fashionResnet18Json(m_dir.path()));
    QTRY_VERIFY_WITH_TIMEOUT(settled(tab) && tab->tableModel()->rowCount() > 20, kModelTabTimeoutMs);
    QStandardItemModel* table = tab->tableModel();
    std::map<QString, int> rows = rowsByName(table);
    QVERIFY(rows.count(QStringLiteral("layer1.0.conv1")));
    QCOMPARE(cell(table, rows.at(QStringLiteral("conv1")), kModelTrainsColumn), QStringLiteral("frozen"));
    QCOMPARE(cell(table, rows.at(QStringLiteral("layer4.1")), kModelTrainsColumn), QStringLiteral("frozen"));
    QCOMPARE(cell(table, rows.at(QStringLiteral("fc")), kModelTrainsColumn), QStringLiteral("trains"));
    QCOMPARE(cell(table, rows.at(QStringLiteral("fc")), kModelParamsColumn), QStringLiteral("5,130"));
    QCOMPARE(cell(table, rows.at(QStringLiteral("2")), kModelTrainsColumn), QString());  // the relu
    const QString total = QLocale(QLocale::English, QLocale::UnitedStates)
                              .toString(static_cast<qlonglong>(tab->summary().total_parameters));
    QVERIFY2(
        tab->totalsText().contains(QStringLiteral("<b>%1</b> parameters, <b>5,130</b> trainable").arg(total)),
        qPrintable(tab->totalsText()));
    QVERIFY2(tab->weightsText().contains(QStringLiteral("fresh initialization")),
             qPrintable(tab->weightsText()));
    QVERIFY(!tab->weightsRefused());
    QVERIFY(tab->freezeIssuesText().isEmpty());

    nlohmann::json one_conv = fashionResnet18Json(m_dir.path());
    one_conv["model"]["freeze"] = {"layer1.0.conv1"};
    window.editor()->setDocument(one_conv);
    QTRY_VERIFY_WITH_TIMEOUT(settled(tab) && tab->summary().frozen_parameters == 64 * 64 * 9,
                             kModelTabTimeoutMs);
    rows = rowsByName(table);
    QCOMPARE(cell(table, rows.at(QStringLiteral("layer1.0")), kModelTrainsColumn),
             QStringLiteral("partly (36,864 frozen)"));
    QCOMPARE(cell(table, rows.at(QStringLiteral("layer1.0.conv1")), kModelTrainsColumn),
             QStringLiteral("frozen"));
    QCOMPARE(cell(table, rows.at(QStringLiteral("layer1.0.bn1")), kModelTrainsColumn),
             QStringLiteral("trains"));
    QCOMPARE(cell(table, rows.at(QStringLiteral("fc")), kModelTrainsColumn), QStringLiteral("trains"));

    // model.unfreeze: when they train again.
    one_conv["model"]["unfreeze"] = {{"after_epochs", 2}};
    window.editor()->setDocument(one_conv);
    QTRY_VERIFY_WITH_TIMEOUT(settled(tab) && tab->summary().rows.front().thaw_epoch == 0 &&
                                 cell(table, rowsByName(table).at(QStringLiteral("layer1.0.conv1")),
                                      kModelTrainsColumn) == QStringLiteral("frozen until epoch 3"),
                             kModelTabTimeoutMs);
    QCOMPARE(cell(table, rowsByName(table).at(QStringLiteral("layer1.0")), kModelTrainsColumn),
             QStringLiteral("partly (36,864 frozen until epoch 3)"));

    // A pattern that picks nothing: the engine's words in red above a table that still lists the names.
    nlohmann::json typo = fashionResnet18Json(m_dir.path());
    typo["model"]["freeze"] = {"layer9.*"};
    window.editor()->setDocument(typo);
    QTRY_VERIFY_WITH_TIMEOUT(settled(tab) && !tab->freezeIssuesText().isEmpty(), kModelTabTimeoutMs);
    QVERIFY2(tab->freezeIssuesText().contains(QStringLiteral("model.freeze[0]")),
             qPrintable(tab->freezeIssuesText()));
    QVERIFY(!tab->table()->isHidden());
    QCOMPARE(cell(table, rowsByName(table).at(QStringLiteral("conv1")), kModelTrainsColumn),
             QStringLiteral("trains"));
    QVERIFY2(tab->totalsText().contains(QStringLiteral("all trainable")), qPrintable(tab->totalsText()));
  }

  // model.weights: the load report (what loaded, the new head for 3 classes where the file has 5); another
  // architecture's file refused in red with the engine's message; no weights: a fresh initialization.
  void theWeightsSectionShowsTheLoadReportOrTheRefusal() {
    MainWindow window(MainWindow::Options{false});
    ModelSummaryView* tab = window.modelView();
    nlohmann::json doc = tinyNamedJson(m_dir.path());
    doc["model"]["weights"] = weightsFixture("tiny_named.safetensors").toStdString();
    doc["model"]["freeze"] = "body";
    window.editor()->setDocument(doc);
    QTRY_VERIFY_WITH_TIMEOUT(settled(tab) && tab->weightsText().contains(QStringLiteral("loaded")),
                             kModelTabTimeoutMs);
    const QString report = tab->weightsText();
    QVERIFY2(report.contains(QStringLiteral("loaded 7 of 9 tensors")), qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("tiny_named.safetensors")), qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("new head: 3 classes (the file's has 5)")), qPrintable(report));
    QVERIFY(!tab->weightsRefused());
    QVERIFY(!tab->weightsLabel()->isHidden());
    QVERIFY(tab->weightsLabel()->styleSheet().isEmpty());
    std::map<QString, int> rows = rowsByName(tab->tableModel());
    QCOMPARE(cell(tab->tableModel(), rows.at(QStringLiteral("conv1")), kModelTrainsColumn),
             QStringLiteral("frozen"));
    QCOMPARE(cell(tab->tableModel(), rows.at(QStringLiteral("bn1")), kModelTrainsColumn),
             QStringLiteral("frozen"));
    QCOMPARE(cell(tab->tableModel(), rows.at(QStringLiteral("fc")), kModelTrainsColumn),
             QStringLiteral("trains"));

    nlohmann::json other = doc;
    other["model"]["weights"] = weightsFixture("other_arch.safetensors").toStdString();
    window.editor()->setDocument(other);
    QTRY_VERIFY_WITH_TIMEOUT(settled(tab) && tab->weightsRefused(), kModelTabTimeoutMs);
    QVERIFY2(tab->weightsText().contains(QStringLiteral("other_arch.safetensors")),
             qPrintable(tab->weightsText()));
    QVERIFY2(tab->weightsText().contains(QStringLiteral("fc1.weight")), qPrintable(tab->weightsText()));
    QVERIFY(tab->weightsLabel()->styleSheet().contains(QStringLiteral("color")));
    QVERIFY(!tab->table()->isHidden());  // the table stays: the layers are fine, the file is not

    nlohmann::json none = doc;
    none["model"].erase("weights");
    window.editor()->setDocument(none);
    QTRY_VERIFY_WITH_TIMEOUT(
        settled(tab) && tab->weightsText().contains(QStringLiteral("fresh initialization")),
        kModelTabTimeoutMs);
    QVERIFY(!tab->weightsRefused());
    QVERIFY(tab->weightsLabel()->styleSheet().isEmpty());
  }

  // An edit while a load is in flight: the older load's answer is dropped, only the newest is shown.
  void aStaleLoadNeverOverwritesANewerOne() {
    MainWindow window(MainWindow::Options{false});
    ModelSummaryView* tab = window.modelView();
    QTRY_VERIFY_WITH_TIMEOUT(settled(tab), kModelTabTimeoutMs);
    QSignalSpy shown(tab, &ModelSummaryView::weightsShown);
    nlohmann::json refused = tinyNamedJson(m_dir.path());
    refused["model"]["weights"] = weightsFixture("other_arch.safetensors").toStdString();
    nlohmann::json loads = tinyNamedJson(m_dir.path());
    loads["model"]["weights"] = weightsFixture("tiny_named.safetensors").toStdString();
    window.editor()->setDocument(refused);
    tab->refreshNow();  // the refused file's load starts now
    window.editor()->setDocument(loads);
    tab->refreshNow();  // and this one while it is in flight
    QTRY_VERIFY_WITH_TIMEOUT(settled(tab) && tab->weightsText().contains(QStringLiteral("loaded")),
                             kModelTabTimeoutMs);
    QCOMPARE(shown.count(), 1);
    QVERIFY(!tab->weightsRefused());
  }
};

QTEST_MAIN(ModelTabTest)
#include "model_tab_test.moc"
