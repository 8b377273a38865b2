#include "compression_view/compress_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <fstream>

#include "compression_view/pass_form.h"
#include "widgets/screen_fit.h"
#include "workbench/compression.h"

namespace wb::gui {
namespace {

constexpr int kPreviewDebounceMs = 150;

nlohmann::json readRunExperiment(const QString& runDir) {
  std::ifstream in(QDir(runDir).filePath(QStringLiteral("experiment.json")).toStdString());
  nlohmann::json doc = in ? nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false) : nlohmann::json();
  if (!doc.is_object()) doc = experimentToJson(Experiment{});
  return doc;
}

// Defaults that suit the run: a pruned model is fine-tuned for an epoch to win back accuracy, and a model of
// linear layers only (the MLP preset) quantizes dynamically, without calibration.
nlohmann::json initialPass(PassType type, const nlohmann::json& runDoc) {
  nlohmann::json pass = defaultPassJson(wordString(type));
  if (type == PassType::Prune) pass["epochs"] = 1;
  if (type == PassType::Quantize) {
    const nlohmann::json model = runDoc.value("model", nlohmann::json::object());
    const bool mlp = model.is_object() && model.value("preset", nlohmann::json()) == "mlp" &&
                     model.value("layers", nlohmann::json()).is_null();
    if (mlp) pass["mode"] = wordString(QuantizeMode::Dynamic);
  }
  return pass;
}

// "compress.passes[2].amount" -> 2 and "amount"; -1 for a path that names no single pass.
int passIndexOf(const std::string& path, std::string& rest) {
  const std::string prefix = "compress.passes[";
  if (path.compare(0, prefix.size(), prefix) != 0) return -1;
  const size_t close = path.find(']', prefix.size());
  if (close == std::string::npos) return -1;
  int index = 0;
  try {
    index = std::stoi(path.substr(prefix.size(), close - prefix.size()));
  } catch (const std::exception&) {
    return -1;
  }
  rest = path.substr(close + 1);
  if (!rest.empty() && rest.front() == '.') rest.erase(0, 1);
  return index;
}

QString dialogTitle(CompressDialog::Kind kind) {
  switch (kind) {
    case CompressDialog::Kind::Prune:
      return QObject::tr("Prune");
    case CompressDialog::Kind::Quantize:
      return QObject::tr("Quantize to int8");
    case CompressDialog::Kind::Distill:
      return QObject::tr("Distill");
    case CompressDialog::Kind::Pipeline:
      return QObject::tr("Compression pipeline");
  }
  return QObject::tr("Compress");
}

// What the dialog starts with: the pass its command names, or for a pipeline the run's own compress section
// (else prune, then int8).
nlohmann::json startingPasses(CompressDialog::Kind kind, const nlohmann::json& runDoc) {
  nlohmann::json passes = nlohmann::json::array();
  switch (kind) {
    case CompressDialog::Kind::Prune:
      passes.push_back(initialPass(PassType::Prune, runDoc));
      break;
    case CompressDialog::Kind::Quantize:
      passes.push_back(initialPass(PassType::Quantize, runDoc));
      break;
    case CompressDialog::Kind::Distill:
      passes.push_back(initialPass(PassType::Distill, runDoc));
      break;
    case CompressDialog::Kind::Pipeline: {
      // The run's own compress section when it has one; else a common recipe: prune, then int8.
      const nlohmann::json* own = nullptr;
      auto section = runDoc.find("compress");
      if (section != runDoc.end() && section->is_object()) {
        auto list = section->find("passes");
        if (list != section->end() && list->is_array() && !list->empty()) own = &*list;
      }
      if (own) {
        passes = *own;
      } else {
        passes.push_back(initialPass(PassType::Prune, runDoc));
        passes.push_back(initialPass(PassType::Quantize, runDoc));
      }
      break;
    }
  }
  return passes;
}

}  // namespace

