#include "charts/metric_chart.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QTextStream>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace wb::gui {
namespace {

// How close (in pixels) the cursor must be to a point for the hover tooltip.
constexpr double kChartHoverRadiusPx = 24;
// Up to this many points a series is drawn from all its data; beyond, from a min/max-per-pixel view
// (QCustomPlot's own adaptive sampling still walks every point on each replot: ~50 ms per million).
constexpr int kDirectPoints = 20000;

QString csvQuote(const QString& text) {
  QString quoted = text;
  quoted.replace(QLatin1Char('"'), QLatin1String("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QCPRange padded(double lo, double hi, bool log) {
  if (log) {
    if (!(lo > 0) || !std::isfinite(lo)) lo = hi > 0 ? hi / 10 : 1e-3;
    if (!(hi > 0) || !std::isfinite(hi)) hi = lo * 10;
    if (hi <= lo) return QCPRange(lo / 2, hi * 2);
    const double f = std::pow(hi / lo, 0.05);
    return QCPRange(lo / f, hi * f);
  }
  if (hi <= lo) {
    const double d = lo == 0 ? 1 : std::abs(lo) * 0.1;
    return QCPRange(lo - d, hi + d);
  }
  const double m = (hi - lo) * 0.05;
  return QCPRange(lo - m, hi + m);
}

}  // namespace

MetricChart::MetricChart(const QString& title, const QString& xLabel, const QString& yLabel, QWidget* parent)
    : QCustomPlot(parent), m_title(title) {
  setObjectName(title);
  plotLayout()->insertRow(0);
  QFont titleFont = font();
  titleFont.setBold(true);
  m_titleElement = new QCPTextElement(this, title, titleFont);
  plotLayout()->addElement(0, 0, m_titleElement);

  xAxis->setLabel(xLabel);
  yAxis->setLabel(yLabel);
  yAxis2->setVisible(false);
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
  xAxis->setTickLabelFont(small);
  yAxis->setTickLabelFont(small);
  yAxis2->setTickLabelFont(small);
  xAxis->setLabelFont(small);
  yAxis->setLabelFont(small);
  yAxis2->setLabelFont(small);
  legend->setFont(small);
  legend->setRowSpacing(0);
  legend->setColumnSpacing(10);
  legend->setIconSize(18, 8);
  legend->setBorderPen(Qt::NoPen);
  legend->setBrush(Qt::NoBrush);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setMargins(QMargins(4, 0, 4, 0));
  // Out of the plot: placeLegend puts it in a row of its own once there is something to list.
  axisRect()->insetLayout()->take(legend);
  legend->setVisible(false);

  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  axisRect()->setRangeDragAxes({xAxis, yAxis, yAxis2});
  axisRect()->setRangeZoomAxes({xAxis, yAxis, yAxis2});
  setNoAntialiasingOnDrag(true);
  // Axis lines and the grid are axis-aligned: antialiasing them costs paint time and only blurs them.
  setNotAntialiasedElements(QCP::aeAxes | QCP::aeGrid | QCP::aeSubGrid | QCP::aeZeroLine | QCP::aeLegend);
  setPlottingHints(QCP::phCacheLabels | QCP::phFastPolylines);

  // Hover markers live on their own buffered layer, so moving the mouse redraws that layer, not the curves.
  addLayer(QStringLiteral("hover"), layer(QStringLiteral("main")), QCustomPlot::limAbove);
  m_overlay = layer(QStringLiteral("hover"));
  m_overlay->setMode(QCPLayer::lmBuffered);
  m_tracer = new QCPItemTracer(this);
  m_tracer->setLayer(m_overlay);
  m_tracer->setStyle(QCPItemTracer::tsCircle);
  m_tracer->setSize(9);
  m_tracer->setVisible(false);

  m_emptyLabel = new QCPItemText(this);
  m_emptyLabel->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_emptyLabel->position->setCoords(0.5, 0.5);
  m_emptyLabel->setPositionAlignment(Qt::AlignCenter);
  m_emptyLabel->setTextAlignment(Qt::AlignCenter);
  m_emptyLabel->setClipToAxisRect(true);
  m_emptyLabel->setFont(font());
  m_emptyText = tr("No data yet");
  m_emptyLabel->setText(m_emptyText);

  setContextMenuPolicy(Qt::CustomContextMenu);
  connect(this, &QWidget::customContextMenuRequested, this, &MetricChart::showContextMenu);
  // Every replot (timer, zoom, pan, resize) first brings the decimated views up to date.
  connect(this, &QCustomPlot::beforeReplot, this, &MetricChart::updateViews);
  // The placeholder is wrapped to the plot's width as laid out for this replot (a resize included).
  connect(this, &QCustomPlot::afterLayout, this, &MetricChart::updateEmptyText);
  setToolTip(QString());
  applyPalette();
  // Steps and epochs are whole numbers: no tick at step 421.5 when a chart holds one point.
  QSharedPointer<QCPAxisTickerFixed> integers(new QCPAxisTickerFixed);
  integers->setTickStep(1.0);
  integers->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  xAxis->setTicker(integers);
  resetAxes();
}

void MetricChart::setTitle(const QString& title, const QString& yLabel) {
  m_title = title;
  setObjectName(title);
  m_titleElement->setText(title);
  yAxis->setLabel(yLabel);
  markDirty();
}

void MetricChart::resetAxes() {
  xAxis->setRange(0, 1);
  yAxis->setRange(0, 1);
  yAxis2->setRange(0, 1);
}

void MetricChart::followData() {
  m_follow = true;
  m_dirty = true;
}

void MetricChart::setMinimumValueSpan(double absolute, double fraction) {
  m_minSpanAbsolute = absolute;
  m_minSpanFraction = fraction;
  m_dirty = true;
}

void MetricChart::setValueAxisFromZero(bool fromZero) {
  m_fromZero = fromZero;
  m_dirty = true;
}

void MetricChart::setValueTickCount(int count) {
  m_valueTicks = count;
  for (QCPAxis* axis : {yAxis, yAxis2}) applyValueTicks(axis);
  m_dirty = true;
}

void MetricChart::applyValueTicks(QCPAxis* axis) {
  // A count, not a fixed step: QCustomPlot still rounds the step to 1, 2, 2.5 or 5 × 10^k (the values stay
  // readable), so the ticks come out near the count, sometimes one or two more.
  axis->ticker()->setTickCount(m_valueTicks);
}

void MetricChart::setLegendShown(bool shown) {
  m_legendShown = shown;
  m_dirty = true;
  placeLegend();
  replot(QCustomPlot::rpQueuedReplot);
}

void MetricChart::fitLegendColumns() {
  // As many entries side by side as the width holds; more wrap to further rows.
  int widest = 1;
  for (int i = 0; i < legend->itemCount(); ++i) {
    // itemCount() counts the grid's cells: a wrapped legend's last row has empty ones (null).
    if (QCPAbstractLegendItem* item = legend->item(i))
      widest = std::max(widest, item->minimumOuterSizeHint().width());
  }
  const int columns = std::max(1, (width() - 40) / (widest + legend->columnSpacing()));
  if (legend->wrap() == columns) return;
  legend->setWrap(columns);
  // setWrap alone only applies to entries added later: the ones there are laid out again.
  legend->setFillOrder(legend->fillOrder(), true);
}

void MetricChart::placeLegend() {
  const bool wanted = m_legendShown && legend->itemCount() > 0 && totalPointCount() > 0;
  if (wanted) fitLegendColumns();
  if (wanted == m_legendPlaced) return;
  if (wanted) {
    plotLayout()->insertRow(1);
    plotLayout()->addElement(1, 0, legend);
    plotLayout()->setRowStretchFactor(1, 0.001);
  } else {
    plotLayout()->take(legend);
    plotLayout()->simplify();
  }
  legend->setVisible(wanted);
  m_legendPlaced = wanted;
}

void MetricChart::setRightAxisLabel(const QString& label) {
  yAxis2->setLabel(label);
}

void MetricChart::setEmptyText(const QString& text) {
  m_emptyText = text;
  m_emptyLabel->setText(text);
  m_dirty = true;
}

QString MetricChart::emptyTextShown() const {
  return m_emptyLabel->text();
}

namespace {

void styleGraph(QCPGraph* graph, const SeriesStyle& style) {
  QPen pen(style.color, style.width, style.pen);
  pen.setCosmetic(true);
  graph->setPen(pen);
  graph->setScatterStyle(style.markers ? QCPScatterStyle(QCPScatterStyle::ssCircle, style.color, 5)
                                       : QCPScatterStyle(QCPScatterStyle::ssNone));
}

}  // namespace

int MetricChart::addSeries(const QString& name, const SeriesStyle& style, const QString& group) {
  Series s;
  s.graph = addGraph(xAxis, style.rightAxis ? yAxis2 : yAxis);
  s.graph->setName(name);
  styleGraph(s.graph, style);
  s.name = name;
  s.group = group;
  s.rightAxis = style.rightAxis;
  s.legend = style.legend;
  if (!style.legend) s.graph->removeFromLegend();
  if (style.rightAxis && !m_rightAxisUsed) {
    m_rightAxisUsed = true;
    yAxis2->setVisible(true);
    yAxis2->setTickLabels(true);
  }
  const int id = m_nextId++;
  m_series.emplace_back(id, s);
  m_dirty = true;
  return id;
}

MetricChart::Series* MetricChart::find(int series) {
  for (auto& [id, s] : m_series)
    if (id == series) return &s;
  return nullptr;
}

const MetricChart::Series* MetricChart::find(int series) const {
  for (const auto& [id, s] : m_series)
    if (id == series) return &s;
  return nullptr;
}

void MetricChart::setSeriesName(int series, const QString& name) {
  if (Series* s = find(series)) {
    s->name = name;
    s->graph->setName(name);
    m_dirty = true;
  }
}

void MetricChart::setSeriesStyle(int series, const SeriesStyle& style) {
  if (Series* s = find(series)) {
    styleGraph(s->graph, style);
    s->viewStale = true;  // a dense series gets its thin, aliased pen back when its view is rebuilt
    if (s->legend != style.legend) {
      s->legend = style.legend;
      if (style.legend && s->graph->visible()) {
        s->graph->addToLegend();
      } else {
        s->graph->removeFromLegend();
      }
    }
    m_dirty = true;
  }
}

void MetricChart::setSeriesVisible(int series, bool visible) {
  if (Series* s = find(series)) {
    s->graph->setVisible(visible);
    if (visible && s->legend) {
      s->graph->addToLegend();
    } else {
      s->graph->removeFromLegend();
    }
    m_dirty = true;
  }
}

void MetricChart::extendCache(Series& s, const QVector<double>& keys, const QVector<double>& values) {
  if (keys.isEmpty()) return;
  s.minKey = std::min(s.minKey, keys.front());
  s.maxKey = std::max(s.maxKey, keys.back());
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    s.minValue = std::min(s.minValue, v);
    s.maxValue = std::max(s.maxValue, v);
    if (v > 0) s.minPositive = std::min(s.minPositive, v);
  }
}

void MetricChart::appendPoints(int series, const QVector<double>& keys, const QVector<double>& values) {
  Series* s = find(series);
  if (!s || keys.isEmpty()) return;
  const bool wasDirect = s->keys.size() <= kDirectPoints;
  if (!s->keys.isEmpty() && keys.front() < s->keys.back()) {
    // Out of order (a resumed run repeating steps after its checkpoint): merge and keep the keys sorted.
    QVector<double> k = s->keys + keys, v = s->values + values;
    QVector<int> order(k.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&k](int a, int b) { return k[a] < k[b]; });
    s->keys.resize(0);
    s->values.resize(0);
    for (int i : order) {
      s->keys.push_back(k[i]);
      s->values.push_back(v[i]);
    }
    s->graph->data()->clear();
    s->viewStale = true;
  } else {
    s->keys += keys;
    s->values += values;
  }
  if (s->keys.size() <= kDirectPoints) {
    if (s->viewStale || !wasDirect) {
      s->graph->setData(s->keys, s->values, /*alreadySorted=*/true);
      s->viewStale = false;
    } else {
      s->graph->addData(keys, values, /*alreadySorted=*/true);
    }
  } else {
    s->viewStale = true;
  }
  extendCache(*s, keys, values);
  m_dirty = true;
}

