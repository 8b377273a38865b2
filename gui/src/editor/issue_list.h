#pragma once
// Under the form: a line saying whether the engine accepts the experiment (or what is still being checked),
// and the list of every issue, including those no single field owns (a whole section, an unknown key); a
// click on one leads to it.

#include <QObject>
#include <QString>
#include <vector>

#include "workbench/experiment.h"

class QLabel;
class QListWidget;
class QVBoxLayout;
class QWidget;

namespace wb::gui {

class IssueList : public QObject {
  Q_OBJECT

 public:
  // The line and the list go into `column`, one under the other, as the editor's own rows.
  IssueList(QWidget* editor, QVBoxLayout* column);

  // `unknownKeys`: how many of the issues are keys the experiment does not have.
  void show(const std::vector<ValidationIssue>& issues, int unknownKeys, bool checksPending);

 signals:
  void issueChosen(const QString& path);

 private:
  QWidget* m_editor;
  QLabel* m_status;
  QListWidget* m_list;
};

}  // namespace wb::gui
