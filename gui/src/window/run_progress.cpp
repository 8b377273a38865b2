#include "window/run_progress.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QStringList>
#include <cmath>

namespace wb::gui {

QString formatDuration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return QStringLiteral("—");
  const qint64 s = static_cast<qint64>(std::llround(seconds));
  if (s < 60) return QObject::tr("%1 s").arg(s);
  if (s < 3600) return QObject::tr("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
  return QObject::tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString describeDevices(const std::vector<std::string>& devices) {
  QStringList names;
  for (const std::string& d : devices) names << QString::fromStdString(d);
  if (names.isEmpty()) return QString();
  if (names.size() == 1) return QObject::tr("Device: %1").arg(names.front());
  return QObject::tr("%1 ranks: %2 (data parallel)").arg(names.size()).arg(names.join(QStringLiteral(", ")));
}

RunProgress::RunProgress(QWidget* parent) : QWidget(parent) {
  m_bar = new QProgressBar(this);
  m_bar->setObjectName(QStringLiteral("runProgressBar"));
  m_bar->setRange(0, 1000);
  m_bar->setValue(0);
  m_bar->setTextVisible(true);
  m_bar->setFormat(QString());
  m_bar->setMinimumWidth(160);
  m_bar->setMaximumWidth(320);
  m_label = new QLabel(this);
  m_label->setObjectName(QStringLiteral("runProgressText"));
  m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_devices = new QLabel(this);
  m_devices->setObjectName(QStringLiteral("runDevices"));
  m_devices->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_devices->setVisible(false);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(6, 0, 6, 0);
  layout->addWidget(m_bar);
  layout->addWidget(m_label, 1);
  layout->addWidget(m_devices);
  reset(tr("Ready"), 0);
}

void RunProgress::reset(const QString& text, int64_t plannedEpochs) {
  m_epochs = plannedEpochs;
  m_bar->setValue(0);
  m_bar->setFormat(QString());
  m_hasStep = false;
  m_paused = false;
  setText(text);
}

void RunProgress::update(const StepMetrics& s) {
  const double fraction =
      s.total_steps > 0 ? static_cast<double>(s.step) / static_cast<double>(s.total_steps) : 0;
  m_bar->setValue(static_cast<int>(std::lround(std::min(1.0, fraction) * 1000)));
  m_bar->setFormat(QStringLiteral("%1 %").arg(fraction * 100, 0, 'f', 1));
  const QLocale locale;
  QString epoch = m_epochs > 0 ? tr("Epoch %1/%2").arg(s.epoch).arg(m_epochs) : tr("Epoch %1").arg(s.epoch);
  m_hasStep = true;
  QString line = (tr("%1 · step %2/%3 · %4 samples/s · elapsed %5 · ETA %6")
                      .arg(epoch, locale.toString(static_cast<qlonglong>(s.step)),
                           locale.toString(static_cast<qlonglong>(s.total_steps)),
                           locale.toString(s.samples_per_sec, 'f', 0), formatDuration(s.elapsed_s),
                           formatDuration(s.eta_s)));
  if (s.allreduce_ms >= 0) {
    QString comm = tr(" · allreduce %1 ms/step").arg(s.allreduce_ms, 0, 'f', 1);
    if (s.allreduce_hidden_fraction >= 0) {
      comm += tr(", %1 % hidden behind backward").arg(s.allreduce_hidden_fraction * 100, 0, 'f', 0);
    }
    line += comm;
  }
  setText(line);
}

void RunProgress::setText(const QString& text) {
  m_text = text;
  showText();
}

void RunProgress::setPaused(bool paused) {
  if (paused == m_paused) return;
  m_paused = paused;
  showText();
}

void RunProgress::showText() {
  if (!m_paused) {
    m_label->setText(m_text);
  } else if (m_hasStep) {
    m_label->setText(tr("Paused · %1").arg(m_text));
  } else {
    m_label->setText(
        tr("Paused before the first step: the data and the model are made ready, then the run waits "
           "for Resume"));
  }
}

void RunProgress::setDevices(const std::vector<std::string>& devices, const QString& source) {
  m_devices->setText(describeDevices(devices));
  m_devices->setToolTip(source);
  m_devices->setVisible(!devices.empty());
}

QString RunProgress::devicesText() const {
  return m_devices->text();
}

QString RunProgress::text() const {
  return m_label->text();
}

int RunProgress::value() const {
  return m_bar->value();
}

}  // namespace wb::gui
