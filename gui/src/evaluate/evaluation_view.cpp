#include "evaluate/evaluation_view.h"

#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "evaluate/confusion_matrix_widget.h"
#include "evaluate/misclassified_grid.h"

namespace wb::gui {
namespace {

constexpr int kMistakesShown = 48;

QString groupedCount(long long value) {
  return QLocale(QLocale::English, QLocale::UnitedStates).toString(value);
}
QString percent(double fraction) {
  return QStringLiteral("%1 %").arg(fraction * 100, 0, 'f', 2);
}

QTableWidgetItem* numberCell(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

// The per-class figures: one row per class and the macro average, each column's meaning in its tip.
QTableWidget* makeClassTable(QWidget* parent) {
  auto* table = new QTableWidget(0, kEvalColumns, parent);
  table->setObjectName(QStringLiteral("classTable"));
  table->setHorizontalHeaderLabels({EvaluationView::tr("Class"), EvaluationView::tr("Precision"),
                                    EvaluationView::tr("Recall"), EvaluationView::tr("F1"),
                                    EvaluationView::tr("Support")});
  table->horizontalHeaderItem(kEvalPrecisionColumn)
      ->setToolTip(EvaluationView::tr("Of the samples predicted as this class, the share that are"));
  table->horizontalHeaderItem(kEvalRecallColumn)
      ->setToolTip(EvaluationView::tr("Of the samples of this class, the share predicted as it"));
  table->horizontalHeaderItem(kEvalF1Column)
      ->setToolTip(EvaluationView::tr("Harmonic mean of precision and recall"));
  table->horizontalHeaderItem(kEvalSupportColumn)
      ->setToolTip(EvaluationView::tr("Test samples of this class"));
  table->verticalHeader()->setVisible(false);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setAlternatingRowColors(true);
  table->horizontalHeader()->setStretchLastSection(true);
  return table;
}

}  // namespace

EvaluationView::EvaluationView(QWidget* parent)
    : QWidget(parent), m_controller(new EvaluationController(this)) {
  setObjectName(QStringLiteral("evaluationView"));
  QHBoxLayout* header = buildHeader();
  QSplitter* report = buildReport();

  // The report's least size (ten classes' matrix over the mistakes' grid) is taller than a laptop screen's
  // room for a tab: inside a scroll area it scrolls instead of raising the window's minimum height, which
  // pushed the status bar and the bottom docks off a 1366x768 screen.
  auto* content = new QWidget;
  content->setObjectName(QStringLiteral("evaluationContent"));
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(8, 8, 8, 8);
  layout->addLayout(header);
  layout->addWidget(m_summary);
  layout->addWidget(report, 1);
  auto* scroll = new QScrollArea(this);
  scroll->setObjectName(QStringLiteral("evaluationScroll"));
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll);

