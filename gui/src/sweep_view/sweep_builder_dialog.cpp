#include "sweep_view/sweep_builder_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "app/off_thread.h"
#include "editor/experiment_editor.h"
#include "editor/json_path.h"
#include "queue_view/queue_actions.h"
#include "widgets/screen_fit.h"
#include "workbench/errors.h"
#include "workbench/experiment.h"
#include "workbench/experiment_keys.h"

namespace wb::gui {
namespace {

constexpr int kSweepPreviewRows = 50;  // the first trials; the summary counts them all
constexpr int kSweepPlanDebounceMs = 250;
enum SweepKeyColumn { kKeyCol, kFormCol, kValuesCol, kFromCol, kToCol, kCountCol, kScaleCol, kKeyCols };

// The keys a sweep can try: single values (not the layer list, not a list key), not the run's name or folder.
QStringList sweepableKeys() {
  QStringList keys;
  for (const ExperimentKey& key : experimentKeys()) {
    if (key.kind == ExperimentKeyKind::List || key.kind == ExperimentKeyKind::Layers) continue;
    if (key.path == "name" || key.path.rfind("output.", 0) == 0) continue;
    keys << QString::fromStdString(key.path);
  }
  return keys;
}

double numberIn(const QLineEdit* field, const std::string& key, const char* end) {
  const std::string text = field->text().trimmed().toStdString();
  size_t used = 0;
  try {
    const double value = std::stod(text, &used);
    if (used == text.size() && std::isfinite(value)) return value;
  } catch (const std::exception&) {
  }
  throw UserError("keys." + key + ": the range's " + end + " \"" + text + "\" is not a number",
                  "Write a number, such as 0.0001 or 1e-4.");
}

QString numberText(double value) {
  return QString::number(value, 'g', 6);
}

}  // namespace

SweepBuilderDialog::SweepBuilderDialog(ExperimentEditor* editor, QueueActions* queue, QWidget* parent)
    : QDialog(parent), m_editor(editor), m_queue(queue) {
  setObjectName(QStringLiteral("sweepBuilder"));
  setWindowTitle(tr("Sweep Builder"));
  auto* settings = new QGridLayout;
  buildSettings(settings);

  m_keys = new QTableWidget(0, kKeyCols, this);
  m_keys->setObjectName(QStringLiteral("sweepKeys"));
  m_keys->setHorizontalHeaderLabels(
      {tr("Key"), tr("Values as"), tr("Values (a list)"), tr("From"), tr("To"), tr("Count"), tr("Scale")});
  m_keys->verticalHeader()->setVisible(false);
  m_keys->horizontalHeader()->setSectionResizeMode(kValuesCol, QHeaderView::Stretch);
  m_keys->setColumnWidth(kKeyCol,
                         fontMetrics().horizontalAdvance(QStringLiteral("optimizer.weight_decay")) + 40);
  m_keys->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_keys->setSelectionMode(QAbstractItemView::SingleSelection);
  auto* addKeyButton = new QPushButton(tr("Add Key"), this);
  addKeyButton->setObjectName(QStringLiteral("sweepAddKey"));
  auto* removeKeyButton = new QPushButton(tr("Remove Key"), this);
  removeKeyButton->setObjectName(QStringLiteral("sweepRemoveKey"));
  connect(addKeyButton, &QPushButton::clicked, this, [this] { addKey(); });
  connect(removeKeyButton, &QPushButton::clicked, this, [this] { removeKey(m_keys->currentRow()); });
  auto* keyButtons = new QHBoxLayout;
  keyButtons->addWidget(addKeyButton);
  keyButtons->addWidget(removeKeyButton);
  keyButtons->addStretch(1);
  auto* keysBox = new QGroupBox(tr("Keys and the values to try"), this);
  auto* keysLayout = new QVBoxLayout(keysBox);
  keysLayout->addWidget(m_keys, 1);
  keysLayout->addLayout(keyButtons);

  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("sweepPreviewSummary"));
  m_summary->setWordWrap(true);
  m_preview = new QTableWidget(this);
  m_preview->setObjectName(QStringLiteral("sweepPreview"));
  m_preview->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_preview->verticalHeader()->setVisible(false);
  m_preview->horizontalHeader()->setStretchLastSection(true);
  m_preview->setAlternatingRowColors(true);
  auto* previewBox = new QGroupBox(tr("Preview: the trials as the engine plans them"), this);
  auto* previewLayout = new QVBoxLayout(previewBox);
  previewLayout->addWidget(m_summary);
  previewLayout->addWidget(m_preview, 1);

