#include "sweep_view/sweep_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "app/off_thread.h"
#include "runs_browser/runs_table_model.h"
#include "sweep_view/sweep_axes.h"
#include "widgets/named_button.h"

namespace wb::gui {
namespace {

struct LoadedSweep {
  QStringList names;
  std::optional<SweepResults> results;
  QString problem;
};

// The accuracies are shown in percent.
bool percentMetric(SweepMetric metric) {
  return metric == SweepMetric::BestValAccuracy || metric == SweepMetric::TestAccuracy;
}

QString metricName(const SweepResults& s) {
  return QString::fromStdString(wordString(s.metric));
}

QString metricText(const SweepResults& s, double value) {
  return RunsTableModel::formatMetric(value, percentMetric(s.metric));
}

const QColor kBest(214, 39, 40);

// From poor to good: grey-blue to green, so the eye finds the good region of the keys.
QColor metricColor(double goodness) {
  goodness = std::clamp(goodness, 0.0, 1.0);
  return QColor::fromHsvF(0.6 - 0.3 * goodness, 0.55 + 0.3 * goodness, 0.75, 0.75);
}

void styleChart(QCustomPlot* plot) {
  plot->setMinimumSize(160, 100);  // the window fits a 1280x720 screen
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot->axisRect()->setupFullAxesBox(false);
}

}  // namespace

SweepView::SweepView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("sweepView"));
  m_sweeps = new QComboBox(this);
  m_sweeps->setObjectName(QStringLiteral("sweepPicker"));
  m_sweeps->setMinimumContentsLength(14);
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("sweepSummary"));
  m_summary->setWordWrap(true);
  m_cloneBest = namedButton(
      tr("Clone Best into Editor"), "sweepCloneBest",
      tr("The best trial's experiment in the editor, to train it longer or edit it further"), this);
  m_showTrials = namedButton(tr("Show in Runs List"), "sweepShowTrials",
                             tr("The runs list filtered to this sweep's trials"), this);
  m_overlay = namedButton(tr("Overlay Trials"), "sweepOverlay",
                          tr("The trials that ran, on the Training charts"), this);
  m_key = new QComboBox(this);
  m_key->setObjectName(QStringLiteral("sweepKeyPicker"));
  m_key->setToolTip(tr("The key the lower chart sets the metric against"));

  m_table = new QTableWidget(this);
  m_table->setObjectName(QStringLiteral("sweepTrials"));
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSortingEnabled(true);
  m_table->setWordWrap(false);
  m_table->verticalHeader()->setVisible(false);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_parallel = new QCustomPlot(this);
  m_parallel->setObjectName(QStringLiteral("sweepParallel"));
  styleChart(m_parallel);
  m_keyChart = new QCustomPlot(this);
  m_keyChart->setObjectName(QStringLiteral("sweepKeyChart"));
  styleChart(m_keyChart);

  layOut();

  connect(m_sweeps, &QComboBox::currentIndexChanged, this, [this] {
    // The user's pick wins over a load in flight (of the sweep shown before): that one is dropped.
    m_wanted = currentSweep();
    m_reload.invalidate();
    m_results.reset();
    reload();
  });
  connect(m_key, &QComboBox::currentIndexChanged, this, &SweepView::drawKeyChart);
  connect(m_cloneBest, &QPushButton::clicked, this, [this] {
    if (!bestFolder().isEmpty()) emit cloneRequested(bestFolder());
  });
  connect(m_showTrials, &QPushButton::clicked, this, [this] {
    if (!currentSweep().isEmpty()) emit showTrialsRequested(currentSweep());
  });
  connect(m_overlay, &QPushButton::clicked, this, [this] {
    QStringList folders;
    if (m_results) {
      for (const SweepTrialResult& t : m_results->trials) {
        if (t.run) folders << QString::fromStdString(t.run->folder);
      }
    }
    if (!folders.isEmpty()) emit overlayRequested(folders);
  });
  m_summary->setText(tr("No sweep in this runs folder: Run ▸ Queue Sweep… queues one."));
  m_cloneBest->setEnabled(false);
  m_showTrials->setEnabled(false);
  m_overlay->setEnabled(false);
}

