#pragma once
// How a part of the window shows a problem to the user: the window's dialog, or what a test or a benchmark
// puts in its place. Each part that can fail takes one and says nothing when it is empty.

#include <QString>
#include <functional>

namespace wb::gui {

using ErrorPresenter = std::function<void(const QString& title, const QString& message, const QString& hint)>;

}  // namespace wb::gui