  m_problem = new QLabel(this);
  m_problem->setObjectName(QStringLiteral("sweepProblem"));
  m_problem->setWordWrap(true);
  m_problem->setStyleSheet(QStringLiteral("color: #b91c1c;"));
  m_problem->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_problem->hide();

  auto* buttons = new QHBoxLayout;
  buildButtons(buttons);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(settings);
  layout->addWidget(keysBox, 2);
  layout->addWidget(previewBox, 3);
  layout->addWidget(m_problem);
  layout->addLayout(buttons);

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(kSweepPlanDebounceMs);
  connect(&m_debounce, &QTimer::timeout, this, &SweepBuilderDialog::plan);
  fitToScreen(this, QSize(980, 700), false);
  updateButtons();
}

void SweepBuilderDialog::buildSettings(QGridLayout* grid) {
  m_name = new QLineEdit(QStringLiteral("sweep"), this);
  m_name->setObjectName(QStringLiteral("sweepName"));
  m_name->setToolTip(tr("Names the sweep and its trials' runs (<name>-t01, …): letters, digits, -, _ and ."));
  m_search = new QComboBox(this);
  m_search->setObjectName(QStringLiteral("sweepSearch"));
  m_search->addItem(tr("Grid: every combination"), QString::fromStdString(wordString(SweepSearch::Grid)));
  m_search->addItem(tr("Random: draws from the ranges"),
                    QString::fromStdString(wordString(SweepSearch::Random)));
  m_trials = new QSpinBox(this);
  m_trials->setObjectName(QStringLiteral("sweepTrials"));
  m_trials->setRange(0, 100000);
  m_trials->setSpecialValueText(tr("all"));
  m_trials->setToolTip(
      tr("A grid: all its combinations, or a seeded subset of this many. A random search: "
         "this many draws."));
  m_seed = new QSpinBox(this);
  m_seed->setObjectName(QStringLiteral("sweepSeed"));
  m_seed->setRange(0, 1000000000);
  m_seed->setValue(1);
  m_metric = new QComboBox(this);
  m_metric->setObjectName(QStringLiteral("sweepMetric"));
  for (const std::string& word : allWords<SweepMetric>()) m_metric->addItem(QString::fromStdString(word));
  m_asha = new QCheckBox(tr("Stop poor trials early (ASHA)"), this);
  m_asha->setObjectName(QStringLiteral("sweepAsha"));
  m_asha->setToolTip(
      tr("At the rungs grace × eta^k epochs a trial trains on only when among the top 1/eta "
         "of the trials that reached the rung (needs a validation share)."));
  m_eta = new QDoubleSpinBox(this);
  m_eta->setObjectName(QStringLiteral("sweepEta"));
  m_eta->setRange(1.5, 100);
  m_eta->setValue(3);
  m_eta->setPrefix(tr("eta "));
  m_grace = new QSpinBox(this);
  m_grace->setObjectName(QStringLiteral("sweepGrace"));
  m_grace->setRange(1, 100000);
  m_grace->setPrefix(tr("first rung at epoch "));
  auto* ashaRow = new QHBoxLayout;
  ashaRow->addWidget(m_asha);
  ashaRow->addWidget(m_eta);
  ashaRow->addWidget(m_grace);
  ashaRow->addStretch(1);
  grid->addWidget(new QLabel(tr("Name"), this), 0, 0);
  grid->addWidget(m_name, 0, 1);
  grid->addWidget(new QLabel(tr("Search"), this), 0, 2);
  grid->addWidget(m_search, 0, 3);
  grid->addWidget(new QLabel(tr("Trials"), this), 0, 4);
  grid->addWidget(m_trials, 0, 5);
  grid->addWidget(new QLabel(tr("Compare on"), this), 1, 0);
  grid->addWidget(m_metric, 1, 1);
  grid->addWidget(new QLabel(tr("Seed"), this), 1, 4);
  grid->addWidget(m_seed, 1, 5);
  grid->addLayout(ashaRow, 2, 0, 1, 6);
  grid->setColumnStretch(1, 1);
  grid->setColumnStretch(3, 1);
  connect(m_name, &QLineEdit::textChanged, this, &SweepBuilderDialog::changed);
  connect(m_search, &QComboBox::currentIndexChanged, this, [this] {
    for (int row = 0; row < static_cast<int>(m_rows.size()); ++row) updateRowForm(row);
    changed();
  });
  connect(m_trials, &QSpinBox::valueChanged, this, &SweepBuilderDialog::changed);
  connect(m_seed, &QSpinBox::valueChanged, this, &SweepBuilderDialog::changed);
  connect(m_metric, &QComboBox::currentIndexChanged, this, &SweepBuilderDialog::changed);
  connect(m_asha, &QCheckBox::toggled, this, [this] {
    m_eta->setEnabled(m_asha->isChecked());
    m_grace->setEnabled(m_asha->isChecked());
    changed();
  });
  connect(m_eta, &QDoubleSpinBox::valueChanged, this, &SweepBuilderDialog::changed);
  connect(m_grace, &QSpinBox::valueChanged, this, &SweepBuilderDialog::changed);
  m_eta->setEnabled(false);
  m_grace->setEnabled(false);
}

