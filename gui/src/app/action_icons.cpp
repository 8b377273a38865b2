#include "app/action_icons.h"

#include <QFile>
#include <QHash>

// Resources compiled into a static library are registered by a function nothing else references; call it once
// so the linker keeps them (Q_INIT_RESOURCE cannot be used inside a namespace).
static void registerWorkbenchResources() {
  static const bool registered = [] {
    Q_INIT_RESOURCE(workbench);
    return true;
  }();
  (void)registered;
}

namespace wb::gui {
namespace {

// Our icon names → the freedesktop icon naming spec's, where it has one for the same action.
QString themeName(const QString& name) {
  static const QHash<QString, QString> names = {
      {QStringLiteral("new"), QStringLiteral("document-new")},
      {QStringLiteral("open"), QStringLiteral("document-open")},
      {QStringLiteral("save"), QStringLiteral("document-save")},
      {QStringLiteral("save-as"), QStringLiteral("document-save-as")},
      {QStringLiteral("export"), QStringLiteral("document-export")},
      {QStringLiteral("quit"), QStringLiteral("application-exit")},
      {QStringLiteral("about"), QStringLiteral("help-about")},
      {QStringLiteral("start"), QStringLiteral("media-playback-start")},
      {QStringLiteral("pause"), QStringLiteral("media-playback-pause")},
      {QStringLiteral("stop"), QStringLiteral("media-playback-stop")},
  };
  return names.value(name);
}

}  // namespace

QIcon bundledActionIcon(const QString& name) {
  registerWorkbenchResources();
  const QString file = QStringLiteral(":/icons/actions/%1.svg").arg(name);
  return QFile::exists(file) ? QIcon(file) : QIcon();
}

QIcon actionIcon(const QString& name) {
  const QString theme = themeName(name);
  const QIcon ours = bundledActionIcon(name);
  return theme.isEmpty() ? ours : QIcon::fromTheme(theme, ours);
}

QIcon applicationIcon() {
  registerWorkbenchResources();
  return QIcon::fromTheme(QStringLiteral("torch-workbench"),
                          QIcon(QStringLiteral(":/icons/torch-workbench.svg")));
}

}  // namespace wb::gui
