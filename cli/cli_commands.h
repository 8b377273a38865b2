#pragma once
// The commands of workbench-cli. Each takes its own arguments (after the command word) and returns the
// process exit status: 0 done, 2 bad input (message printed), 1 any other failure.

#include <string>
#include <vector>

namespace wb::cli {

enum ExitCode { kExitOk = 0, kExitFailure = 1, kExitBadInput = 2, kExitInterrupted = 130 };

int trainCommand(const std::vector<std::string>& args);
int resumeCommand(const std::vector<std::string>& args);
int runsCommand(const std::vector<std::string>& args);
int evalCommand(const std::vector<std::string>& args);
int benchCommand(const std::vector<std::string>& args);
int infoCommand(const std::vector<std::string>& args);
int compressCommand(const std::vector<std::string>& args);
int exportCommand(const std::vector<std::string>& args);
int examplesCommand(const std::vector<std::string>& args);
int checkCommand(const std::vector<std::string>& args);
int keysCommand(const std::vector<std::string>& args);

// The whole command line after the program's name: the command word, `help [COMMAND]`, `--version`
// (command_list.cpp, where every command is listed once).
int runCommandLine(const std::vector<std::string>& args);
int controlCommand(const std::vector<std::string>& args);
int findLrCommand(const std::vector<std::string>& args);     // find_lr_command.cpp
int findBatchCommand(const std::vector<std::string>& args);  // find_batch_command.cpp
int queueCommand(const std::vector<std::string>& args);      // queue_command.cpp
int sweepCommand(const std::vector<std::string>& args);      // sweep_command.cpp

}  // namespace wb::cli