void SweepBuilderDialog::buildButtons(QHBoxLayout* row) {
  m_open = new QPushButton(tr("Open…"), this);
  m_open->setObjectName(QStringLiteral("sweepOpen"));
  m_open->setToolTip(tr("Load an existing sweep file to edit"));
  m_save = new QPushButton(tr("Save…"), this);
  m_save->setObjectName(QStringLiteral("sweepSave"));
  m_save->setToolTip(tr("Write the sweep file (workbench-cli sweep reads it too)"));
  m_queueButton = new QPushButton(tr("Queue Trials"), this);
  m_queueButton->setObjectName(QStringLiteral("sweepQueue"));
  m_queueButton->setToolTip(tr("Queue the trials over the experiment in the editor; a worker trains them"));
  m_queueButton->setDefault(true);
  auto* close = new QPushButton(tr("Close"), this);
  connect(m_open, &QPushButton::clicked, this, &SweepBuilderDialog::chooseFileToOpen);
  connect(m_save, &QPushButton::clicked, this, &SweepBuilderDialog::chooseFileToSave);
  connect(m_queueButton, &QPushButton::clicked, this, &SweepBuilderDialog::queuePlanned);
  connect(close, &QPushButton::clicked, this, &QDialog::reject);
  row->addWidget(m_open);
  row->addWidget(m_save);
  row->addStretch(1);
  row->addWidget(m_queueButton);
  row->addWidget(close);
}

int SweepBuilderDialog::appendRow() {
  const int row = m_keys->rowCount();
  m_keys->insertRow(row);
  KeyRow r;
  r.key = new QComboBox;
  r.key->setEditable(true);
  r.key->addItems(sweepableKeys());
  r.key->setInsertPolicy(QComboBox::NoInsert);
  r.key->setToolTip(tr("An experiment key (type to find one)"));
  r.form = new QComboBox;
  r.form->addItem(tr("list"), QString::fromStdString(wordString(SweepValuesForm::List)));
  r.form->addItem(tr("range"), QString::fromStdString(wordString(SweepValuesForm::Range)));
  r.values = new QLineEdit;
  r.values->setPlaceholderText(tr("64, 128"));
  r.from = new QLineEdit;
  r.to = new QLineEdit;
  r.count = new QSpinBox;
  r.count->setRange(1, 1000);
  r.count->setValue(3);
  r.scale = new QComboBox;
  r.scale->addItem(tr("linear"));
  r.scale->addItem(tr("log"));
  const QWidget* cells[] = {r.key, r.form, r.values, r.from, r.to, r.count, r.scale};
  for (int c = 0; c < kKeyCols; ++c) m_keys->setCellWidget(row, c, const_cast<QWidget*>(cells[c]));
  m_rows.push_back(r);
  connect(r.key, &QComboBox::currentTextChanged, this, [this, key = r.key] {
    for (int i = 0; i < static_cast<int>(m_rows.size()); ++i) {
      if (m_rows[static_cast<size_t>(i)].key == key) keyChosen(i);
    }
  });
  connect(r.form, &QComboBox::currentIndexChanged, this, [this, form = r.form] {
    for (int i = 0; i < static_cast<int>(m_rows.size()); ++i) {
      if (m_rows[static_cast<size_t>(i)].form == form) updateRowForm(i);
    }
    changed();
  });
  for (QLineEdit* edit : {r.values, r.from, r.to})
    connect(edit, &QLineEdit::textChanged, this, &SweepBuilderDialog::changed);
  connect(r.count, &QSpinBox::valueChanged, this, &SweepBuilderDialog::changed);
  connect(r.scale, &QComboBox::currentIndexChanged, this, &SweepBuilderDialog::changed);
  return row;
}

