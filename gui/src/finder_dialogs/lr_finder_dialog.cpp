#include "finder_dialogs/lr_finder_dialog.h"

#include <qcustomplot.h>

#include <QDialogButtonBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "finder_dialogs/finder_frame.h"
#include "widgets/screen_fit.h"
#include "workbench/run_info.h"

namespace wb::gui {
namespace {

constexpr int kLrFinderDrainMs = 50;  // the curve grows at most 20 times a second, however fast the steps are

QString lrText(double lr) {
  return QString::number(lr, 'g', 3);
}

}  // namespace

LrFinderDialog::LrFinderDialog(const Experiment& experiment, std::function<bool(double)> apply,
                               QWidget* parent)
    : QDialog(parent),
      m_experiment(experiment),
      m_applyLr(std::move(apply)),
      m_job(this, kLrFinderDrainMs,
            {[this](auto points, auto log) { onStaged(points, log); },
             [this](auto outcome) { onFinished(std::move(outcome)); },
             [this](bool running) { onRunningChanged(running); }}) {
  setObjectName(QStringLiteral("lrFinderDialog"));
  setWindowTitle(tr("Find Learning Rate — %1").arg(QString::fromStdString(experimentRunName(experiment))));
  auto* layout = new QVBoxLayout(this);

  auto* intro = new QLabel(
      tr("Trains a fresh copy of the model (the run's seed, data, optimizer %1, device %2, batch %3) while "
         "the "
         "learning rate grows exponentially, and stops once the loss diverges. Nothing is written and the "
         "experiment is not changed until you apply the suggestion.")
          .arg(QString::fromStdString(wordString(experiment.optimizer.name)),
               QString::fromStdString(experiment.train.devices.empty() ? "cpu"
                                                                       : experiment.train.devices.front()))
          .arg(experiment.train.batch_size),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  auto* form = new QFormLayout;
  form->setFormAlignment(Qt::AlignLeft);
  auto* range = new QHBoxLayout;
  m_start = new QLineEdit(QStringLiteral("1e-7"), this);
  m_end = new QLineEdit(QStringLiteral("10"), this);
  for (QLineEdit* edit : {m_start, m_end}) {
    auto* validator = new QDoubleValidator(1e-12, 1e6, 12, edit);
    validator->setNotation(QDoubleValidator::ScientificNotation);
    edit->setValidator(validator);
    edit->setMaximumWidth(90);
  }
  m_start->setObjectName(QStringLiteral("lrStart"));
  m_end->setObjectName(QStringLiteral("lrEnd"));
  range->addWidget(m_start);
  range->addWidget(new QLabel(tr("to"), this));
  range->addWidget(m_end);
  range->addStretch(1);
  form->addRow(tr("Learning rate from"), range);
  m_steps = new QSpinBox(this);
  m_steps->setObjectName(QStringLiteral("lrSteps"));
  m_steps->setRange(10, 10000);
  m_steps->setValue(100);
  m_steps->setSuffix(tr(" steps"));
  form->addRow(tr("Sweep over"), m_steps);
  const FinderControls controls =
      addFinderControls(this, layout, form, QStringLiteral("lr"), tr("&Cancel Test"));
  m_run = controls.run;
  m_cancel = controls.cancel;
  m_progress = controls.progress;

  buildPlot();
  layout->addWidget(m_plot, 1);

  const FinderFooter footer = addFinderFooter(this, layout, QStringLiteral("lr"),
                                              tr("Run the test to see the loss against the learning rate."));
  m_summary = footer.summary;
  m_log = footer.log;
  m_apply = footer.apply;
  m_apply->setToolTip(tr("Sets optimizer.lr in the form to the suggested learning rate."));

  connect(m_run, &QPushButton::clicked, this, &LrFinderDialog::start);
  connect(m_cancel, &QPushButton::clicked, this, &LrFinderDialog::cancel);
  connect(m_apply, &QPushButton::clicked, this, &LrFinderDialog::applySuggestion);
  fitDialogToScreen(this, QSize(720, 640));
}

// The loss (raw and smoothed) against the learning rate on a log axis, and the suggestion's marker.
void LrFinderDialog::buildPlot() {
  m_plot = new QCustomPlot(this);
  m_plot->setObjectName(QStringLiteral("lrFinderPlot"));
  m_plot->setMinimumSize(560, 320);
  m_plot->xAxis->setLabel(tr("learning rate (log scale)"));
  m_plot->yAxis->setLabel(tr("training loss"));
  m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
  m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  m_plot->xAxis->setNumberFormat(QStringLiteral("eb"));
  m_plot->xAxis->setNumberPrecision(0);
  m_plot->xAxis->setRange(1e-7, 10);
  m_plot->yAxis->setRange(0, 3);
  const QPalette pal = palette();
  m_raw = m_plot->addGraph();
  m_raw->setName(tr("loss"));
  QColor rawColor = pal.color(QPalette::WindowText);
  rawColor.setAlpha(90);
  m_raw->setPen(QPen(rawColor, 1));
  m_smoothed = m_plot->addGraph();
  m_smoothed->setName(tr("smoothed (EMA 0.98)"));
  m_smoothed->setPen(QPen(QColor(31, 119, 180), 2));
  m_marker = m_plot->addGraph();
  m_marker->setName(tr("suggested"));
  m_marker->setLineStyle(QCPGraph::lsNone);
  m_marker->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(214, 39, 40), QColor(214, 39, 40), 9));
  m_markerLine = new QCPItemStraightLine(m_plot);
  m_markerLine->setPen(QPen(QColor(214, 39, 40), 1, Qt::DashLine));
  m_markerLine->setVisible(false);
  m_markerText = new QCPItemText(m_plot);
  m_markerText->setColor(QColor(214, 39, 40));
  m_markerText->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  m_markerText->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_markerText->position->setCoords(0.02, 0.03);
  m_markerText->setVisible(false);
  m_plot->legend->setVisible(true);
  m_plot->legend->setBrush(QBrush(pal.color(QPalette::Base)));
  m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
}