CompressDialog::CompressDialog(Kind kind, const QString& runDir, QWidget* parent)
    : QDialog(parent), m_kind(kind), m_runDir(runDir), m_runDoc(readRunExperiment(runDir)) {
  setObjectName(QStringLiteral("compressDialog"));
  const QString runName = QDir(runDir).dirName();
  setWindowTitle(QStringLiteral("%1 — %2").arg(dialogTitle(kind), runName));

  auto* outer = new QVBoxLayout(this);
  auto* intro = new QLabel(kind == Kind::Pipeline
                               ? tr("Passes run in order on the trained model of <b>%1</b>, each on the "
                                    "result of the one before. Each "
                                    "writes a model into the run's <tt>compressed/</tt> folder, measured "
                                    "against the original (accuracy, "
                                    "size, latency) in the Compression view.")
                                     .arg(runName.toHtmlEscaped())
                               : tr("Compresses the trained model of <b>%1</b> into the run's "
                                    "<tt>compressed/</tt> folder, measured "
                                    "against the original (accuracy, size, latency) in the Compression view.")
                                     .arg(runName.toHtmlEscaped()),
                           this);
  intro->setWordWrap(true);
  outer->addWidget(intro);

  auto* body = new QHBoxLayout;
  outer->addLayout(body, 1);

  // The pass list (a pipeline only).
  QWidget* listColumn = buildPassList();
  body->addWidget(listColumn);
  listColumn->setVisible(kind == Kind::Pipeline);

  m_stack = new QStackedWidget;
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(m_stack);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setMinimumWidth(460);
  body->addWidget(scroll, 1);

  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("compressStatus"));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  outer->addWidget(m_status);

  m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  okButton()->setText(tr("Compress"));
  outer->addWidget(m_buttons);
  connect(m_buttons, &QDialogButtonBox::accepted, this, &CompressDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &CompressDialog::reject);

  connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row >= 0 && row < passCount()) m_stack->setCurrentWidget(m_forms[row]);
    updateButtons();
  });
  connect(m_remove, &QPushButton::clicked, this, [this] { removePass(currentPass()); });
  connect(m_up, &QPushButton::clicked, this, [this] { movePass(currentPass(), currentPass() - 1); });
  connect(m_down, &QPushButton::clicked, this, [this] { movePass(currentPass(), currentPass() + 1); });

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(kPreviewDebounceMs);
  connect(&m_debounce, &QTimer::timeout, this, &CompressDialog::validateNow);

  setPasses(startingPasses(kind, m_runDoc));
  fitDialogToScreen(this, QSize(kind == Kind::Pipeline ? 900 : 620, 560));
}

CompressDialog::~CompressDialog() = default;

// The pass list and its buttons: add (by type), remove, up, down.
QWidget* CompressDialog::buildPassList() {
  auto* listColumn = new QWidget(this);
  auto* listLayout = new QVBoxLayout(listColumn);
  listLayout->setContentsMargins(0, 0, 0, 0);
  m_list = new QListWidget(listColumn);
  m_list->setObjectName(QStringLiteral("passList"));
  m_list->setMinimumWidth(240);
  listLayout->addWidget(m_list, 1);
  auto* listButtons = new QHBoxLayout;
  m_add = new QToolButton(listColumn);
  m_add->setObjectName(QStringLiteral("addPass"));
  m_add->setText(tr("Add"));
  m_add->setPopupMode(QToolButton::InstantPopup);
  auto* addMenu = new QMenu(m_add);
  for (const Word<PassType>& entry : Words<PassType>::table) {
    const PassType type = entry.value;
    QAction* action = addMenu->addAction(passTypeTitle(type));
    action->setObjectName(QStringLiteral("addPass-%1").arg(QString::fromStdString(wordString(type))));
    connect(action, &QAction::triggered, this, [this, type] { addPass(type); });
  }
  m_add->setMenu(addMenu);
  m_remove = new QPushButton(tr("Remove"), listColumn);
  m_remove->setObjectName(QStringLiteral("removePass"));
  m_up = new QPushButton(style()->standardIcon(QStyle::SP_ArrowUp), QString(), listColumn);
  m_up->setObjectName(QStringLiteral("movePassUp"));
  m_up->setToolTip(tr("Run this pass earlier"));
  m_down = new QPushButton(style()->standardIcon(QStyle::SP_ArrowDown), QString(), listColumn);
  m_down->setObjectName(QStringLiteral("movePassDown"));
  m_down->setToolTip(tr("Run this pass later"));
  listButtons->addWidget(m_add);
  listButtons->addWidget(m_remove);
  listButtons->addStretch(1);
  listButtons->addWidget(m_up);
  listButtons->addWidget(m_down);
  listLayout->addLayout(listButtons);
  return listColumn;
}

