#pragma once
// File ▸ Recent: the last experiment files opened or saved, kept in QSettings.

#include <QObject>
#include <QStringList>

class QMenu;

namespace wb::gui {

class RecentFiles : public QObject {
  Q_OBJECT

 public:
  RecentFiles(QMenu* menu, QObject* parent = nullptr);
  void add(const QString& file);
  QStringList files() const { return m_files; }

 signals:
  void fileChosen(const QString& file);

 private:
  void rebuild();
  void save();

  QMenu* m_menu;
  QStringList m_files;
};

}  // namespace wb::gui
