// The Data tab and a run on the user's own images in the window: the tab shows an image folder's classes with
// their counts, the model's input, the preprocessing, the loader's workers and one sample per class after
// preprocessing, following the editor; the Model tab follows the input size; a bad folder is named in the
// tab; a CNN trains on the folder with loader workers and the evaluation's mistakes are the user's files.

#include <QListWidget>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cstdlib>

#include "../support/image_folder.h"
#include "data_view/data_preview_view.h"
#include "editor/experiment_editor.h"
#include "gui_test_support.h"
#include "model_view/model_summary_view.h"
#include "window/main_window.h"

using namespace wb;
using namespace wb::gui;

namespace {

constexpr int kPreviewTimeoutMs = 30000;
constexpr int kRunTimeoutMs = 240000;

nlohmann::json imageFolderJson(const QString& folder, const QString& runsDir) {
  nlohmann::json doc = gui::test::tinyExperimentJson(runsDir, 2, 0, "garments");
  doc["data"] = {{"dataset", "image_folder"},
                 {"path", folder.toStdString()},
                 {"val_fraction", 0.2},
                 {"test_fraction", 0.25},
                 {"workers", 2},
                 {"images", {{"resize", 36}, {"crop", 32}}},
                 {"augment", {{"enabled", true}}}};
  doc["model"] = {{"preset", "cnn"}};
  doc["train"]["batch_size"] = 16;
  return doc;
}

}  // namespace

class DataTabTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_folder = m_dir.filePath(QStringLiteral("garments"));
    wb::test::makeGarmentFolder(m_folder.toStdString(), 12);
  }

  void dataTabShowsTheFolderAndFollowsTheEditor() {
    MainWindow window(MainWindow::Options{false});
    DataPreviewView* tab = window.dataView();
    window.editor()->setDocument(imageFolderJson(m_folder, m_dir.filePath(QStringLiteral("runs"))));
    QTRY_VERIFY_WITH_TIMEOUT(!tab->isComputing() && tab->classTable()->rowCount() == 10, kPreviewTimeoutMs);
    QCOMPARE(tab->classTable()->item(0, 0)->text(), QStringLiteral("Ankle_boot"));
    QCOMPARE(tab->classTable()->item(1, 1)->text(), QStringLiteral("12"));
    QCOMPARE(tab->sampleStrip()->count(), 10);  // one per class, after preprocessing
    QCOMPARE(tab->sampleStrip()->item(0)->icon().isNull(), false);
    QVERIFY2(tab->sampleStrip()->item(0)->toolTip().contains(QStringLiteral("32 × 32 after preprocessing")),
             qPrintable(tab->sampleStrip()->item(0)->toolTip()));
    for (const char* part : {"3 × 32 × 32", "2 workers", "RandomResizedCrop(32)", "10 classes"}) {
      QVERIFY2(tab->summaryText().contains(QString::fromUtf8(part)), qPrintable(tab->summaryText()));
    }
    // The Model tab follows the input size.
    ModelSummaryView* model = window.modelView();
    QTRY_VERIFY_WITH_TIMEOUT(
        !model->isComputing() && model->summary().input_shape == (std::vector<int64_t>{3, 32, 32}),
        kPreviewTimeoutMs);

    // Another crop: both follow.
    nlohmann::json bigger = imageFolderJson(m_folder, m_dir.filePath(QStringLiteral("runs")));
    bigger["data"]["images"]["crop"] = 28;
    bigger["data"]["workers"] = 0;
    window.editor()->setDocument(bigger);
    QTRY_VERIFY_WITH_TIMEOUT(
        !tab->isComputing() && tab->summaryText().contains(QStringLiteral("3 × 28 × 28")), kPreviewTimeoutMs);
    QVERIFY2(tab->summaryText().contains(QStringLiteral("0 workers")), qPrintable(tab->summaryText()));
    QTRY_VERIFY_WITH_TIMEOUT(
        !model->isComputing() && model->summary().input_shape == (std::vector<int64_t>{3, 28, 28}),
        kPreviewTimeoutMs);

    // A folder that is not there: named in the tab, nothing stale shown.
    nlohmann::json missing = bigger;
    missing["data"]["path"] = m_dir.filePath(QStringLiteral("nowhere")).toStdString();
    window.editor()->setDocument(missing);
    QTRY_VERIFY_WITH_TIMEOUT(!tab->isComputing() && tab->summaryText().contains(QStringLiteral("nowhere")),
                             kPreviewTimeoutMs);
    QVERIFY(tab->classTable()->isHidden());
  }

  void windowTrainsOnTheFolderWithWorkers() {
    MainWindow window(MainWindow::Options{false});
    window.show();
    QSignalSpy ended(&window, &MainWindow::runEnded);
    ParseResult parsed = parseExperiment(imageFolderJson(m_folder, m_dir.filePath(QStringLiteral("runs"))));
    QVERIFY2(parsed.ok(), formatIssues(parsed.issues).c_str());
    QVERIFY(window.runActions()->startExperiment(parsed.experiment));
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kRunTimeoutMs);
    const auto summary = ended.front().front().value<RunSummary>();
    QCOMPARE(summary.status, RunStatus::Completed);
    QVERIFY(summary.test_accuracy >= 0.0);
    QCOMPARE(summary.steps, int64_t{2 * 5});  // 72 training files, batch 16: 5 steps an epoch
  }

 private:
  QTemporaryDir m_dir;
  QString m_folder;
};

QTEST_MAIN(DataTabTest)
#include "data_tab_test.moc"
