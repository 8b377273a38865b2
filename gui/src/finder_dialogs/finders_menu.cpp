#include "finder_dialogs/finders_menu.h"

#include <QMessageBox>

#include "editor/experiment_editor.h"
#include "finder_dialogs/batch_size_finder_dialog.h"
#include "finder_dialogs/lr_finder_dialog.h"

namespace wb::gui {

FindersMenu::FindersMenu(QWidget* window, ExperimentEditor* editor, std::function<bool()> runActive)
    : QMenu(tr("&Tools"), window), m_window(window), m_editor(editor), m_runActive(std::move(runActive)) {
  setObjectName(QStringLiteral("toolsMenu"));
  setToolTipsVisible(true);
  m_findLr = addAction(tr("Find &Learning Rate…"));
  m_findLr->setObjectName(QStringLiteral("findLrAction"));
  m_findLr->setToolTip(
      tr("A learning-rate range test on a fresh copy of the model: the loss against the learning "
         "rate, and a suggested optimizer.lr."));
  m_findBatch = addAction(tr("Find &Batch Size…"));
  m_findBatch->setObjectName(QStringLiteral("findBatchAction"));
  m_findBatch->setToolTip(
      tr("The largest train.batch_size whose training step fits the device's memory, by trial."));
  connect(m_findLr, &QAction::triggered, this, [this] { openLrFinder(); });
  connect(m_findBatch, &QAction::triggered, this, [this] { openBatchSizeFinder(); });
}

bool FindersMenu::canStart(const QString& what) {
  if (m_runActive && m_runActive()) {
    QMessageBox::information(
        m_window, what,
        tr("A run is training. The finder would share the device with it and measure neither "
           "well; open it again once the run ends."));
    return false;
  }
  if (!m_editor->experiment()) {
    QMessageBox::information(
        m_window, what,
        tr("The experiment in the form has problems (listed under the form). Fix them first: "
           "the finder trains that experiment."));
    return false;
  }
  return true;
}

LrFinderDialog* FindersMenu::openLrFinder() {
  if (m_lrDialog && m_lrDialog->isRunning()) {
    m_lrDialog->raise();
    m_lrDialog->activateWindow();
    return m_lrDialog;
  }
  if (!canStart(tr("Find Learning Rate"))) return nullptr;
  if (m_lrDialog) m_lrDialog->deleteLater();
  ExperimentEditor* editor = m_editor;
  m_lrDialog = new LrFinderDialog(
      *m_editor->experiment(), [editor](double lr) { return editor->setValue("optimizer.lr", lr); },
      m_window);
  m_lrDialog->setAttribute(Qt::WA_DeleteOnClose);
  m_lrDialog->show();
  return m_lrDialog;
}

BatchSizeFinderDialog* FindersMenu::openBatchSizeFinder() {
  if (m_batchDialog && m_batchDialog->isRunning()) {
    m_batchDialog->raise();
    m_batchDialog->activateWindow();
    return m_batchDialog;
  }
  if (!canStart(tr("Find Batch Size"))) return nullptr;
  if (m_batchDialog) m_batchDialog->deleteLater();
  ExperimentEditor* editor = m_editor;
  m_batchDialog = new BatchSizeFinderDialog(
      *m_editor->experiment(),
      [editor](int64_t batch) { return editor->setValue("train.batch_size", batch); }, m_window);
  m_batchDialog->setAttribute(Qt::WA_DeleteOnClose);
  m_batchDialog->show();
  return m_batchDialog;
}

}  // namespace wb::gui