// The picker, summary and buttons on top; the trials' table beside the two charts (and the key picker).
void SweepView::layOut() {
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(new QLabel(tr("Sweep:"), this));
  bar->addWidget(m_sweeps);
  bar->addWidget(m_summary, 1);
  for (QPushButton* b : {m_cloneBest, m_showTrials, m_overlay}) bar->addWidget(b);
  auto* charts = new QWidget(this);
  auto* chartsLayout = new QVBoxLayout(charts);
  chartsLayout->setContentsMargins(0, 0, 0, 0);
  chartsLayout->addWidget(m_parallel, 1);
  auto* keyBar = new QHBoxLayout;
  keyBar->addWidget(new QLabel(tr("Metric against:"), this));
  keyBar->addWidget(m_key, 1);
  chartsLayout->addLayout(keyBar);
  chartsLayout->addWidget(m_keyChart, 1);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(m_table);
  split->addWidget(charts);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(split, 1);
}

void SweepView::setRunsDir(const QString& dir) {
  if (dir == m_dir) return;
  m_dir = dir;
  m_results.reset();
  reload();
}

QString SweepView::currentSweep() const {
  return m_sweeps->currentData().toString();
}

void SweepView::showSweep(const QString& name) {
  m_wanted = name;
  const int at = m_sweeps->findData(name);
  if (at >= 0) {
    m_sweeps->setCurrentIndex(at);
    m_wanted.clear();
  }
  reload();
}

QString SweepView::bestFolder() const {
  if (!m_results || m_results->best < 0) return {};
  const SweepTrialResult& best = m_results->trials[static_cast<size_t>(m_results->best)];
  return QString::fromStdString(best.run ? best.run->folder : best.entry.run_folder);
}

void SweepView::reload() {
  if (m_dir.isEmpty()) return;
  const int generation = m_reload.begin();
  if (generation < 0) return;
  const QString picked = m_wanted.isEmpty() ? currentSweep() : m_wanted;
  runOffThread(
      this,
      [dir = m_dir.toStdString(), picked] {
        LoadedSweep out;
        try {
          for (const std::string& name : listSweepNames(dir)) out.names << QString::fromStdString(name);
          const QString name =
              out.names.contains(picked) ? picked : (out.names.isEmpty() ? QString() : out.names.last());
          if (!name.isEmpty()) out.results = readSweepResults(dir, name.toStdString());
        } catch (const std::exception& e) {
          out.problem = QString::fromUtf8(e.what());
        }
        return out;
      },
      [this, generation](LoadedSweep loaded) {
        onLoaded(std::move(loaded.names), std::move(loaded.results), loaded.problem, generation);
      });
}

void SweepView::onLoaded(QStringList names, std::optional<SweepResults> results, const QString& problem,
                         int generation) {
  ++m_loads;
  if (m_reload.end(generation)) {
    {
      const QSignalBlocker block(m_sweeps);
      QStringList listed;
      for (int i = 0; i < m_sweeps->count(); ++i) listed << m_sweeps->itemData(i).toString();
      if (listed != names) {
        m_sweeps->clear();
        for (const QString& name : names) m_sweeps->addItem(name, name);
      }
      if (results) m_sweeps->setCurrentIndex(m_sweeps->findData(QString::fromStdString(results->name)));
    }
    if (results && m_wanted == QString::fromStdString(results->name)) m_wanted.clear();
    m_results = std::move(results);
    if (!problem.isEmpty()) {
      m_summary->setText(tr("The sweep cannot be read: %1").arg(problem));
    } else if (!m_results) {
      m_summary->setText(tr("No sweep in this runs folder: Run ▸ Queue Sweep… queues one."));
    } else {
      const SweepResults& s = *m_results;
      QString text = tr("%n trial(s): ", nullptr, static_cast<int>(s.trials.size()));
      QStringList parts;
      for (const TrialStatus status :
           {TrialStatus::Done, TrialStatus::Stopped, TrialStatus::Running, TrialStatus::Queued,
            TrialStatus::Held, TrialStatus::Failed, TrialStatus::Unknown}) {
        if (s.count(status) > 0)
          parts
              << QStringLiteral("%1 %2").arg(s.count(status)).arg(QString::fromStdString(wordString(status)));
      }
      text += parts.join(QStringLiteral(", "));
      text += tr(" · %1, %2 is better").arg(metricName(s), s.maximize ? tr("higher") : tr("lower"));
      if (s.best >= 0) {
        const SweepTrialResult& best = s.trials[static_cast<size_t>(s.best)];
        text +=
            tr(" · best ★ %1: %2").arg(QString::fromStdString(best.entry.label), metricText(s, best.metric));
      }
      text += tr(" · %1 of training").arg(RunsTableModel::formatDuration(s.compute_s));
      if (s.finished()) text += tr(" · finished");
      m_summary->setText(text);
    }
    const QString key = m_key->currentText();
    {
      const QSignalBlocker block(m_key);
      m_key->clear();
      if (m_results) {
        for (const std::string& k : m_results->keys) m_key->addItem(QString::fromStdString(k));
      }
      if (m_key->findText(key) >= 0) m_key->setCurrentIndex(m_key->findText(key));
    }
    fillTable();
    drawParallel();
    drawKeyChart();
    m_cloneBest->setEnabled(!bestFolder().isEmpty());
    m_showTrials->setEnabled(m_results.has_value());
    bool ran = false;
    if (m_results) {
      for (const SweepTrialResult& t : m_results->trials) ran = ran || t.run.has_value();
    }
    m_overlay->setEnabled(ran);
    emit loaded();
  }
  if (m_reload.takePending()) reload();
}

