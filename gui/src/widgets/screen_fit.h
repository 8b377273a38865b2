#pragma once
// Where a top-level window goes on the screen it opens on: its preferred size where the screen has room, else
// the screen's available area (without panels and docks) less the window manager's frame, and never off it. A
// geometry saved on a bigger screen is brought inside the current one the same way.

#include <QRect>
#include <QSize>

class QWidget;

namespace wb::gui {

// The frame a window manager typically adds around a window (title bar and borders), before the window is
// shown and its real frame is known.
inline constexpr QSize kTypicalFrame{16, 48};

// `wanted` (a client-area rectangle; an invalid one: centred at `preferred`) moved and shrunk to fit inside
// `available` with `frame` around it, but not below `minimum`.
QRect fittedGeometry(QRect wanted, QSize preferred, QSize minimum, QRect available,
                     QSize frame = kTypicalFrame);

// Applies fittedGeometry to `window` on its screen: with `keepPosition`, its current geometry brought inside;
// else only its size (`preferred` where there is room), the window manager placing it.
void fitToScreen(QWidget* window, QSize preferred, bool keepPosition);

// The size a dialog opens at: `preferred` where its screen (its parent's) has room, else what the screen's
// available area holds with a frame around it; Qt centres it over its parent and keeps it on that screen.
QSize fittedSize(const QWidget* dialog, QSize preferred);

// A dialog at fittedSize(dialog, preferred), kept inside its screen each time it is shown (keepInsideScreen).
void fitDialogToScreen(QWidget* dialog, QSize preferred);

// Each time `window` is shown, once the window manager has framed it, moves it so that its frame lies inside
// its screen's available area (Qt centres a dialog over its parent from a guess of the frame, which puts a
// tall one's title bar above the screen's top when the parent is at the top).
void keepInsideScreen(QWidget* window);

}  // namespace wb::gui
