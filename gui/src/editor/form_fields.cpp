#include "editor/form_fields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStyle>
#include <QTabWidget>

#include "editor/json_path.h"
#include "workbench/experiment_keys.h"

namespace wb::gui {

FormFields::FormFields(QWidget* owner, QTabWidget* tabs, std::function<void()> onEdit)
    : m_owner(owner), m_tabs(tabs), m_onEdit(std::move(onEdit)) {}

FormFields::~FormFields() = default;

QFormLayout* FormFields::addSection(const QString& title, const QString& section) {
  auto* page = new QWidget;
  auto* form = new QFormLayout(page);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setLabelAlignment(Qt::AlignRight | Qt::AlignTop);
  form->setRowWrapPolicy(QFormLayout::DontWrapRows);
  auto* scroll = new QScrollArea;
  scroll->setWidget(page);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  // The fields shrink to the column (choosers elide their words): a sideways scroll hid the "default" marks.
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  const int index = m_tabs->addTab(scroll, title);
  m_sectionForms[section.toStdString()] = form;
  m_sectionTabs[section.toStdString()] = index;
  return form;
}

QFormLayout* FormFields::sectionForm(const std::string& section) const {
  const auto found = m_sectionForms.find(section);
  return found == m_sectionForms.end() ? nullptr : found->second;
}

FieldBinding* FormFields::add(QFormLayout* form, const QString& label, std::unique_ptr<FieldBinding> binding,
                              const QString& help) {
  FieldBinding* b = binding.get();
  const QString tip =
      QStringLiteral("<b>%1</b><br>%2").arg(QString::fromStdString(b->path()), help.toHtmlEscaped());
  b->input()->setToolTip(tip);
  b->input()->setProperty("help", tip);
  b->setOnChange([this] { reportEdit(); });
  if (label.isEmpty()) {
    form->addRow(b->row());  // a field that spans the form and says what it is itself (a table)
  } else {
    auto* labelWidget = new QLabel(label);
    labelWidget->setToolTip(tip);
    labelWidget->setBuddy(b->input());
    form->addRow(labelWidget, b->row());
  }
  m_formOf[b] = form;
  m_bindings.push_back(std::move(binding));
  return b;
}

FieldBinding* FormFields::addText(QFormLayout* form, const std::string& path, const QString& label,
                                  const QString& help) {
  return add(form, label, std::make_unique<TextBinding>(path, new QLineEdit), help);
}

FieldBinding* FormFields::addPath(QFormLayout* form, const std::string& path, const QString& label,
                                  const QString& help, bool directory, const QString& filter,
                                  std::function<bool()> fileInstead) {
  auto* edit = new QLineEdit;
  edit->setClearButtonEnabled(true);
  FieldBinding* b = add(form, label, std::make_unique<TextBinding>(path, edit), help);
  auto* browse = new QPushButton(tr("Browse…"));
  browse->setToolTip(directory ? tr("Choose a folder") : tr("Choose a file"));
  b->addBeside(browse);
  QObject::connect(
      browse, &QPushButton::clicked, &m_alive, [this, edit, directory, filter, label, fileInstead] {
        const bool wantsFile = !directory || (fileInstead && fileInstead());
        const QString chosen = wantsFile ? QFileDialog::getOpenFileName(m_owner, label, edit->text(), filter)
                                         : QFileDialog::getExistingDirectory(m_owner, label, edit->text());
        if (chosen.isEmpty()) return;
        edit->setText(chosen);
        emit edit->textEdited(chosen);
      });
  return b;
}

FieldBinding* FormFields::addNumber(QFormLayout* form, const std::string& path, const QString& label,
                                    const QString& help) {
  auto* edit = new QLineEdit;
  edit->setPlaceholderText(tr("a number, e.g. 1e-3"));
  return add(form, label, std::make_unique<NumberBinding>(path, edit), help);
}

FieldBinding* FormFields::addInteger(QFormLayout* form, const std::string& path, const QString& label,
                                     const QString& help, const QString& suffix) {
  auto* spin = new QSpinBox;
  spin->setSuffix(suffix);
  return add(form, label, std::make_unique<IntegerBinding>(path, spin), help);
}

FieldBinding* FormFields::addBool(QFormLayout* form, const std::string& path, const QString& label,
                                  const QString& help) {
  return add(form, label, std::make_unique<BoolBinding>(path, new QCheckBox), help);
}

FieldBinding* FormFields::addChoice(QFormLayout* form, const std::string& path, const QString& label,
                                    const std::vector<std::pair<QString, QString>>& names,
                                    const QString& help) {
  auto* combo = new QComboBox;
  const ExperimentKey* key = findExperimentKey(path);
  Q_ASSERT(key && !key->choices.empty());
  for (const std::string& choice : key ? key->choices : std::vector<std::string>{}) {
    const QString value = QString::fromStdString(choice);
    QString text = value;
    for (const auto& [named, name] : names)
      if (named == value) text = name;
    combo->addItem(text == value ? value : QStringLiteral("%1  (%2)").arg(text, value), value);
  }
  return add(form, label, std::make_unique<ChoiceBinding>(path, combo), help);
}

FieldBinding* FormFields::addList(QFormLayout* form, const std::string& path, const QString& label,
                                  const QString& help) {
  auto* edit = new QLineEdit;
  edit->setPlaceholderText(tr("comma-separated, e.g. 3000, 6000"));
  return add(form, label, std::make_unique<ListBinding>(path, edit), help);
}

FieldBinding* FormFields::binding(const std::string& path) const {
  for (const auto& b : m_bindings)
    if (b->path() == path) return b.get();
  return nullptr;
}

std::vector<FieldBinding*> FormFields::bindingsFor(const std::string& path) const {
  if (FieldBinding* exact = binding(path)) return {exact};
  // The nearest field above: model.layers[3].out_features shows at model.layers.
  FieldBinding* above = nullptr;
  for (const auto& b : m_bindings) {
    if (pathIsUnder(path, b->path()) && (!above || b->path().size() > above->path().size())) above = b.get();
  }
  if (above) return {above};
  // A key that has several fields (optimizer.betas, train.early_stopping): its first field. A whole section
  // ("data") is not a field: such issues go to the list below the form.
  if (path.find_first_of(".[") == std::string::npos) return {};
  for (const auto& b : m_bindings) {
    if (pathIsUnder(b->path(), path)) return {b.get()};
  }
  return {};
}

QString FormFields::word(const std::string& path) const {
  FieldBinding* b = binding(path);
  auto* combo = b ? qobject_cast<QComboBox*>(b->input()) : nullptr;
  return combo ? combo->currentData().toString() : QString();
}

nlohmann::json FormFields::document() const {
  nlohmann::json doc = m_base;
  for (const auto& b : m_bindings) b->store(doc);
  return doc;
}

void FormFields::quietly(const std::function<void()>& load) {
  const bool wasQuiet = m_quiet;
  m_quiet = true;
  load();
  m_quiet = wasQuiet;
}

void FormFields::reportEdit() {
  if (!m_quiet) m_onEdit();
}

void FormFields::showIssues(const std::vector<ValidationIssue>& issues) {
  std::map<FieldBinding*, QStringList> messages;
  std::map<FieldBinding*, std::vector<ValidationIssue>> marked;
  std::map<int, int> perTab;
  for (const ValidationIssue& issue : issues) {
    for (FieldBinding* b : bindingsFor(issue.path)) {
      marked[b].push_back(issue);
      messages[b] << (b->path() == issue.path || issue.path.empty()
                          ? QString::fromStdString(issue.message)
                          : QStringLiteral("%1: %2").arg(QString::fromStdString(issue.path),
                                                         QString::fromStdString(issue.message)));
    }
    auto tab = m_sectionTabs.find(issue.path.substr(0, issue.path.find_first_of(".[")));
    if (tab != m_sectionTabs.end()) ++perTab[tab->second];
  }
  for (const auto& b : m_bindings) {
    auto it = messages.find(b.get());
    b->setMessages(it == messages.end() ? QStringList() : it->second);
    auto found = marked.find(b.get());
    b->markIssues(found == marked.end() ? std::vector<ValidationIssue>() : found->second);
  }
  for (int i = 0; i < m_tabs->count(); ++i) {
    m_tabs->setTabIcon(
        i, perTab.count(i) ? m_owner->style()->standardIcon(QStyle::SP_MessageBoxWarning) : QIcon());
  }
}

void FormFields::focusField(FieldBinding* binding, const std::string& path) {
  QFormLayout* form = m_formOf.at(binding);
  for (const auto& [section, f] : m_sectionForms) {
    if (f != form) continue;
    const int index = m_sectionTabs.at(section);
    m_tabs->setCurrentIndex(index);
    if (auto* scroll = qobject_cast<QScrollArea*>(m_tabs->widget(index)))
      scroll->ensureWidgetVisible(binding->row());
  }
  binding->focusPart(path);
}

void FormFields::setLocked(bool locked) {
  for (const auto& b : m_bindings) b->row()->setEnabled(!locked);
}

}  // namespace wb::gui