QPushButton* CompressDialog::okButton() const {
  return m_buttons->button(QDialogButtonBox::Ok);
}

PassForm* CompressDialog::passForm(int index) const {
  return index >= 0 && index < passCount() ? m_forms[index] : nullptr;
}

void CompressDialog::addForm(int at, const nlohmann::json& pass) {
  auto* form = new PassForm(pass);
  connect(form, &PassForm::edited, this, &CompressDialog::onEdited);
  m_forms.insert(m_forms.begin() + at, form);
  m_stack->addWidget(form);
  // A form made after the dialog's buttons would come after them in Tab's order: its fields go first, then
  // the buttons, as the dialog reads.
  QWidget* last = form;
  for (QWidget* w = form->nextInFocusChain(); w != form && form->isAncestorOf(w); w = w->nextInFocusChain())
    last = w;
  QWidget* previous = last;
  for (QAbstractButton* button : m_buttons->buttons()) {
    QWidget::setTabOrder(previous, button);
    previous = button;
  }
}

void CompressDialog::setPasses(const nlohmann::json& passes) {
  for (PassForm* form : m_forms) {
    m_stack->removeWidget(form);
    delete form;
  }
  m_forms.clear();
  if (passes.is_array()) {
    for (const nlohmann::json& pass : passes) addForm(passCount(), pass);
  }
  refreshList();
  setCurrentPass(0);
  validateNow();
}

nlohmann::json CompressDialog::passesJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const PassForm* form : m_forms) list.push_back(form->pass());
  return list;
}

void CompressDialog::addPass(PassType type) {
  const int at = currentPass() >= 0 ? currentPass() + 1 : passCount();
  addForm(at, initialPass(type, m_runDoc));
  refreshList();
  setCurrentPass(at);
  validateNow();
}

void CompressDialog::removePass(int index) {
  if (index < 0 || index >= passCount()) return;
  PassForm* form = m_forms[index];
  m_forms.erase(m_forms.begin() + index);
  m_stack->removeWidget(form);
  delete form;
  refreshList();
  setCurrentPass(std::min(index, passCount() - 1));
  validateNow();
}

void CompressDialog::movePass(int from, int to) {
  if (from < 0 || from >= passCount() || to < 0 || to >= passCount() || from == to) return;
  PassForm* form = m_forms[from];
  m_forms.erase(m_forms.begin() + from);
  m_forms.insert(m_forms.begin() + to, form);
  refreshList();
  setCurrentPass(to);
  validateNow();
}

int CompressDialog::currentPass() const {
  return m_list->currentRow();
}

void CompressDialog::setCurrentPass(int index) {
  if (index < 0 || index >= passCount()) {
    updateButtons();
    return;
  }
  m_list->setCurrentRow(index);
  m_stack->setCurrentWidget(m_forms[index]);
  updateButtons();
}

void CompressDialog::refreshList() {
  const int current = m_list->currentRow();
  const QSignalBlocker block(m_list);
  while (m_list->count() > passCount()) delete m_list->takeItem(m_list->count() - 1);
  while (m_list->count() < passCount()) m_list->addItem(QString());
  for (int i = 0; i < passCount(); ++i) {
    QListWidgetItem* item = m_list->item(i);
    item->setText(QStringLiteral("%1. %2").arg(i + 1).arg(describePassJson(m_forms[i]->pass())));
    item->setIcon(m_forms[i]->hasIssues() ? style()->standardIcon(QStyle::SP_MessageBoxWarning) : QIcon());
    const QStringList messages = m_forms[i]->passMessages();
    item->setToolTip(messages.join(QLatin1Char('\n')));
  }
  if (current >= 0 && current < passCount()) m_list->setCurrentRow(current);
}

