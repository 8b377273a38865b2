#include "runs_browser/run_compare_view.h"

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPalette>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "run/run_status_words.h"
#include "runs_browser/runs_table_model.h"
#include "workbench/event_json.h"
#include "workbench/experiment.h"
#include "workbench/experiment_defaults.h"

namespace wb::gui {
namespace {

// Every leaf of an experiment document under its dotted path; arrays whole, as compact JSON (as the CLI's
// diff compares them).
void flatten(const nlohmann::json& node, const std::string& path, std::map<std::string, std::string>& out) {
  if (node.is_object() && !node.empty()) {
    for (auto it = node.begin(); it != node.end(); ++it)
      flatten(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
    return;
  }
  out[path] = node.is_string() ? node.get<std::string>() : node.dump();
}

struct RunColumn {
  RunRecord record;
  std::map<std::string, std::string> keys;
  std::vector<std::string> defaulted;  // sorted: keys left at their default (shown "(default)")
  std::optional<RunSummary> summary;
  QString problem;  // the experiment could not be read
};

RunColumn readColumn(const RunRecord& r) {
  RunColumn c;
  c.record = r;
  const ParseResult parsed = loadExperimentFile(r.folder + "/experiment.json");
  if (parsed.ok()) {
    const nlohmann::json doc = experimentToJson(parsed.experiment);
    flatten(doc, "", c.keys);
    c.defaulted = defaultedKeys(doc);
  } else {
    c.problem = QString::fromStdString(formatIssues(parsed.issues)).trimmed();
  }
  std::ifstream in(r.folder + "/summary.json");
  if (in) {
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false);
    if (doc.is_object()) c.summary = summaryFromJson(doc);
  }
  return c;
}

}  // namespace

RunCompareView::RunCompareView(QWidget* parent) : QWidget(parent) {
  m_header = new QLabel(this);
  m_header->setWordWrap(true);
  m_onlyDifferences = new QCheckBox(tr("Only differences"), this);
  m_onlyDifferences->setObjectName(QStringLiteral("onlyDifferences"));
  m_onlyDifferences->setToolTip(tr("Hide the experiment keys that are the same in every run"));
  m_table = new QTableWidget(this);
  m_table->setObjectName(QStringLiteral("compareTable"));
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectItems);
  m_table->setWordWrap(false);
  m_table->verticalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_table->verticalHeader()->setDefaultSectionSize(QFontMetrics(m_table->font()).height() + 8);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  m_table->horizontalHeader()->setStretchLastSection(true);

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(m_header, 1);
  bar->addWidget(m_onlyDifferences);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addLayout(bar);
  layout->addWidget(m_table, 1);
  connect(m_onlyDifferences, &QCheckBox::toggled, this, &RunCompareView::applyFilter);
}

namespace {

// Every key any run has, in the documents' (alphabetical) order, and those whose values differ between the
// readable runs.
void findKeys(const std::vector<RunColumn>& columns, QStringList& keys, QSet<QString>& differing) {
  std::map<std::string, bool> all;
  for (const RunColumn& c : columns) {
    for (const auto& entry : c.keys) all[entry.first] = true;
  }
  keys.clear();
  differing.clear();
  for (const auto& entry : all) {
    const QString key = QString::fromStdString(entry.first);
    keys << key;
    std::optional<std::string> first;
    bool differs = false;
    for (const RunColumn& c : columns) {
      if (!c.problem.isEmpty()) continue;
      auto it = c.keys.find(entry.first);
      const std::string value = it == c.keys.end() ? std::string(1, '\x01') + "absent" : it->second;
      if (!first) {
        first = value;
      } else if (*first != value) {
        differs = true;
      }
    }
    if (differs) differing.insert(key);
  }
}

// A run's result, one row of the table's top section.
struct ResultRow {
  QString label;
  std::function<QString(const RunColumn&)> text;
};

std::vector<ResultRow> resultRows() {
  return {
      {RunCompareView::tr("Status"), [](const RunColumn& c) { return runStatusWord(c.record.status); }},
      {RunCompareView::tr("Model · data"),
       [](const RunColumn& c) { return QString::fromStdString(c.record.model + " · " + c.record.dataset); }},
      {RunCompareView::tr("Steps (epochs)"),
       [](const RunColumn& c) { return QStringLiteral("%1 (%2)").arg(c.record.steps).arg(c.record.epochs); }},
      {RunCompareView::tr("Best val loss"),
       [](const RunColumn& c) { return RunsTableModel::formatMetric(c.record.best_val_loss, false); }},
      {RunCompareView::tr("Best val accuracy"),
       [](const RunColumn& c) { return RunsTableModel::formatMetric(c.record.best_val_accuracy, true); }},
      {RunCompareView::tr("Test loss"),
       [](const RunColumn& c) { return RunsTableModel::formatMetric(c.record.test_loss, false); }},
      {RunCompareView::tr("Test accuracy"),
       [](const RunColumn& c) { return RunsTableModel::formatMetric(c.record.test_accuracy, true); }},
      {RunCompareView::tr("Samples/s"),
       [](const RunColumn& c) {
         return c.summary ? QString::number(c.summary->samples_per_sec, 'f', 0) : QStringLiteral("—");
       }},
      {RunCompareView::tr("Duration"),
       [](const RunColumn& c) { return RunsTableModel::formatDuration(c.record.wall_s); }},
      {RunCompareView::tr("Tags"),
       [](const RunColumn& c) {
         QStringList tags;
         for (const std::string& t : c.record.tags) tags << QString::fromStdString(t);
         return tags.join(QStringLiteral(", "));
       }},
  };
}

// The experiment's keys, one row each from `firstRow`: each run's value, "(default)" where it is the default,
// the rows that differ marked.
void fillKeyRows(QTableWidget* table, int firstRow, const std::vector<RunColumn>& columns,
                 const QStringList& keys, const QSet<QString>& differing, const QFont& bold,
                 QStringList& rowLabels) {
  const bool dark = QApplication::palette().color(QPalette::Base).lightness() < 128;
  const QColor marked = dark ? QColor(0x6d, 0x55, 0x10) : QColor(0xff, 0xf1, 0xb8);
  for (int k = 0; k < keys.size(); ++k) {
    const bool differs = differing.contains(keys[k]);
    rowLabels << (differs ? QStringLiteral("≠ ") : QStringLiteral("   ")) + keys[k];
    for (int col = 0; col < static_cast<int>(columns.size()); ++col) {
      auto it = columns[col].keys.find(keys[k].toStdString());
      const RunColumn& column = columns[col];
      auto* item = new QTableWidgetItem(it == column.keys.end() ? RunCompareView::tr("(absent)")
                                                                : QString::fromStdString(it->second));
      if (std::binary_search(column.defaulted.begin(), column.defaulted.end(),
                             it == column.keys.end() ? std::string() : it->first)) {
        item->setText(item->text() + RunCompareView::tr("  (default)"));
        item->setToolTip(
            RunCompareView::tr("The key's default value (docs/experiment.md lists every default)"));
      }
      if (differs) {
        item->setBackground(marked);
        item->setFont(bold);
      }
      table->setItem(firstRow + k, col, item);
    }
  }
}

}  // namespace