void SweepBuilderDialog::fillRow(int row, const SweepDraftKey& key) {
  const KeyRow& r = m_rows[static_cast<size_t>(row)];
  const bool loading = std::exchange(m_loading, true);
  r.key->setCurrentText(QString::fromStdString(key.key));
  r.form->setCurrentIndex(key.form == SweepValuesForm::Range ? 1 : 0);
  r.values->setText(QString::fromStdString(sweepValuesText(key.values)));
  r.from->setText(key.form == SweepValuesForm::Range ? numberText(key.from) : QString());
  r.to->setText(key.form == SweepValuesForm::Range ? numberText(key.to) : QString());
  r.count->setValue(std::max(1, key.count));
  r.scale->setCurrentIndex(key.log_scale ? 1 : 0);
  m_loading = loading;
  updateRowForm(row);
}

std::string SweepBuilderDialog::baseValueText(const std::string& key) const {
  const nlohmann::json doc = m_editor ? m_editor->document() : nlohmann::json::object();
  const nlohmann::json* value = jsonAt(doc, key);
  if (value && !value->is_null()) return value->is_string() ? value->get<std::string>() : value->dump();
  const ExperimentKey* schema = findExperimentKey(key);
  if (!schema) return {};
  const nlohmann::json fallback = nlohmann::json::parse(schema->default_value, nullptr, false);
  return fallback.is_string() ? fallback.get<std::string>() : schema->default_value;
}

void SweepBuilderDialog::addKey(const std::string& key) {
  std::string chosen = key;
  if (chosen.empty()) {
    std::vector<std::string> used;
    for (const KeyRow& r : m_rows) used.push_back(r.key->currentText().toStdString());
    for (const char* suggestion :
         {"optimizer.lr", "train.batch_size", "optimizer.weight_decay", "optimizer.name"}) {
      if (std::find(used.begin(), used.end(), suggestion) == used.end()) {
        chosen = suggestion;
        break;
      }
    }
  }
  const int row = appendRow();
  SweepDraftKey k;
  k.key = chosen;
  fillRow(row, k);
  keyChosen(row);
  m_keys->setCurrentCell(row, kValuesCol);
  changed();
}

void SweepBuilderDialog::removeKey(int row) {
  if (row < 0 || row >= static_cast<int>(m_rows.size())) return;
  m_keys->removeRow(row);
  m_rows.erase(m_rows.begin() + row);
  changed();
}

// A key picked: its values start as the experiment's own value (a word key's: all its words).
void SweepBuilderDialog::keyChosen(int row) {
  const KeyRow& r = m_rows[static_cast<size_t>(row)];
  if (!m_loading) {
    const std::string key = r.key->currentText().toStdString();
    const ExperimentKey* schema = findExperimentKey(key);
    if (schema) {
      QString values = QString::fromStdString(baseValueText(key));
      if (!schema->choices.empty()) {
        QStringList words;
        for (const std::string& c : schema->choices) words << QString::fromStdString(c);
        values = words.join(QStringLiteral(", "));
      }
      const bool loading = std::exchange(m_loading, true);
      r.values->setText(values);
      const bool numeric =
          schema->kind == ExperimentKeyKind::Number || schema->kind == ExperimentKeyKind::Integer;
      r.form->setEnabled(numeric);
      if (!numeric) r.form->setCurrentIndex(0);
      m_loading = loading;
    }
  }
  updateRowForm(row);
  changed();
}

void SweepBuilderDialog::updateRowForm(int row) {
  const KeyRow& r = m_rows[static_cast<size_t>(row)];
  const bool range = r.form->currentIndex() == 1;
  const bool grid = m_search->currentIndex() == 0;
  r.values->setEnabled(!range);
  r.from->setEnabled(range);
  r.to->setEnabled(range);
  r.count->setEnabled(range && grid);  // a random search draws `trials` values instead
  r.scale->setEnabled(range);
}