  connect(m_cancel, &QPushButton::clicked, this, &EvaluationView::cancel);
  connect(m_controller, &EvaluationController::progress, this, &EvaluationView::onProgress);
  connect(m_controller, &EvaluationController::finished, this, &EvaluationView::onFinished);
  showEmpty(
      tr("Choose a finished run in the Runs panel and Evaluate it (Run ▸ Evaluate Run…, or right-click the "
         "run): its test accuracy, per-class figures, confusion matrix and mistakes appear here."));
}

// What is evaluated and how far it got: the title with the progress and Cancel beside it, and the summary
// line (placed under the header by the caller).
QHBoxLayout* EvaluationView::buildHeader() {
  m_title = new QLabel(this);
  m_title->setObjectName(QStringLiteral("evaluationTitle"));
  QFont titleFont = m_title->font();
  titleFont.setBold(true);
  titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
  m_title->setFont(titleFont);
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("evaluationSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_progress = new QProgressBar(this);
  m_progress->setObjectName(QStringLiteral("evaluationProgress"));
  m_progress->setMaximumWidth(280);
  m_progress->hide();
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setObjectName(QStringLiteral("evaluationCancel"));
  m_cancel->hide();

  auto* header = new QHBoxLayout;
  header->addWidget(m_title, 1);
  header->addWidget(m_progress);
  header->addWidget(m_cancel);
  return header;
}

// The report: the per-class table beside the confusion matrix, over the grid of misclassified samples.
QSplitter* EvaluationView::buildReport() {
  m_classes = makeClassTable(this);

  m_matrix = new ConfusionMatrixWidget(this);

  m_gridTitle = new QLabel(this);
  m_gridTitle->setObjectName(QStringLiteral("misclassifiedTitle"));
  m_grid = new MisclassifiedGrid(this);

  auto* top = new QSplitter(Qt::Horizontal, this);
  top->setChildrenCollapsible(false);
  top->addWidget(m_classes);
  top->addWidget(m_matrix);
  top->setStretchFactor(0, 2);
  top->setStretchFactor(1, 3);
  auto* bottom = new QWidget(this);
  auto* bottomLayout = new QVBoxLayout(bottom);
  bottomLayout->setContentsMargins(0, 4, 0, 0);
  bottomLayout->addWidget(m_gridTitle);
  bottomLayout->addWidget(m_grid, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->setChildrenCollapsible(false);
  split->addWidget(top);
  split->addWidget(bottom);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  return split;
}

bool EvaluationView::evaluate(const QString& runDir, const QString& model) {
  if (m_controller->isActive()) {
    m_summary->setText(tr("An evaluation of %1 is running: wait for it, or Cancel it first.")
                           .arg(QDir(m_controller->runDir()).dirName()));
    return false;
  }
  m_runDir = runDir;
  const QString run = QDir(runDir).dirName();
  const QString what = model.isEmpty() ? run : run + QStringLiteral(" · ") + model;
  m_title->setText(tr("Evaluation of %1").arg(what));
  m_summary->setText(tr("Loading the run's test split and model…"));
  m_progress->setRange(0, 0);  // busy until the first batch reports a total
  m_progress->show();
  m_cancel->setEnabled(true);
  m_cancel->show();
  m_controller->start(runDir, model, kMistakesShown);
  emit evaluationStarted(runDir);
  return true;
}

void EvaluationView::cancel() {
  if (!m_controller->isActive()) return;
  m_controller->cancel();
  m_cancel->setEnabled(false);
  m_summary->setText(tr("Cancelling after the batch in flight…"));
}

void EvaluationView::onProgress(qint64 done, qint64 total) {
  if (total <= 0) return;
  m_progress->setRange(0, static_cast<int>(total));
  m_progress->setValue(static_cast<int>(done));
  m_progress->setFormat(tr("%1 of %2 test samples").arg(groupedCount(done), groupedCount(total)));
  m_summary->setText(tr("Evaluating on the test split…"));
}

void EvaluationView::onFinished(const EvaluationOutcome& outcome) {
  m_progress->hide();
  m_cancel->hide();
  if (outcome.report) {
    m_report = outcome.report;
    showReport(*m_report);
    emit evaluationFinished(true, QString(), QString());
    return;
  }
  m_report.reset();
  if (outcome.cancelled) {
    showEmpty(tr("Evaluation cancelled."));
    emit evaluationFinished(false, QString(), QString());
    return;
  }
  showEmpty(tr("Could not evaluate %1: %2").arg(QDir(outcome.runDir).dirName(), outcome.error) +
            (outcome.hint.isEmpty() ? QString() : tr("\nWhat to do: %1").arg(outcome.hint)));
  emit evaluationFinished(false, outcome.error, outcome.hint);
}

void EvaluationView::showEmpty(const QString& text) {
  m_summary->setText(text);
  m_classes->setRowCount(0);
  m_matrix->clear();
  m_grid->clear();
  m_gridTitle->clear();
}

void EvaluationView::showReport(const EvaluationReport& r) {
  // One case per TaskKind and no default: a new task whose report has no view yet is a compiler warning here.
  switch (r.task) {
    case TaskKind::Classification:
      showClassificationReport(r);
      return;
  }
}

void EvaluationView::showClassificationReport(const EvaluationReport& r) {
  const ClassificationFigures& f = r.figures;
  m_summary->setText(
      tr("Test accuracy <b>%1</b> (%2 of %3) · test loss %4 · macro precision %5, recall %6, F1 %7 · "
         "%8 misclassified%9")
          .arg(percent(f.accuracy), groupedCount(f.correct), groupedCount(f.samples))
          .arg(r.loss, 0, 'f', 4)
          .arg(f.macro_precision, 0, 'f', 4)
          .arg(f.macro_recall, 0, 'f', 4)
          .arg(f.macro_f1, 0, 'f', 4)
          .arg(groupedCount(r.misclassified_total))
          .arg(r.dataset.empty() ? QString()
                                 : tr(" · %1 test split").arg(QString::fromStdString(r.dataset))));

  QStringList names;
  for (const std::string& name : r.class_names) names << QString::fromStdString(name);
  m_classes->setRowCount(static_cast<int>(f.classes.size()) + 1);
  for (int row = 0; row < static_cast<int>(f.classes.size()); ++row) {
    const ClassFigures& c = f.classes[static_cast<size_t>(row)];
    m_classes->setItem(row, kEvalClassColumn, new QTableWidgetItem(QString::fromStdString(c.name)));
    m_classes->setItem(row, kEvalPrecisionColumn, numberCell(QString::number(c.precision, 'f', 4)));
    m_classes->setItem(row, kEvalRecallColumn, numberCell(QString::number(c.recall, 'f', 4)));
    m_classes->setItem(row, kEvalF1Column, numberCell(QString::number(c.f1, 'f', 4)));
    m_classes->setItem(row, kEvalSupportColumn, numberCell(groupedCount(c.support)));
  }
  const int macro = static_cast<int>(f.classes.size());
  auto* macroName = new QTableWidgetItem(tr("Macro average"));
  QFont bold = macroName->font();
  bold.setBold(true);
  macroName->setFont(bold);
  m_classes->setItem(macro, kEvalClassColumn, macroName);
  m_classes->setItem(macro, kEvalPrecisionColumn, numberCell(QString::number(f.macro_precision, 'f', 4)));
  m_classes->setItem(macro, kEvalRecallColumn, numberCell(QString::number(f.macro_recall, 'f', 4)));
  m_classes->setItem(macro, kEvalF1Column, numberCell(QString::number(f.macro_f1, 'f', 4)));
  m_classes->setItem(macro, kEvalSupportColumn, numberCell(groupedCount(f.samples)));
  for (int c = kEvalPrecisionColumn; c < kEvalColumns; ++c) m_classes->item(macro, c)->setFont(bold);
  m_classes->resizeColumnsToContents();

  m_matrix->setMatrix(f.confusion, names);
  m_grid->setSamples(r.misclassified, names);
  if (r.misclassified.empty()) {
    m_gridTitle->setText(r.misclassified_total == 0 ? tr("No test sample is misclassified.") : QString());
  } else {
    m_gridTitle->setText(
        tr("The %1 most confident mistakes (of %2): the predicted class with its probability, and "
           "the true class. Test images as the dataset holds them.")
            .arg(r.misclassified.size())
            .arg(groupedCount(r.misclassified_total)));
  }
}

}  // namespace wb::gui