void RunCompareView::setRuns(const std::vector<RunRecord>& runs) {
  std::vector<RunColumn> columns;
  for (const RunRecord& r : runs) columns.push_back(readColumn(r));

  findKeys(columns, m_keys, m_differing);

  const std::vector<ResultRow> results = resultRows();

  m_table->clear();
  m_firstKeyRow = static_cast<int>(results.size()) + 1;  // a section row between results and keys
  m_table->setRowCount(m_firstKeyRow + m_keys.size());
  m_table->setColumnCount(static_cast<int>(columns.size()));
  QStringList headers;
  for (const RunColumn& c : columns) headers << QString::fromStdString(c.record.name);
  m_table->setHorizontalHeaderLabels(headers);
  for (int col = 0; col < static_cast<int>(columns.size()); ++col) {
    m_table->horizontalHeaderItem(col)->setToolTip(
        QDir::toNativeSeparators(QString::fromStdString(columns[col].record.folder)));
  }

  const QColor section = QApplication::palette().color(QPalette::AlternateBase);
  QFont bold = m_table->font();
  bold.setBold(true);

  QStringList rowLabels;
  for (int row = 0; row < static_cast<int>(results.size()); ++row) {
    rowLabels << results[row].label;
    for (int col = 0; col < static_cast<int>(columns.size()); ++col) {
      auto* item = new QTableWidgetItem(results[row].text(columns[col]));
      item->setFont(bold);
      m_table->setItem(row, col, item);
    }
  }
  rowLabels << tr("Experiment (%n key(s) differ)", nullptr, static_cast<int>(m_differing.size()));
  for (int col = 0; col < static_cast<int>(columns.size()); ++col) {
    auto* item =
        new QTableWidgetItem(columns[col].problem.isEmpty() ? QString() : tr("experiment.json unreadable"));
    item->setBackground(section);
    if (!columns[col].problem.isEmpty()) item->setToolTip(columns[col].problem);
    m_table->setItem(m_firstKeyRow - 1, col, item);
  }
  fillKeyRows(m_table, m_firstKeyRow, columns, m_keys, m_differing, bold, rowLabels);
  m_table->setVerticalHeaderLabels(rowLabels);
  for (int k = 0; k < m_keys.size(); ++k) {
    if (m_differing.contains(m_keys[k])) m_table->verticalHeaderItem(m_firstKeyRow + k)->setFont(bold);
  }
  m_table->verticalHeaderItem(m_firstKeyRow - 1)->setFont(bold);

  m_header->setText(tr("%n run(s) compared: %1 of %2 experiment keys differ (marked ≠).", nullptr,
                       static_cast<int>(columns.size()))
                        .arg(m_differing.size())
                        .arg(m_keys.size()));
  m_table->resizeColumnsToContents();
  for (int col = 0; col < m_table->columnCount(); ++col) {
    m_table->setColumnWidth(col, qBound(120, m_table->columnWidth(col) + 12, 320));
  }
  applyFilter();
}

QStringList RunCompareView::differingKeys() const {
  QStringList keys;
  for (const QString& key : m_keys) {
    if (m_differing.contains(key)) keys << key;
  }
  return keys;
}

void RunCompareView::setOnlyDifferences(bool on) {
  m_onlyDifferences->setChecked(on);
}

bool RunCompareView::onlyDifferences() const {
  return m_onlyDifferences->isChecked();
}

int RunCompareView::rowOf(const QString& key) const {
  const int k = m_keys.indexOf(key);
  return k < 0 ? -1 : m_firstKeyRow + k;
}

void RunCompareView::applyFilter() {
  const bool only = m_onlyDifferences->isChecked();
  for (int k = 0; k < m_keys.size(); ++k) {
    m_table->setRowHidden(m_firstKeyRow + k, only && !m_differing.contains(m_keys[k]));
  }
}

}  // namespace wb::gui
