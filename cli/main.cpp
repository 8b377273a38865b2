// workbench-cli: the headless front door onto the engine (a peer of the window, not an afterthought).
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "cli_commands.h"
#include "workbench/system_info.h"

int main(int argc, char** argv) {
  wb::ensurePassiveOpenMpWait(argv);
  // Past a file size limit (ulimit -f) a write should fail with EFBIG, which the engine reports with what to
  // do, instead of the process being killed by SIGXFSZ mid-checkpoint.
  std::signal(SIGXFSZ, SIG_IGN);
  // Commands, `help` and `--version` are dispatched from one table (command_list.cpp).
  return wb::cli::runCommandLine(std::vector<std::string>(argv + 1, argv + argc));
}
