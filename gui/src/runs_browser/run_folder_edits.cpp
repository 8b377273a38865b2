#include "runs_browser/run_folder_edits.h"

#include <QAbstractButton>
#include <QDir>
#include <QMessageBox>
#include <QPushButton>
#include <optional>

#include "runs_browser/run_notes_dialog.h"
#include "runs_browser/runs_browser.h"
#include "runs_browser/runs_table_model.h"
#include "workbench/errors.h"
#include "workbench/run_info.h"

namespace wb::gui {

RunFolderEdits::RunFolderEdits(RunsBrowser* browser, RunsTableModel* model)
    : QObject(browser), m_browser(browser), m_model(model) {
  useDialogs();
}

void RunFolderEdits::useDialogs() {
  m_confirm = [this](const QString& title, const QString& text, std::function<void()> yes) {
    auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Cancel, m_browser);
    box->setObjectName(QStringLiteral("deleteRunsDialog"));
    QPushButton* agree = box->addButton(tr("Delete"), QMessageBox::DestructiveRole);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    connect(box, &QMessageBox::buttonClicked, this, [agree, yes](QAbstractButton* clicked) {
      if (clicked == agree) yes();
    });
    box->open();
  };
  m_presentError = [this](const QString& title, const QString& message) {
    auto* box = new QMessageBox(QMessageBox::Critical, title, message, QMessageBox::Ok, m_browser);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    box->open();
  };
}

void RunFolderEdits::showError(const QString& title, const QString& message) {
  if (m_presentError) m_presentError(title, message);
}

QString RunFolderEdits::rename(const QString& folder, const QString& name) {
  const std::optional<RunRecord> r = m_browser->run(folder);
  if (!r)
    return tr("The run %1 is no longer listed; refresh the list.").arg(QDir::toNativeSeparators(folder));
  try {
    updateRunInfo(m_browser->runsDir().toStdString(), folder.toStdString(),
                  RunInfo{name.toStdString(), r->tags, r->notes});
  } catch (const UserError& e) {
    return QString::fromUtf8(e.what()) +
           (e.hint().empty() ? QString() : QLatin1Char('\n') + QString::fromStdString(e.hint()));
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  m_model->setRunInfo(folder, name.trimmed(), r->tags, QString::fromStdString(r->notes));
  emit renamed(folder, name.trimmed());
  return {};
}

QString RunFolderEdits::setTagsAndNotes(const QString& folder, const std::vector<std::string>& tags,
                                        const QString& notes) {
  const std::optional<RunRecord> r = m_browser->run(folder);
  if (!r)
    return tr("The run %1 is no longer listed; refresh the list.").arg(QDir::toNativeSeparators(folder));
  try {
    updateRunInfo(m_browser->runsDir().toStdString(), folder.toStdString(),
                  RunInfo{r->name, tags, notes.toStdString()});
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  const std::optional<RunInfo> stored = readRunInfo(folder.toStdString());
  m_model->setRunInfo(folder, QString::fromStdString(r->name), stored ? stored->tags : tags, notes);
  emit tagsAndNotesChanged();
  return {};
}

QString RunFolderEdits::remove(const QStringList& folders) {
  QStringList problems;
  QStringList deleted;
  for (const QString& folder : folders) {
    try {
      deleteRun(m_browser->runsDir().toStdString(), folder.toStdString());
    } catch (const UserError& e) {
      problems << QString::fromUtf8(e.what()) + QLatin1Char(' ') + QString::fromStdString(e.hint());
      continue;  // refused: the run stays, and so do its traces on the charts (`removed` takes them off)
    } catch (const std::exception& e) {
      problems << QString::fromUtf8(e.what());
      continue;
    }
    deleted << folder;
  }
  if (!deleted.isEmpty()) emit removed(deleted);
  emit folderChanged();
  return problems.join(QLatin1Char('\n'));
}

void RunFolderEdits::editNotes(const RunRecord& run) {
  auto* dialog = new RunNotesDialog(QString::fromStdString(run.name), run.tags,
                                    QString::fromStdString(run.notes), m_browser);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  const QString folder = QString::fromStdString(run.folder);
  connect(dialog, &QDialog::accepted, this, [this, dialog, folder] {
    const QString problem = setTagsAndNotes(folder, dialog->tags(), dialog->notes());
    if (!problem.isEmpty()) showError(tr("The tags and notes were not saved"), problem);
  });
  dialog->open();
}

void RunFolderEdits::askToRemove(const QStringList& folders) {
  QStringList names;
  for (const QString& folder : folders) {
    const std::optional<RunRecord> r = m_browser->run(folder);
    names << QStringLiteral("%1  (%2)")
                 .arg(r ? QString::fromStdString(r->name) : QString(), QDir::toNativeSeparators(folder));
  }
  const QString text = tr("Delete %n run(s) with their folders — checkpoints, model, metrics and logs? This "
                          "cannot be undone.\n\n%1",
                          nullptr, static_cast<int>(folders.size()))
                           .arg(names.join(QLatin1Char('\n')));
  if (m_confirm) {
    m_confirm(tr("Delete runs"), text, [this, folders] {
      const QString problem = remove(folders);
      if (!problem.isEmpty()) showError(tr("Not every run was deleted"), problem);
    });
  }
}

}  // namespace wb::gui