void LrFinderDialog::applySuggestion() {
  if (!m_result || m_result->suggestion.rule == LrSuggestionRule::None) return;
  if (m_applyLr && m_applyLr(m_result->suggestion.lr)) {
    m_summary->setText(m_summary->text() +
                       tr("\nApplied: optimizer.lr is now %1 in the form (not saved yet).")
                           .arg(lrText(m_result->suggestion.lr)));
  } else {
    QMessageBox::information(
        this, tr("Cannot apply now"),
        tr("The form takes no edits while a run trains. Set optimizer.lr to %1 once it ends.")
            .arg(lrText(m_result->suggestion.lr)));
  }
}

// The worker holds its own share of the staging area and a copy of the experiment: the job cancels it, and it
// ends after its step.
LrFinderDialog::~LrFinderDialog() = default;

void LrFinderDialog::start() {
  if (m_job.isRunning()) return;
  LrFinderOptions options;
  options.steps = m_steps->value();
  bool startOk = false, endOk = false;
  options.start_lr = m_start->text().toDouble(&startOk);
  options.end_lr = m_end->text().toDouble(&endOk);
  if (!startOk || !endOk || !(options.start_lr > 0) || !(options.end_lr > options.start_lr)) {
    m_summary->setText(
        tr("The learning-rate range needs two positive numbers, the second larger (e.g. 1e-7 to 10)."));
    return;
  }
  m_points.clear();
  m_result.reset();
  m_raw->data()->clear();
  m_smoothed->data()->clear();
  m_marker->data()->clear();
  m_markerLine->setVisible(false);
  m_markerText->setVisible(false);
  m_plot->xAxis->setRange(options.start_lr, options.end_lr);
  m_plot->replot();
  m_log->clear();
  m_apply->setEnabled(false);
  m_planned = options.steps;
  m_progress->setRange(0, static_cast<int>(options.steps));
  m_progress->setValue(0);
  m_progress->setFormat(tr("Loading the data and building the model…"));
  m_summary->setText(tr("Running…"));

  m_job.start([experiment = m_experiment, options](const FinderCallbacks& callbacks, const auto& report) {
    return findLearningRate(experiment, options, callbacks,
                            [&report](const LrFinderPoint& point, int64_t) { report(point); });
  });
}

void LrFinderDialog::cancel() {
  if (!m_job.cancel()) return;
  m_cancel->setEnabled(false);
  m_progress->setFormat(tr("Cancelling after the step in flight…"));
}

void LrFinderDialog::onRunningChanged(bool running) {
  m_run->setEnabled(!running);
  m_cancel->setEnabled(running);
  m_steps->setEnabled(!running);
  m_start->setEnabled(!running);
  m_end->setEnabled(!running);
}