void SweepView::fillTable() {
  m_table->setSortingEnabled(false);
  m_table->clear();
  m_table->setRowCount(0);
  if (!m_results) return;
  const SweepResults& s = *m_results;
  QStringList headers{tr("Trial"), tr("Status"), metricName(s), tr("Duration")};
  for (const std::string& k : s.keys) headers << QString::fromStdString(k);
  headers << tr("Message");
  m_table->setColumnCount(static_cast<int>(headers.size()));
  m_table->setHorizontalHeaderLabels(headers);
  m_table->setRowCount(static_cast<int>(s.trials.size()));
  for (size_t i = 0; i < s.trials.size(); ++i) {
    const SweepTrialResult& t = s.trials[i];
    const bool best = static_cast<int>(i) == s.best;
    const int row = static_cast<int>(i);
    auto set = [&](int column, const QString& text, const QVariant& sort = QVariant()) {
      auto* item = new QTableWidgetItem(text);
      if (sort.isValid()) item->setData(Qt::UserRole, sort);
      if (best) {
        QFont bold = item->font();
        bold.setBold(true);
        item->setFont(bold);
      }
      m_table->setItem(row, column, item);
      return item;
    };
    set(0, (best ? QStringLiteral("★ ") : QString()) + QString::fromStdString(t.entry.label));
    QTableWidgetItem* status = set(1, QString::fromStdString(wordString(t.status())));
    if (t.entry.state == QueueState::Failed) status->setForeground(kBest);
    auto* metric = new QTableWidgetItem;
    metric->setData(Qt::DisplayRole, t.metric >= 0 ? QVariant(t.metric) : QVariant());
    metric->setText(t.metric >= 0 ? metricText(s, t.metric) : QStringLiteral("—"));
    m_table->setItem(row, 2, metric);
    set(3, t.run && t.run->wall_s > 0 ? RunsTableModel::formatDuration(t.run->wall_s) : QStringLiteral("—"));
    int column = 4;
    for (const std::string& k : s.keys)
      set(column++, t.values.contains(k) ? sweepValueText(t.values[k]) : QString());
    set(column, QString::fromStdString(t.entry.message))->setToolTip(QString::fromStdString(t.entry.message));
  }
  m_table->resizeColumnsToContents();
  // A long reason stays on one line, cut at the column's edge; its cell's tooltip has it whole.
  const int message = m_table->columnCount() - 1;
  m_table->setColumnWidth(message, qMin(m_table->columnWidth(message), 320));
  m_table->setSortingEnabled(true);
}

