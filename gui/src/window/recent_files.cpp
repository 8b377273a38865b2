#include "window/recent_files.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace wb::gui {
namespace {

constexpr int kMaxRecent = 10;
const char* kKey = "recentFiles";

}  // namespace

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), m_menu(menu) {
  m_files = QSettings().value(QLatin1String(kKey)).toStringList();
  rebuild();
}

void RecentFiles::add(const QString& file) {
  const QString path = QFileInfo(file).absoluteFilePath();
  m_files.removeAll(path);
  m_files.prepend(path);
  while (m_files.size() > kMaxRecent) m_files.removeLast();
  save();
  rebuild();
}

void RecentFiles::save() {
  QSettings().setValue(QLatin1String(kKey), m_files);
}

void RecentFiles::rebuild() {
  m_menu->clear();
  int shown = 0;
  for (const QString& file : m_files) {
    if (!QFileInfo::exists(file)) continue;
    ++shown;
    const QString text = shown <= 9 ? QStringLiteral("&%1 %2").arg(shown).arg(QFileInfo(file).fileName())
                                    : QFileInfo(file).fileName();
    QAction* action = m_menu->addAction(text);
    action->setToolTip(QDir::toNativeSeparators(file));
    action->setStatusTip(QDir::toNativeSeparators(file));
    connect(action, &QAction::triggered, this, [this, file] { emit fileChosen(file); });
  }
  if (shown == 0) {
    m_menu->addAction(tr("No recent files"))->setEnabled(false);
    return;
  }
  m_menu->addSeparator();
  connect(m_menu->addAction(tr("Clear list")), &QAction::triggered, this, [this] {
    m_files.clear();
    save();
    rebuild();
  });
}

}  // namespace wb::gui
