#pragma once
// The commands of workbench-cli. Each file adds its command to the program's command line (cli_app.h): its
// arguments and options with their help, and the action that runs it and returns the process exit status:
// 0 done, 2 bad input (message printed), 1 any other failure. An engine error thrown by an action is printed
// by the one error edge, runCommandLine: a UserError with exit status 2, any other exception with 1.

#include <string>
#include <vector>

#include "cli_app.h"

namespace wb::cli {

enum ExitCode { kExitOk = 0, kExitFailure = 1, kExitBadInput = 2, kExitInterrupted = 130 };

void addTrainCommand(CLI::App& program);
void addResumeCommand(CLI::App& program);
void addRunsCommand(CLI::App& program);
void addQueueCommand(CLI::App& program);  // queue_command.cpp
void addSweepCommand(CLI::App& program);  // sweep_command.cpp
void addControlCommand(CLI::App& program);
void addEvalCommand(CLI::App& program);
void addCompressCommand(CLI::App& program);
void addExportCommand(CLI::App& program);
void addBenchCommand(CLI::App& program);
void addFindLrCommand(CLI::App& program);     // find_lr_command.cpp
void addFindBatchCommand(CLI::App& program);  // find_batch_command.cpp
void addCheckCommand(CLI::App& program);
void addExamplesCommand(CLI::App& program);
void addKeysCommand(CLI::App& program);
void addInfoCommand(CLI::App& program);
void addTokenizeCommand(CLI::App& program);
void addTrainTokenizerCommand(CLI::App& program);
void addProfileCommand(CLI::App& program);  // profile_command.cpp

// The whole command line after the program's name: a command and its arguments, `help [COMMAND]`,
// `--version` (command_list.cpp, where every command is listed once).
int runCommandLine(const std::vector<std::string>& args);

}  // namespace wb::cli
