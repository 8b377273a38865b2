#pragma once
// Where the workbench's own files are: installed beside the binaries (<prefix>/share/torch-workbench, where
// packaging/ puts them, found from the executable's own location so a package works under any prefix) or,
// for binaries built in a source tree and run from there, that tree's resources/.

#include <string>

namespace wb {

// The folder of the running executable; "" when /proc/self/exe cannot be read.
std::string executableDir();

// The example experiments: TORCH_WORKBENCH_EXAMPLES when set, else <executable dir>/../share/torch-workbench/
// examples when it exists, else the source tree's resources/examples; "" when none of them exists.
std::string examplesDir();

// The command-line tool, which works a run queue in its own process (the window starts it so that a queue
// goes on after the window closes): TORCH_WORKBENCH_CLI when set, else workbench-cli beside the executable
// (installed), else in a build tree's cli/ beside its gui/ or tests/; "" when none exists.
std::string cliExecutable();

}  // namespace wb
