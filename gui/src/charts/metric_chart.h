#pragma once
// One chart of the window: a QCustomPlot with named series that only grow at the end (sorted keys), a cached
// data range per series (so autoscaling never rescans a million points), a dirty flag the replot timer reads,
// and the interactions a user expects: wheel zoom, drag pan, double-click autoscale, log scale, hover
// tooltips with exact values, and saving the image (PNG/PDF) or the data (CSV).

#include <qcustomplot.h>

#include <QColor>
#include <QString>
#include <QStringList>
#include <QVector>
#include <limits>
#include <vector>

namespace wb::gui {

struct SeriesStyle {
  QColor color;
  Qt::PenStyle pen = Qt::SolidLine;
  double width = 1.6;
  bool markers = false;    // a circle at each point (per-epoch values)
  bool rightAxis = false;  // plotted against the right y axis (its own unit)
  bool legend = true;
};

class MetricChart : public QCustomPlot {
  Q_OBJECT

 public:
  MetricChart(const QString& title, const QString& xLabel, const QString& yLabel, QWidget* parent = nullptr);

  QString title() const { return m_title; }
  // Another title and value axis (the figure chart showing another task's figure); the object name follows.
  void setTitle(const QString& title, const QString& yLabel);
  void setRightAxisLabel(const QString& label);
  // Shown centred while the chart has no data (what would make this chart fill, in words).
  void setEmptyText(const QString& text);
  // The legend sits in a row of its own between the title and the plot, so it never covers a curve; it is
  // there only once the chart has data, and the user can fold it away (right-click ▸ Show legend).
  void setLegendShown(bool shown);
  bool legendShown() const { return m_legendShown; }
  bool legendPlaced() const { return m_legendPlaced; }  // in the layout now (shown, with data, with entries)
  // The least span of the y axis while following the data, so a nearly flat curve (memory that grows by a few
  // MiB) is drawn nearly flat instead of magnified into a staircase: the larger of `absolute` and `fraction`
  // of the value's size.
  void setMinimumValueSpan(double absolute, double fraction);
  // The value axis starts at 0 when following data that is never negative (linear scale): a learning rate's
  // flat line sits at its height, not in the middle of a ±10 % range ticked at 0.0475, 0.05, 0.0525.
  void setValueAxisFromZero(bool fromZero);
  // At most about this many value ticks (QCustomPlot's default is 5): a short chart's labels would run
  // together. Kept across log-scale toggles.
  void setValueTickCount(int count);
  // Follow the data again (a new run starts): the next replot fits the axes to what the chart holds.
  void followData();
  // The placeholder as drawn: wrapped to the plot's width.
  QString emptyTextShown() const;

  // Returns a handle for appendPoints/removeSeries. `group` ties series together (one run's curves).
  int addSeries(const QString& name, const SeriesStyle& style, const QString& group);
  void setSeriesName(int series, const QString& name);
  void setSeriesStyle(int series, const SeriesStyle& style);
  void setSeriesVisible(int series, bool visible);
  // Keys must be sorted and not smaller than the last key already in the series.
  void appendPoints(int series, const QVector<double>& keys, const QVector<double>& values);
  void replacePoints(int series, const QVector<double>& keys, const QVector<double>& values);
  void removeSeries(int series);
  void removeGroup(const QString& group);

  int seriesCount() const;
  // The series' names in order of addition; with `inLegend`, only those the legend lists (visible ones).
  QStringList seriesNames(bool inLegend = false) const;
  int pointCount(int series) const;
  int totalPointCount() const;

  bool isDirty() const { return m_dirty; }
  void markDirty() { m_dirty = true; }
  // Called by the replot timer: rescales (when following the data) and queues a replot only when needed.
  void replotIfDirty();

  bool followsData() const { return m_follow; }
  void autoscale();
  bool logScale() const { return m_log; }
  void setLogScale(bool on);

  bool saveImage(const QString& file);  // .png or .pdf by suffix
  bool saveCsv(const QString& file) const;

 signals:
  void logScaleChanged(bool on);

 protected:
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  struct Series {
    QCPGraph* graph = nullptr;
    QString name;
    QString group;
    bool rightAxis = false;
    bool legend = true;
    // The full data. The graph holds it too while it is small; beyond kDirectPoints the graph holds only a
    // min/max-per-pixel view of the visible range, rebuilt before a replot when the data or the view changed.
    QVector<double> keys, values;
    bool viewStale = true;
    double minKey = std::numeric_limits<double>::infinity();
    double maxKey = -std::numeric_limits<double>::infinity();
    double minValue = std::numeric_limits<double>::infinity();
    double maxValue = -std::numeric_limits<double>::infinity();
    double minPositive = std::numeric_limits<double>::infinity();
  };

  void applyPalette();
  void updateViews();
  void rebuildView(Series& s);
  void rescaleFromCache();
  void extendCache(Series& s, const QVector<double>& keys, const QVector<double>& values);
  void showContextMenu(const QPoint& pos);
  void hideHover();
  void updateEmptyText();
  void placeLegend();
  void fitLegendColumns();
  void resetAxes();
  void applyValueTicks(QCPAxis* axis);
  Series* find(int series);
  const Series* find(int series) const;

  QString m_title;
  QCPTextElement* m_titleElement = nullptr;
  QCPItemText* m_emptyLabel = nullptr;
  QCPItemTracer* m_tracer = nullptr;
  QCPLayer* m_overlay = nullptr;
  std::vector<std::pair<int, Series>> m_series;
  int m_nextId = 1;
  bool m_dirty = true;
  bool m_follow = true;
  bool m_log = false;
  bool m_rightAxisUsed = false;
  bool m_legendShown = true;
  bool m_legendPlaced = false;
  QString m_emptyText;
  double m_minSpanAbsolute = 0;
  bool m_fromZero = false;
  int m_valueTicks = 5;  // QCustomPlot's default
  double m_minSpanFraction = 0;
  QCPRange m_viewRange;
  int m_viewWidth = 0;
};

}  // namespace wb::gui