void MetricChart::replacePoints(int series, const QVector<double>& keys, const QVector<double>& values) {
  Series* s = find(series);
  if (!s) return;
  s->keys = keys;
  s->values = values;
  if (keys.size() <= kDirectPoints) {
    s->graph->setData(keys, values, /*alreadySorted=*/true);
    s->viewStale = false;
  } else {
    s->viewStale = true;
  }
  const Series fresh;
  s->minKey = fresh.minKey;
  s->maxKey = fresh.maxKey;
  s->minValue = fresh.minValue;
  s->maxValue = fresh.maxValue;
  s->minPositive = fresh.minPositive;
  extendCache(*s, keys, values);
  m_dirty = true;
}

void MetricChart::removeSeries(int series) {
  for (auto it = m_series.begin(); it != m_series.end(); ++it) {
    if (it->first == series) {
      removeGraph(it->second.graph);
      m_series.erase(it);
      m_dirty = true;
      return;
    }
  }
}

void MetricChart::removeGroup(const QString& group) {
  for (auto it = m_series.begin(); it != m_series.end();) {
    if (it->second.group == group) {
      removeGraph(it->second.graph);
      it = m_series.erase(it);
      m_dirty = true;
    } else {
      ++it;
    }
  }
  hideHover();
  if (totalPointCount() == 0) followData();  // a zoom into the run that left means nothing for the next one
}