SweepDraft SweepBuilderDialog::draft() const {
  SweepDraft d;
  d.name = m_name->text().trimmed().toStdString();
  d.search = m_search->currentIndex() == 0 ? SweepSearch::Grid : SweepSearch::Random;
  d.trials = m_trials->value();
  d.seed = static_cast<uint64_t>(m_seed->value());
  d.metric =
      fromWord<SweepMetric>(m_metric->currentText().toStdString()).value_or(SweepMetric::BestValAccuracy);
  d.asha = m_asha->isChecked();
  d.eta = m_eta->value();
  d.grace_epochs = m_grace->value();
  for (const KeyRow& r : m_rows) {
    SweepDraftKey k;
    k.key = r.key->currentText().trimmed().toStdString();
    const ExperimentKey* schema = findExperimentKey(k.key);
    if (!schema) {
      throw UserError("\"" + k.key + "\" is not an experiment key", "Pick a key from the list of its row.");
    }
    k.form = r.form->currentIndex() == 1 ? SweepValuesForm::Range : SweepValuesForm::List;
    if (k.form == SweepValuesForm::List) {
      k.values = parseSweepValues(r.values->text().toStdString(), *schema);
    } else {
      k.from = numberIn(r.from, k.key, "start");
      k.to = numberIn(r.to, k.key, "end");
      k.count = r.count->value();
      k.log_scale = r.scale->currentIndex() == 1;
    }
    d.keys.push_back(std::move(k));
  }
  return d;
}

void SweepBuilderDialog::setDraft(const SweepDraft& d) {
  const bool loading = std::exchange(m_loading, true);
  m_name->setText(QString::fromStdString(d.name));
  m_search->setCurrentIndex(d.search == SweepSearch::Grid ? 0 : 1);
  m_trials->setValue(static_cast<int>(d.trials));
  m_seed->setValue(static_cast<int>(d.seed));
  m_metric->setCurrentText(QString::fromStdString(wordString(d.metric)));
  m_asha->setChecked(d.asha);
  m_eta->setValue(d.eta);
  m_grace->setValue(static_cast<int>(d.grace_epochs));
  m_keys->setRowCount(0);
  m_rows.clear();
  for (const SweepDraftKey& k : d.keys) fillRow(appendRow(), k);
  m_loading = loading;
  changed();
}

void SweepBuilderDialog::changed() {
  if (m_loading) return;
  ++m_generation;  // a plan in flight is for fields that have changed since
  m_planned.reset();
  m_debounce.start();
  updateButtons();
}

// The engine's parser on the draft here (cheap), its planner over the editor's experiment off the UI thread
// (one experiment parsed per trial).
void SweepBuilderDialog::plan() {
  const int generation = m_generation;
  Plan out;
  std::optional<Experiment> base = m_editor ? m_editor->experiment() : std::nullopt;
  try {
    out.spec = checkedSweep(draft());
    if (!base) {
      throw UserError("The experiment in the editor has problems, marked at its fields",
                      "Fix them first: every trial is that experiment with the sweep's values.");
    }
  } catch (const UserError& error) {
    out.error = QString::fromUtf8(error.what());
    if (!error.hint().empty()) out.error += tr("\nWhat to do: %1").arg(QString::fromStdString(error.hint()));
    showPlan(out, generation);
    return;
  }
  m_planning = true;
  updateButtons();
  runOffThread(
      this,
      [spec = out.spec, doc = experimentToJson(*base)] {
        Plan p;
        p.spec = spec;
        try {
          p.trials = planSweep(doc, spec);
        } catch (const UserError& error) {
          p.error = QString::fromUtf8(error.what());
          if (!error.hint().empty())
            p.error += QObject::tr("\nWhat to do: %1").arg(QString::fromStdString(error.hint()));
        } catch (const std::exception& error) {
          p.error = QString::fromUtf8(error.what());
        }
        return p;
      },
      [this, generation](const Plan& p) {
        m_planning = false;
        showPlan(p, generation);
      });
}

