#include "run/run_feed.h"

#include <variant>

#include "charts/charts_panel.h"
#include "run/past_runs_on_charts.h"
#include "runs_browser/runs_browser.h"
#include "window/log_panel.h"
#include "window/run_progress.h"

namespace wb::gui {

namespace {

// ", train accuracy 84.70 %": the task's figures in words, a share in percent.
QString figuresText(const std::vector<TaskFigure>& figures, const QString& split) {
  QString text;
  for (const TaskFigure& f : figures) {
    const FigureSpec spec = figureSpecNamed(f.name);
    const QString value =
        spec.share ? QStringLiteral("%1 %").arg(f.value * 100, 0, 'f', 2) : QString::number(f.value, 'f', 4);
    text += QStringLiteral(", %1 %2 %3").arg(split, QString::fromStdString(spec.title).toLower(), value);
  }
  return text;
}

}  // namespace

QString epochLine(const EpochMetrics& ep, const QString& what) {
  QString line = RunFeed::tr("%1 %2: train loss %3").arg(what).arg(ep.epoch).arg(ep.train_loss, 0, 'f', 4);
  line += figuresText(ep.train_figures, RunFeed::tr("train"));
  if (ep.val_loss >= 0) {
    line += RunFeed::tr(", val loss %1").arg(ep.val_loss, 0, 'f', 4);
    line += figuresText(ep.val_figures, RunFeed::tr("val"));
  }
  return line;
}

RunFeed::RunFeed(ChartsPanel* charts, RunsBrowser* runs, LogPanel* log, RunProgress* progress,
                 QObject* parent)
    : QObject(parent), m_charts(charts), m_runs(runs), m_log(log), m_progress(progress) {}

void RunFeed::show(const EventBatch& batch) {
  std::vector<StepMetrics> steps;
  std::vector<EpochMetrics> epochs;
  for (const Event& e : batch) {
    if (const auto* s = std::get_if<StepMetrics>(&e)) {
      steps.push_back(*s);
      if (s->nonfinite_steps_in_window > 0) {
        m_log->append(
            LogLevel::Warning,
            tr("%n optimizer step(s) skipped for inf/NaN gradients before step %1; AMP loss scale now %2",
               nullptr, static_cast<int>(s->nonfinite_steps_in_window))
                .arg(s->step)
                .arg(s->loss_scale));
      }
    } else if (const auto* ep = std::get_if<EpochMetrics>(&e)) {
      epochs.push_back(*ep);
      m_log->append(LogLevel::Info, epochLine(*ep, tr("Epoch")));
    } else if (const auto* log = std::get_if<LogLine>(&e)) {
      m_log->append(log->level, QString::fromStdString(log->text));
    } else if (const auto* control = std::get_if<ControlApplied>(&e)) {
      m_log->append(LogLevel::Info, QString::fromStdString(control->message));
      m_charts->addControlMarks(kLiveTrace, {*control});
    } else if (const auto* error = std::get_if<RunError>(&e)) {
      m_log->append(LogLevel::Error, QString::fromStdString(error->message));
      emit errorReported(*error);
    }
  }
  // One append per chart per drain tick, however many events the batch held.
  m_charts->appendSteps(kLiveTrace, steps);
  m_charts->appendEpochs(kLiveTrace, epochs);
  showSteps(steps);
}

void RunFeed::showSteps(const std::vector<StepMetrics>& steps) {
  if (steps.empty()) return;
  // The first step of a run (or of a resumed one): the index says "running" by now.
  if (m_lastStep == 0) m_runs->refresh();
  m_progress->update(steps.back());
  m_lastStep = steps.back().step;
  emit stepReported(m_lastStep);
}

}  // namespace wb::gui