int MetricChart::seriesCount() const {
  return static_cast<int>(m_series.size());
}

QStringList MetricChart::seriesNames(bool inLegend) const {
  QStringList names;
  for (const auto& entry : m_series) {
    const Series& s = entry.second;
    if (!inLegend || (s.legend && s.graph->visible())) names << s.name;
  }
  return names;
}

int MetricChart::pointCount(int series) const {
  const Series* s = find(series);
  return s ? static_cast<int>(s->keys.size()) : 0;
}

int MetricChart::totalPointCount() const {
  int n = 0;
  for (const auto& entry : m_series) n += static_cast<int>(entry.second.keys.size());
  return n;
}

void MetricChart::updateEmptyText() {
  const bool empty = totalPointCount() == 0;
  m_emptyLabel->setVisible(empty);
  if (!empty) return;
  // Wrapped by words to the plot's width, so a narrow chart shows the whole sentence instead of clipping it.
  const QFontMetrics metrics(m_emptyLabel->font());
  const int available = std::max(80, axisRect()->width() - 16);
  QStringList lines;
  for (const QString& paragraph : m_emptyText.split(QLatin1Char('\n'))) {
    QString line;
    for (const QString& word : paragraph.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
      const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
      if (!line.isEmpty() && metrics.horizontalAdvance(longer) > available) {
        lines << line;
        line = word;
      } else {
        line = longer;
      }
    }
    lines << line;
  }
  m_emptyLabel->setText(lines.join(QLatin1Char('\n')));
}