namespace {

// One line per trial across the key axes to the metric's, coloured by how good its metric is; the best on
// top.
void drawTrialLines(QCustomPlot* plot, const SweepResults& s, const std::vector<SweepAxis>& axes,
                    const SweepAxis& metricAxis, const std::vector<size_t>& order) {
  const int n = static_cast<int>(axes.size());
  for (const size_t i : order) {
    const SweepTrialResult& t = s.trials[i];
    QVector<double> x, y;
    for (int a = 0; a < n; ++a) {
      x << a;
      y << axes[static_cast<size_t>(a)].position(t.values.contains(s.keys[static_cast<size_t>(a)])
                                                     ? t.values[s.keys[static_cast<size_t>(a)]]
                                                     : nlohmann::json());
    }
    x << n;
    y << (t.metric >= 0 ? metricAxis.position(t.metric) : std::nan(""));
    QCPGraph* g = plot->addGraph();
    g->setData(x, y, true);
    g->setName(QString::fromStdString(t.entry.label));
    const bool best = static_cast<int>(i) == s.best;
    double goodness = t.metric >= 0 ? metricAxis.position(t.metric) : 0;
    if (!s.maximize) goodness = 1 - goodness;
    QPen pen(best ? kBest : (t.metric >= 0 ? metricColor(goodness) : QColor(150, 150, 150, 120)));
    pen.setWidthF(best ? 3.0 : 1.4);
    if (t.metric < 0) pen.setStyle(Qt::DashLine);
    g->setPen(pen);
    g->setScatterStyle(
        QCPScatterStyle(best ? QCPScatterStyle::ssStar : QCPScatterStyle::ssDisc, best ? 10 : 4));
  }
}

// Each axis's name under it, and its values (a category axis) or its ends (a number axis) beside it.
void labelAxes(QCustomPlot* plot, const SweepResults& s, const std::vector<SweepAxis>& axes,
               const SweepAxis& metricAxis, bool anyMeasured, const QFont& font) {
  const int n = static_cast<int>(axes.size());
  // Each axis named by the last part of its key ("lr" for optimizer.lr) where that is unambiguous: the full
  // keys of four axes do not fit side by side.
  QStringList shortNames;
  for (const SweepAxis& axis : axes) shortNames << axis.name().section(QLatin1Char('.'), -1);
  for (int a = 0; a <= n; ++a) {
    const SweepAxis& axis = a < n ? axes[static_cast<size_t>(a)] : metricAxis;
    const bool unique = a < n && shortNames.count(shortNames[a]) == 1;
    // Under the axis (an item, not a tick label: a text ticker dropped the last of four).
    auto* name = new QCPItemText(plot);
    name->setClipToAxisRect(false);
    name->position->setType(QCPItemPosition::ptPlotCoords);
    name->position->setCoords(a, -0.12);
    name->setPositionAlignment(Qt::AlignTop | Qt::AlignHCenter);
    name->setPadding(QMargins(0, 4, 0, 0));
    name->setText(a == n ? metricName(s)
                               .replace(QLatin1String("accuracy"), QLatin1String("acc"))
                               .replace(QLatin1Char('_'), QLatin1Char(' '))
                  : unique ? shortNames[a]
                           : axis.name());
    // A category axis names each of its values beside it; a number axis its ends.
    const QFont small(font.family(), qMax(7, font.pointSize() - 2));
    if (axis.categorical() && axis.categories().size() > 2) {
      for (int c = 0; c < axis.categories().size(); ++c) {
        auto* label = new QCPItemText(plot);
        label->position->setCoords(a, axis.position(nlohmann::json(axis.categories()[c].toStdString())));
        label->setPositionAlignment(Qt::AlignRight | Qt::AlignVCenter);
        label->setPadding(QMargins(0, 0, 4, 0));
        label->setText(axis.categories()[c]);
        label->setFont(small);
      }
    } else {
      for (const double at : {0.0, 1.0}) {
        auto* label = new QCPItemText(plot);
        label->position->setCoords(a, at);
        label->setPositionAlignment(at == 0 ? (Qt::AlignTop | Qt::AlignHCenter)
                                            : (Qt::AlignBottom | Qt::AlignHCenter));
        label->setText(a < n ? axis.label(at)
                             : (!anyMeasured ? QString() : metricText(s, at == 0 ? axis.min() : axis.max())));
        label->setFont(small);
      }
    }
    auto* line = new QCPItemStraightLine(plot);
    line->point1->setCoords(a, 0);
    line->point2->setCoords(a, 1);
    line->setPen(QPen(QColor(128, 128, 128, 140)));
  }
}

}  // namespace