void SweepBuilderDialog::showPlan(const Plan& p, int generation) {
  if (generation != m_generation) {  // the fields changed while it planned: plan them again
    updateButtons();
    return;
  }
  m_problemText = p.error;
  m_problem->setText(p.error);
  m_problem->setVisible(!p.error.isEmpty());
  if (!p.error.isEmpty()) {
    m_planned.reset();
    m_summary->setText(tr("Nothing to preview: the engine refuses the sweep (below)."));
    m_preview->setRowCount(0);
    updateButtons();
    return;
  }
  m_planned = p.spec;
  QStringList keys, sizes;
  for (const SweepKey& k : p.spec.keys) {
    keys << QString::fromStdString(k.key);
    sizes << (k.values.empty() ? tr("range") : QString::number(k.values.size()));
  }
  int refused = 0;
  for (const SweepTrial& t : p.trials) refused += t.problem.empty() ? 0 : 1;
  QString summary =
      (p.trials.size() == 1 ? tr("1 trial over %1") : tr("%1 trials over %2").arg(p.trials.size()))
          .arg(keys.join(QStringLiteral(", ")));
  summary += p.spec.keys.size() > 1 && p.spec.trials == 0
                 ? tr(" (grid %1)").arg(sizes.join(QStringLiteral(" × ")))
                 : QString();
  if (static_cast<int>(p.trials.size()) > kSweepPreviewRows)
    summary += tr("; the first %1 shown").arg(kSweepPreviewRows);
  if (refused > 0) summary += tr("; %1 refused by the experiment's checks (queued as failed)").arg(refused);
  m_summary->setText(summary);

  m_preview->clear();
  m_preview->setColumnCount(static_cast<int>(keys.size()) + 1);
  m_preview->setHorizontalHeaderLabels(QStringList{tr("Trial")} + keys);
  const int rows = std::min(kSweepPreviewRows, static_cast<int>(p.trials.size()));
  m_preview->setRowCount(rows);
  for (int i = 0; i < rows; ++i) {
    const SweepTrial& t = p.trials[static_cast<size_t>(i)];
    m_preview->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(t.label)));
    for (int c = 0; c < static_cast<int>(keys.size()); ++c) {
      const nlohmann::json& v = t.overrides[p.spec.keys[static_cast<size_t>(c)].key];
      auto* item =
          new QTableWidgetItem(QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump()));
      if (!t.problem.empty()) item->setToolTip(QString::fromStdString(t.problem));
      m_preview->setItem(i, c + 1, item);
    }
  }
  m_preview->resizeColumnsToContents();
  updateButtons();
}

void SweepBuilderDialog::updateButtons() {
  m_save->setEnabled(isPlanned());
  m_queueButton->setEnabled(isPlanned() && m_queue && !m_queue->busy());
}

QString SweepBuilderDialog::problem() const {
  return m_problemText;
}

bool SweepBuilderDialog::saveTo(const QString& file, QString* error) {
  if (!isPlanned()) {
    *error = tr("The sweep is not planned yet, or the engine refuses it: %1").arg(m_problemText);
    return false;
  }
  nlohmann::json doc;
  try {
    doc = sweepFileJson(draft());
    parseSweep(doc, file.toStdString());  // what the file will hold, read as the engine will read it
  } catch (const UserError& e) {
    *error = QString::fromUtf8(e.what());
    return false;
  }
  QSaveFile out(file);
  if (!out.open(QIODevice::WriteOnly)) {
    *error = tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(file), out.errorString());
    return false;
  }
  const std::string text = doc.dump(2) + "\n";
  out.write(text.data(), static_cast<qint64>(text.size()));
  if (!out.commit()) {
    *error = tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(file), out.errorString());
    return false;
  }
  m_file = file;
  return true;
}

bool SweepBuilderDialog::loadFrom(const QString& file, QString* error) {
  try {
    setDraft(draftFromSweep(loadSweepFile(file.toStdString())));
  } catch (const UserError& e) {
    *error = QString::fromUtf8(e.what());
    return false;
  }
  m_file = file;
  return true;
}

bool SweepBuilderDialog::queuePlanned() {
  if (!isPlanned() || !m_queue) return false;
  if (!m_queue->queueSweepSpec(*m_planned)) return false;
  accept();
  return true;
}

void SweepBuilderDialog::chooseFileToOpen() {
  auto* dialog = new QFileDialog(this, tr("Open a Sweep File"),
                                 m_file.isEmpty() ? QDir::currentPath() : m_file, tr("Sweep files (*.json)"));
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setFileMode(QFileDialog::ExistingFile);
  connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& file) {
    QString error;
    if (!loadFrom(file, &error)) {
      m_problemText = error;
      m_problem->setText(error);
      m_problem->show();
    }
  });
  dialog->open();
}

void SweepBuilderDialog::chooseFileToSave() {
  const QString suggested = m_file.isEmpty()
                                ? QDir::current().filePath(m_name->text().trimmed() + QStringLiteral(".json"))
                                : m_file;
  auto* dialog = new QFileDialog(this, tr("Save the Sweep File"), suggested, tr("Sweep files (*.json)"));
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setAcceptMode(QFileDialog::AcceptSave);
  dialog->setDefaultSuffix(QStringLiteral("json"));
  connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& file) {
    QString error;
    if (!saveTo(file, &error)) {
      m_problem->setText(error);
      m_problem->show();
      return;
    }
    m_summary->setText(m_summary->text() + tr(" · saved as %1").arg(QDir::toNativeSeparators(file)));
  });
  dialog->open();
}

}  // namespace wb::gui