void MetricChart::rescaleFromCache() {
  double minKey = std::numeric_limits<double>::infinity(), maxKey = -minKey;
  double lo[2] = {minKey, minKey}, hi[2] = {maxKey, maxKey}, pos[2] = {minKey, minKey};
  for (const auto& entry : m_series) {
    const Series& s = entry.second;
    if (!s.graph->visible() || s.keys.isEmpty()) continue;
    minKey = std::min(minKey, s.minKey);
    maxKey = std::max(maxKey, s.maxKey);
    const int a = s.rightAxis ? 1 : 0;
    lo[a] = std::min(lo[a], s.minValue);
    hi[a] = std::max(hi[a], s.maxValue);
    pos[a] = std::min(pos[a], s.minPositive);
  }
  if (!std::isfinite(minKey)) {
    resetAxes();  // nothing left (a new run, no point yet): no range of the run before
    return;
  }
  if (maxKey > minKey) {
    xAxis->setRange(minKey, maxKey);
  } else {
    // One point (the first epoch): a few steps either side, never below 0.
    const double w = std::max(1.0, std::abs(minKey) * 0.05);
    xAxis->setRange(std::max(std::min(0.0, minKey), minKey - w), maxKey + w);
  }
  QCPAxis* axes[2] = {yAxis, yAxis2};
  for (int a = 0; a < 2; ++a) {
    if (!std::isfinite(lo[a])) continue;
    const bool log = axes[a]->scaleType() == QCPAxis::stLogarithmic;
    double low = lo[a], high = hi[a];
    const double least =
        std::max(m_minSpanAbsolute, m_minSpanFraction * std::max(std::abs(low), std::abs(high)));
    if (!log && least > 0 && high - low < least) {
      const double mid = (low + high) / 2;
      low = mid - least / 2;
      high = mid + least / 2;
      if (lo[a] >= 0 && low < 0) {  // memory is never negative: keep the axis at 0 and above
        high -= low;
        low = 0;
      }
    }
    QCPRange range = padded(log ? pos[a] : low, high, log);
    if (m_fromZero && !log && lo[a] >= 0) range.lower = 0;
    axes[a]->setRange(range);
  }
}

