#pragma once
// What the window's command line asks of a window that exists (app/command_line.h parses it): open an
// experiment, past runs, a run's compression, the model or a sweep; then start a compression dialog, an
// export or an evaluation; and for --screenshot, take the picture when what it shows is ready.

class QObject;

namespace wb::gui {

struct CommandLine;
class MainWindow;

// Opens what `cl` names in `window`. False when its experiment file could not be opened (the window has said
// why); for --screenshot, nothing else is opened then.
bool openFromCommandLine(MainWindow& window, const CommandLine& cl);

// Shows the window and starts what `cl` asks. For --screenshot the window takes the pictures' fixed size and
// a ScreenshotDriver (owned by `owner`) takes the picture once its subject is ready: the export's or the
// evaluation's result, the model's table and weights, the sweep's results, or a short run's steps.
void startFromCommandLine(MainWindow& window, const CommandLine& cl, QObject* owner);

}  // namespace wb::gui