void SweepView::drawParallel() {
  QCustomPlot* plot = m_parallel;
  plot->clearGraphs();
  plot->clearItems();
  if (!m_results || m_results->keys.empty()) {
    plot->replot();
    return;
  }
  const SweepResults& s = *m_results;
  std::vector<SweepAxis> axes;
  for (const std::string& k : s.keys) {
    std::vector<nlohmann::json> values;
    for (const SweepTrialResult& t : s.trials)
      values.push_back(t.values.contains(k) ? t.values[k] : nlohmann::json());
    axes.push_back(SweepAxis::fromValues(QString::fromStdString(k), values));
  }
  std::vector<double> measured;
  for (const SweepTrialResult& t : s.trials) {
    if (t.metric >= 0) measured.push_back(t.metric);
  }
  const SweepAxis metricAxis = SweepAxis::fromNumbers(metricName(s), measured);
  const int n = static_cast<int>(axes.size());
  // The best last: drawn on top.
  std::vector<size_t> order;
  for (size_t i = 0; i < s.trials.size(); ++i) {
    if (static_cast<int>(i) != s.best) order.push_back(i);
  }
  if (s.best >= 0) order.push_back(static_cast<size_t>(s.best));
  drawTrialLines(plot, s, axes, metricAxis, order);
  labelAxes(plot, s, axes, metricAxis, !measured.empty(), font());
  plot->xAxis->setTickLabels(false);
  plot->xAxis->setTicks(false);
  plot->xAxis->setPadding(QFontMetrics(font()).height() + 6);  // room for the axes' names
  plot->xAxis->setRange(-0.45, n + 0.45);
  plot->yAxis->setRange(-0.12, 1.12);
  plot->yAxis->setTickLabels(false);
  plot->yAxis->setTicks(false);
  plot->yAxis->grid()->setVisible(false);
  plot->xAxis->grid()->setVisible(false);
  plot->replot();
}

void SweepView::drawKeyChart() {
  QCustomPlot* plot = m_keyChart;
  plot->clearGraphs();
  if (!m_results || m_key->currentIndex() < 0) {
    plot->replot();
    return;
  }
  const SweepResults& s = *m_results;
  const std::string key = m_key->currentText().toStdString();
  std::vector<nlohmann::json> values;
  for (const SweepTrialResult& t : s.trials)
    values.push_back(t.values.contains(key) ? t.values[key] : nlohmann::json());
  const SweepAxis axis = SweepAxis::fromValues(m_key->currentText(), values);
  const double scale = percentMetric(s.metric) ? 100.0 : 1.0;
  QVector<double> x, y, bx, by;
  for (size_t i = 0; i < s.trials.size(); ++i) {
    const SweepTrialResult& t = s.trials[i];
    if (t.metric < 0) continue;
    const double at = axis.place(values[i]);
    if (std::isnan(at)) continue;
    (static_cast<int>(i) == s.best ? bx : x) << at;
    (static_cast<int>(i) == s.best ? by : y) << t.metric * scale;
  }
  QCPGraph* trials = plot->addGraph();
  trials->setLineStyle(QCPGraph::lsNone);
  trials->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(60, 110, 180), 7));
  trials->setData(x, y);
  QCPGraph* best = plot->addGraph();
  best->setLineStyle(QCPGraph::lsNone);
  best->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, kBest, 13));
  best->setData(bx, by);
  if (axis.categorical()) {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int c = 0; c < axis.categories().size(); ++c) ticker->addTick(c, axis.categories()[c]);
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setScaleType(QCPAxis::stLinear);
    plot->xAxis->setRange(-0.5, axis.categories().size() - 0.5);
  } else if (axis.logScale()) {
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot->xAxis->setRange(axis.min() / 1.5, axis.max() * 1.5);
  } else {
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    plot->xAxis->setScaleType(QCPAxis::stLinear);
    const double pad = axis.max() > axis.min() ? (axis.max() - axis.min()) * 0.08 : 0.5;
    plot->xAxis->setRange(axis.min() - pad, axis.max() + pad);
  }
  plot->xAxis->setLabel(axis.name());
  plot->yAxis->setLabel(metricName(s) + (scale > 1 ? QStringLiteral(" (%)") : QString()));
  bool found = false;
  const QCPRange range = trials->data()->valueRange(found);
  bool bestFound = false;
  const QCPRange bestRange = best->data()->valueRange(bestFound);
  if (found || bestFound) {
    QCPRange r = found ? range : bestRange;
    if (found && bestFound) r.expand(bestRange);
    const double pad = r.size() > 0 ? r.size() * 0.1 : 1;
    plot->yAxis->setRange(r.lower - pad, r.upper + pad);
  }
  plot->replot();
}

}  // namespace wb::gui