void MetricChart::updateViews() {
  if (m_legendPlaced) fitLegendColumns();  // a resize changes how many entries fit side by side
  const QCPRange range = xAxis->range();
  const int width = axisRect()->width();
  const bool viewMoved = range != m_viewRange || width != m_viewWidth;
  m_viewRange = range;
  m_viewWidth = width;
  for (auto& entry : m_series) {
    Series& s = entry.second;
    if (s.keys.size() > kDirectPoints && (s.viewStale || viewMoved)) rebuildView(s);
  }
}

// Per pixel column of the visible range: the lowest and the highest point, in key order. Drawn as a line this
// is the same picture as all the points (a vertical stroke per column), at a few thousand points instead of a
// million.
void MetricChart::rebuildView(Series& s) {
  s.viewStale = false;
  const double lo = m_viewRange.lower, hi = m_viewRange.upper;
  const int columns = std::max(1, m_viewWidth);
  const int n = static_cast<int>(s.keys.size());
  int begin = static_cast<int>(std::lower_bound(s.keys.begin(), s.keys.end(), lo) - s.keys.begin());
  int end = static_cast<int>(std::upper_bound(s.keys.begin(), s.keys.end(), hi) - s.keys.begin());
  begin = std::max(0, begin - 1);  // one point beyond each edge keeps the line running out of the view
  end = std::min(n, end + 1);
  QVector<QCPGraphData> view;
  view.reserve(4 * columns + 4);
  const double perColumn = hi > lo ? columns / (hi - lo) : 0;
  int i = begin;
  while (i < end) {
    const long column = static_cast<long>(std::floor((s.keys[i] - lo) * perColumn));
    int first = i, minAt = i, maxAt = i, last = i;
    for (++i; i < end && static_cast<long>(std::floor((s.keys[i] - lo) * perColumn)) == column; ++i) {
      if (s.values[i] < s.values[minAt]) minAt = i;
      if (s.values[i] > s.values[maxAt]) maxAt = i;
      last = i;
    }
    (void)first;
    (void)last;
    const int a = std::min(minAt, maxAt), b = std::max(minAt, maxAt);
    view.push_back(QCPGraphData(s.keys[a], s.values[a]));
    if (b != a) view.push_back(QCPGraphData(s.keys[b], s.values[b]));
  }
  s.graph->data()->set(view, /*alreadySorted=*/true);
  // A dense curve is a band of vertical strokes one pixel apart: antialiasing them costs Qt's raster engine
  // most of a replot and changes nothing visible.
  s.graph->setAntialiased(false);
  QPen pen = s.graph->pen();
  if (pen.widthF() > 1) {
    pen.setWidthF(
        1);  // wide pens take Qt's slow stroker; at one stroke per pixel column the width is not seen
    s.graph->setPen(pen);
  }
}