void CompressDialog::updateButtons() {
  const int current = currentPass();
  m_remove->setEnabled(current >= 0 && passCount() > 1);
  m_up->setEnabled(current > 0);
  m_down->setEnabled(current >= 0 && current + 1 < passCount());
}

void CompressDialog::onEdited() {
  refreshList();
  m_debounce.start();
}

void CompressDialog::validateNow() {
  m_debounce.stop();
  m_issues.clear();
  m_config.reset();

  for (int i = 0; i < passCount(); ++i) {
    for (const ValidationIssue& issue : m_forms[i]->localIssues()) {
      m_issues.push_back({"compress.passes[" + std::to_string(i) + "]." + issue.path, issue.message});
    }
  }
  // The passes are read as part of the run's experiment, by the reader the CLI uses: same checks, same words.
  nlohmann::json doc = m_runDoc;
  if (!doc["compress"].is_object()) doc["compress"] = nlohmann::json::object();
  doc["compress"]["passes"] = passesJson();
  const ParseResult parsed = parseExperiment(doc);
  for (const ValidationIssue& issue : parsed.issues) {
    if (issue.path.compare(0, 8, "compress") == 0) m_issues.push_back(issue);
  }
  if (m_issues.empty() && passCount() == 0) {
    m_issues.push_back({"compress.passes", tr("Add at least one pass.").toStdString()});
  }
  if (m_issues.empty()) {
    // What needs the run folder (a teacher that exists, a model the pass can take): a few file look-ups,
    // cheap enough for the UI thread.
    try {
      for (const ValidationIssue& issue :
           checkCompression(m_runDir.toStdString(), parsed.experiment.compress)) {
        m_issues.push_back(issue);
      }
    } catch (const std::exception& e) {
      m_issues.push_back({"", e.what()});
    }
  }
  if (m_issues.empty()) m_config = parsed.experiment.compress;

  std::vector<std::vector<ValidationIssue>> perPass(static_cast<size_t>(passCount()));
  QStringList general;
  for (const ValidationIssue& issue : m_issues) {
    std::string rest;
    const int index = passIndexOf(issue.path, rest);
    if (index >= 0 && index < passCount()) {
      perPass[static_cast<size_t>(index)].push_back({rest, issue.message});
    } else {
      general << (issue.path.empty() ? QString::fromStdString(issue.message)
                                     : QStringLiteral("%1: %2").arg(QString::fromStdString(issue.path),
                                                                    QString::fromStdString(issue.message)));
    }
  }
  for (int i = 0; i < passCount(); ++i) m_forms[i]->setIssues(perPass[static_cast<size_t>(i)]);
  refreshList();

  if (m_issues.empty()) {
    m_status->setText(tr("✓ The engine accepts these passes."));
  } else {
    QString text = tr("⚠ %n problem(s), marked at the fields.", nullptr, static_cast<int>(m_issues.size()));
    if (m_kind == Kind::Pipeline && passCount() > 1)
      text += tr(" Passes with a problem have a ⚠ in the list.");
    for (const QString& line : general) text += QStringLiteral("\n⚠ ") + line;
    m_status->setText(text);
  }
  okButton()->setEnabled(m_config.has_value());
  emit validated();
}

void CompressDialog::accept() {
  validateNow();
  if (!m_config) {
    // Lead to the first pass with a problem.
    for (int i = 0; i < passCount(); ++i) {
      if (m_forms[i]->hasIssues()) {
        setCurrentPass(i);
        break;
      }
    }
    return;
  }
  QDialog::accept();
}

}  // namespace wb::gui
