#include "runs_browser/runs_filters.h"

#include <QComboBox>
#include <QLineEdit>
#include <QSet>

#include "run/run_status_words.h"
#include "runs_browser/runs_filter_proxy.h"
#include "runs_browser/runs_table_model.h"

namespace wb::gui {

QStringList sweepNamesOf(const std::vector<RunRow>& rows) {
  QStringList names;
  for (const RunRow& row : rows) {
    for (const std::string& tag : row.record.tags) {
      const QString t = QString::fromStdString(tag);
      if (t.startsWith(QLatin1String("sweep:")) && !names.contains(t.mid(6))) names << t.mid(6);
    }
  }
  names.sort();
  return names;
}

RunsFilters::RunsFilters(RunsFilterProxy* proxy, QWidget* browser) : QObject(browser), m_proxy(proxy) {
  m_search = new QLineEdit(browser);
  m_search->setObjectName(QStringLiteral("runsSearch"));
  m_search->setPlaceholderText(tr("Search name, model, data, tags, notes…"));
  m_search->setToolTip(
      tr("Every word must match (case-insensitive); \"tag:baseline\" looks in the tags only"));
  m_search->setClearButtonEnabled(true);
  m_search->setMinimumWidth(160);
  m_status = new QComboBox(browser);
  m_status->setObjectName(QStringLiteral("runsStatusFilter"));
  m_status->addItem(tr("All statuses"), QString());
  for (const RunIndexStatus status : {RunIndexStatus::Running, RunIndexStatus::Finished,
                                      RunIndexStatus::Interrupted, RunIndexStatus::Failed}) {
    m_status->addItem(runStatusWord(status), QString::fromStdString(wordString(status)));
  }
  m_sweep = new QComboBox(browser);
  m_sweep->setObjectName(QStringLiteral("runsSweepFilter"));
  m_sweep->setToolTip(tr("Only the trials of one sweep"));
  m_sweep->addItem(tr("All runs"), QString());
  m_sweep->setVisible(false);

  connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
    m_proxy->setSearchText(text);
    emit changed();
  });
  connect(m_status, &QComboBox::currentIndexChanged, this, [this] {
    const QString status = m_status->currentData().toString();
    m_proxy->setStatuses(status.isEmpty() ? QSet<QString>() : QSet<QString>{status});
    emit changed();
  });
  connect(m_sweep, &QComboBox::currentIndexChanged, this, [this] {
    m_proxy->setSweep(m_sweep->currentData().toString());
    emit changed();
  });
}

void RunsFilters::showSweep(const QString& name) {
  const int at = m_sweep->findData(name);
  if (at < 0 && !name.isEmpty()) {
    m_sweep->addItem(tr("Sweep %1").arg(name), name);  // its first trial is not listed yet
    m_sweep->setVisible(true);
  }
  m_sweep->setCurrentIndex(qMax(0, m_sweep->findData(name)));
}

void RunsFilters::offerSweeps(const QStringList& sweeps) {
  const QString picked = m_sweep->currentData().toString();
  QStringList listed;
  for (int i = 1; i < m_sweep->count(); ++i) listed << m_sweep->itemData(i).toString();
  if (listed != sweeps) {
    const QSignalBlocker blockSweep(m_sweep);
    m_sweep->clear();
    m_sweep->addItem(tr("All runs"), QString());
    for (const QString& name : sweeps) m_sweep->addItem(tr("Sweep %1").arg(name), name);
    if (!picked.isEmpty() && !sweeps.contains(picked)) m_sweep->addItem(tr("Sweep %1").arg(picked), picked);
    m_sweep->setCurrentIndex(qMax(0, m_sweep->findData(picked)));
  }
  m_sweep->setVisible(m_sweep->count() > 1);
}

}  // namespace wb::gui