void MetricChart::replotIfDirty() {
  if (!m_dirty) return;
  m_dirty = false;
  updateEmptyText();
  placeLegend();
  if (m_follow) rescaleFromCache();
  replot(QCustomPlot::rpQueuedReplot);
}

void MetricChart::autoscale() {
  m_follow = true;
  m_dirty = true;
  replotIfDirty();
}

void MetricChart::setLogScale(bool on) {
  if (on == m_log) return;
  m_log = on;
  for (QCPAxis* axis : {yAxis, yAxis2}) {
    if (on) {
      axis->setScaleType(QCPAxis::stLogarithmic);
      axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
      axis->setNumberFormat(QStringLiteral("gb"));
    } else {
      axis->setScaleType(QCPAxis::stLinear);
      axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    }
    applyValueTicks(axis);
  }
  m_follow = true;
  m_dirty = true;
  replotIfDirty();
  emit logScaleChanged(on);
}

bool MetricChart::saveImage(const QString& file) {
  if (QFileInfo(file).suffix().compare(QLatin1String("pdf"), Qt::CaseInsensitive) == 0) {
    return savePdf(file, width(), height(), QCP::epNoCosmetic, QStringLiteral("Torch Workbench"), m_title);
  }
  return savePng(file, 0, 0, 2.0);  // twice the on-screen resolution: sharp in papers and slides
}

bool MetricChart::saveCsv(const QString& file) const {
  QFile out(file);
  if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) return false;
  QTextStream stream(&out);
  stream << "series," << csvQuote(xAxis->label()) << ",value,unit\n";
  for (const auto& entry : m_series) {
    const Series& s = entry.second;
    const QString unit = csvQuote(s.rightAxis ? yAxis2->label() : yAxis->label());
    const QString name = csvQuote(s.name);
    for (int i = 0; i < s.keys.size(); ++i) {
      stream << name << ',' << QString::number(s.keys[i], 'g', 12) << ','
             << QString::number(s.values[i], 'g', 10) << ',' << unit << '\n';
    }
  }
  stream.flush();
  return out.error() == QFileDevice::NoError;
}

void MetricChart::mousePressEvent(QMouseEvent* event) {
  hideHover();
  QCustomPlot::mousePressEvent(event);
}

void MetricChart::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  if (event->buttons() != Qt::NoButton) {
    m_follow = false;  // the user is panning: stop chasing new data
    return;
  }
  const QPointF p = event->position();
  const Series* best = nullptr;
  double bestDist = kChartHoverRadiusPx, bestKey = 0, bestValue = 0;
  for (const auto& entry : m_series) {
    const Series& s = entry.second;
    if (!s.graph->visible() || s.keys.isEmpty()) continue;
    // Exact values from the full data, whatever the graph draws.
    const double key = s.graph->keyAxis()->pixelToCoord(p.x());
    const int at = static_cast<int>(std::lower_bound(s.keys.begin(), s.keys.end(), key) - s.keys.begin());
    for (int i = std::max(0, at - 1); i <= std::min(at, static_cast<int>(s.keys.size()) - 1); ++i) {
      const QPointF q = s.graph->coordsToPixels(s.keys[i], s.values[i]);
      const double d = std::hypot(q.x() - p.x(), q.y() - p.y());
      if (d < bestDist) {
        bestDist = d;
        best = &s;
        bestKey = s.keys[i];
        bestValue = s.values[i];
      }
    }
  }
  if (!best) {
    hideHover();
    return;
  }
  m_tracer->position->setAxes(best->graph->keyAxis(), best->graph->valueAxis());
  m_tracer->position->setCoords(bestKey, bestValue);
  m_tracer->setPen(QPen(best->graph->pen().color(), 2));
  m_tracer->setVisible(true);
  m_overlay->replot();
  const QString yLabel = best->rightAxis ? yAxis2->label() : yAxis->label();
  QToolTip::showText(
      event->globalPosition().toPoint(),
      QStringLiteral("<b>%1</b><br>%2: %3<br>%4: %5")
          .arg(best->name.toHtmlEscaped(), xAxis->label().toHtmlEscaped(), QString::number(bestKey, 'g', 10),
               yLabel.toHtmlEscaped(), QString::number(bestValue, 'g', 7)),
      this);
}

