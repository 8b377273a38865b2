#include "editor/issue_list.h"

#include <QLabel>
#include <QListWidget>
#include <QStyle>
#include <QVBoxLayout>

namespace wb::gui {
namespace issue_list {

QString issueText(const ValidationIssue& issue) {
  return issue.path.empty() ? QString::fromStdString(issue.message)
                            : QStringLiteral("%1: %2").arg(QString::fromStdString(issue.path),
                                                           QString::fromStdString(issue.message));
}

}  // namespace issue_list

IssueList::IssueList(QWidget* editor, QVBoxLayout* column) : QObject(editor), m_editor(editor) {
  m_status = new QLabel(editor);
  m_status->setWordWrap(true);
  column->addWidget(m_status);
  m_list = new QListWidget(editor);
  m_list->setObjectName(QStringLiteral("issueList"));
  m_list->setMaximumHeight(96);
  m_list->setWordWrap(true);
  m_list->setVisible(false);
  column->addWidget(m_list);
  auto choose = [this](QListWidgetItem* item) { emit issueChosen(item->data(Qt::UserRole).toString()); };
  connect(m_list, &QListWidget::itemActivated, this, choose);
  connect(m_list, &QListWidget::itemClicked, this, choose);
}

void IssueList::show(const std::vector<ValidationIssue>& issues, int unknownKeys, bool checksPending) {
  m_list->clear();
  for (const ValidationIssue& issue : issues) {
    auto* item = new QListWidgetItem(issue_list::issueText(issue), m_list);
    item->setData(Qt::UserRole, QString::fromStdString(issue.path));
    item->setIcon(m_editor->style()->standardIcon(QStyle::SP_MessageBoxWarning));
  }
  m_list->setVisible(!issues.empty());
  if (issues.empty()) {
    m_status->setText(checksPending ? tr("Checking…") : tr("✓ The engine accepts this experiment."));
  } else if (unknownKeys > 0) {
    m_status->setText(
        tr("⚠ %n problem(s), %1 of them an unknown key (no field shows it): rename or remove it "
           "below; click a problem to go to it.",
           nullptr, static_cast<int>(issues.size()))
            .arg(unknownKeys));
  } else {
    m_status->setText(tr("⚠ %n problem(s): marked at the fields; click one below to go there.", nullptr,
                         static_cast<int>(issues.size())));
  }
}

}  // namespace wb::gui
