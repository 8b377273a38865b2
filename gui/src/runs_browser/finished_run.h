#pragma once
// What Evaluate and Compress start from: a finished run, given or the one selected in the runs browser.

#include <QString>
#include <functional>

#include "window/error_presenter.h"

namespace wb::gui {

class RunsBrowser;

// `runDir`, or the finished run selected in `runs`; an empty string (after telling the user `why` the command
// needs one and how to choose `command` again) when there is none.
QString finishedRunFolder(const RunsBrowser* runs, const QString& runDir, const QString& why,
                          const QString& command, const ErrorPresenter& presentError);

}  // namespace wb::gui