void MetricChart::hideHover() {
  if (m_tracer && m_tracer->visible()) {
    m_tracer->setVisible(false);
    m_overlay->replot();
  }
  QToolTip::hideText();
}

void MetricChart::mouseDoubleClickEvent(QMouseEvent* event) {
  QCustomPlot::mouseDoubleClickEvent(event);
  autoscale();
}

void MetricChart::wheelEvent(QWheelEvent* event) {
  m_follow = false;  // the user zoomed: keep their view until they ask for autoscale
  QCustomPlot::wheelEvent(event);
}

void MetricChart::leaveEvent(QEvent* event) {
  hideHover();
  QCustomPlot::leaveEvent(event);
}

void MetricChart::changeEvent(QEvent* event) {
  QCustomPlot::changeEvent(event);
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
    applyPalette();
    m_dirty = true;
  }
}

void MetricChart::applyPalette() {
  const QPalette pal = palette();
  const QColor base = pal.color(QPalette::Base);
  const QColor text = pal.color(QPalette::WindowText);
  QColor grid = text;
  grid.setAlpha(40);
  QColor subtle = text;
  subtle.setAlpha(140);
  setBackground(pal.color(QPalette::Window));
  axisRect()->setBackground(base);
  for (QCPAxis* axis : {xAxis, yAxis, yAxis2}) {
    axis->setBasePen(QPen(subtle, 1));
    axis->setTickPen(QPen(subtle, 1));
    axis->setSubTickPen(QPen(subtle, 1));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    axis->grid()->setZeroLinePen(Qt::NoPen);
  }
  m_titleElement->setTextColor(text);
  // The legend is a row above the plot (placeLegend), not a box over it: no frame, no fill.
  legend->setBrush(Qt::NoBrush);
  legend->setBorderPen(Qt::NoPen);
  legend->setTextColor(text);
  m_emptyLabel->setColor(subtle);
}

void MetricChart::showContextMenu(const QPoint& pos) {
  QMenu menu(this);
  QAction* autoscaleAction = menu.addAction(tr("Autoscale"));
  autoscaleAction->setToolTip(tr("Fit all data and follow new data (also: double-click)"));
  QAction* logAction = menu.addAction(tr("Logarithmic y axis"));
  logAction->setCheckable(true);
  logAction->setChecked(m_log);
  QAction* legendAction = menu.addAction(tr("Show legend"));
  legendAction->setCheckable(true);
  legendAction->setChecked(m_legendShown);
  menu.addSeparator();
  QAction* imageAction = menu.addAction(tr("Save image (PNG/PDF)…"));
  QAction* csvAction = menu.addAction(tr("Save data as CSV…"));
  csvAction->setEnabled(totalPointCount() > 0);
  QAction* chosen = menu.exec(mapToGlobal(pos));
  if (chosen == autoscaleAction) {
    autoscale();
  } else if (chosen == logAction) {
    setLogScale(logAction->isChecked());
  } else if (chosen == legendAction) {
    setLegendShown(legendAction->isChecked());
  } else if (chosen == imageAction) {
    const QString suggested =
        m_title.toLower().replace(QLatin1Char(' '), QLatin1Char('-')) + QStringLiteral(".png");
    const QString file = QFileDialog::getSaveFileName(this, tr("Save chart image"), suggested,
                                                      tr("PNG image (*.png);;PDF document (*.pdf)"));
    if (!file.isEmpty() && !saveImage(file)) {
      QMessageBox::warning(this, tr("Save image"), tr("Could not write %1.").arg(file));
    }
  } else if (chosen == csvAction) {
    const QString suggested =
        m_title.toLower().replace(QLatin1Char(' '), QLatin1Char('-')) + QStringLiteral(".csv");
    const QString file =
        QFileDialog::getSaveFileName(this, tr("Save chart data"), suggested, tr("CSV file (*.csv)"));
    if (!file.isEmpty() && !saveCsv(file)) {
      QMessageBox::warning(this, tr("Save data"), tr("Could not write %1.").arg(file));
    }
  }
}

}  // namespace wb::gui