void LrFinderDialog::onStaged(const std::vector<LrFinderPoint>& points, const std::vector<std::string>& log) {
  for (const std::string& line : log) m_log->appendPlainText(QString::fromStdString(line));
  if (points.empty()) return;
  addPoints(points);
  const LrFinderPoint& last = m_points.back();
  if (!m_job.cancelled()) {
    m_progress->setValue(static_cast<int>(last.step + 1));
    m_progress->setFormat(tr("Step %1 of %2: learning rate %3, loss %4")
                              .arg(last.step + 1)
                              .arg(m_planned)
                              .arg(lrText(last.lr))
                              .arg(last.loss, 0, 'f', 4));
  }
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LrFinderDialog::addPoints(const std::vector<LrFinderPoint>& points) {
  for (const LrFinderPoint& p : points) {
    m_points.push_back(p);
    m_raw->addData(p.lr, p.loss);
    m_smoothed->addData(p.lr, p.smoothed);
  }
  rescale();
}

// The y range follows the smoothed curve (from a little under its minimum to its start or its divergence):
// the raw loss of the last, diverging steps would otherwise flatten everything else.
void LrFinderDialog::rescale() {
  if (m_points.empty()) return;
  double low = m_points.front().smoothed, high = low;
  for (const LrFinderPoint& p : m_points) {
    low = std::min({low, p.smoothed, p.loss});
    high = std::max(high, p.smoothed);
  }
  const double pad = std::max(1e-3, (high - low) * 0.08);
  m_plot->yAxis->setRange(std::max(0.0, low - pad), high + pad);
}

void LrFinderDialog::onFinished(FinderOutcome<LrFinderResult> outcome) {
  if (!outcome.result) {
    m_progress->setFormat(tr("Failed"));
    m_summary->setText(outcome.hint.isEmpty() ? outcome.error
                                              : tr("%1\nWhat to do: %2").arg(outcome.error, outcome.hint));
    emit finderFinished();
    return;
  }
  m_result = std::move(outcome.result);
  // The result holds every point; the staged ones may have been cut short by a cancel between two drains.
  m_raw->data()->clear();
  m_smoothed->data()->clear();
  m_points.clear();
  addPoints(m_result->points);
  m_progress->setValue(m_progress->maximum());
  m_progress->setFormat(tr("%1 steps in %2 s: %3")
                            .arg(m_result->steps_run)
                            .arg(m_result->seconds, 0, 'f', 1)
                            .arg(QString::fromUtf8(toString(m_result->stop))));
  showSuggestion();
  m_plot->replot();
  emit finderFinished();
}

void LrFinderDialog::showSuggestion() {
  const LrFinderResult& r = *m_result;
  const QString stopped = tr("Stopped: %1.").arg(QString::fromStdString(r.stop_reason));
  if (r.suggestion.rule == LrSuggestionRule::None || r.suggestion.index < 0 ||
      r.suggestion.index >= static_cast<int64_t>(r.points.size())) {
    m_summary->setText(
        tr("No suggestion. %1\n%2").arg(QString::fromStdString(r.suggestion.explanation), stopped));
    return;
  }
  const double lr = r.suggestion.lr;
  const LrFinderPoint& at = r.points[static_cast<size_t>(r.suggestion.index)];
  m_marker->data()->clear();
  m_marker->addData(at.lr, at.smoothed);
  m_markerLine->point1->setCoords(lr, 0);
  m_markerLine->point2->setCoords(lr, 1);
  m_markerLine->setVisible(true);
  m_markerText->setText(tr("suggested lr %1 (%2)")
                            .arg(lrText(lr), r.suggestion.rule == LrSuggestionRule::SteepestDescent
                                                 ? tr("steepest descent")
                                                 : tr("minimum / 10")));
  m_markerText->setVisible(true);
  m_summary->setText(tr("Suggested learning rate: %1 (the form has %2).\n%3\n%4")
                         .arg(lrText(lr), lrText(m_experiment.optimizer.lr),
                              QString::fromStdString(r.suggestion.explanation), stopped));
  m_apply->setEnabled(static_cast<bool>(m_applyLr));
  m_apply->setText(tr("&Apply %1 to Experiment").arg(lrText(lr)));
}

}  // namespace wb::gui
