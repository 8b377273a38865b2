#pragma once
// The window's icons. An action with a name in the freedesktop icon naming spec (document-open,
// media-playback-start, ...) takes the desktop theme's icon, so the window matches the desktop; ours,
// compiled in from resources/icons/actions (resources/workbench.qrc), stand in where the theme has none and
// for the actions the spec does not name (checkpoint, prune, quantize, distill, ...).

#include <QIcon>
#include <QString>

namespace wb::gui {

// `name`: a file of resources/icons/actions without ".svg" ("start", "pause", "checkpoint", ...).
QIcon actionIcon(const QString& name);
// Our own icon only, without the theme's: what actionIcon falls back to. Null for an unknown name.
QIcon bundledActionIcon(const QString& name);
// The application's icon: torch-workbench from the installed icon theme, else the compiled-in SVG.
QIcon applicationIcon();

}  // namespace wb::gui
