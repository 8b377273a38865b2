#pragma once
// A form scrolls under the mouse wheel; its fields do not change as the wheel passes over them. A spin box
// or a chooser takes the wheel only once the user has clicked or tabbed into it: over an unfocused one the
// wheel scrolls the form around it (the event goes on to the scroll area), as in a browser's form. Without
// this, scrolling the experiment form turned the workers from 2 into -1 and flipped choosers on the way.

class QWidget;

namespace wb::gui {

// Spin boxes and combo boxes: focus by click or Tab only (not by the wheel), and the wheel ignored while
// unfocused. Other widgets are left as they are.
void guardWheel(QWidget* field);

}  // namespace wb::gui
