#pragma once
// What every command of workbench-cli shares on CLI11: a command with the house help layout (usage,
// description, arguments, options, actions, examples), the action that runs once the whole line is parsed,
// and the checks an option's value takes. A command's arguments and options are declared once, in its own
// file; its --help, its bad-command-line messages and the shell completion (`workbench-cli completion`) are
// all made from that.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace wb::cli {

using Action = std::function<int()>;

// Makes `program` (before any command is added) what the commands inherit: the help layout, -h/--help, one
// command a line, the last of an option given twice.
void configureProgram(CLI::App& program);

// Adds the command `name` under `parent` (the program, or a command with actions such as `queue`). The first
// line of `about` is what the parent's list says of it; all of it starts the help. `footer` ends the help:
// examples, exit status.
CLI::App* addCommand(CLI::App& parent, const std::string& name, const std::string& about,
                     const std::string& footer = "");

// What runs when the command line ends at `command` (rather than one of its actions), after the whole line
// has parsed, inside the program's one error edge (runCommandLine): it returns the exit status.
void setAction(CLI::App* command, Action action);
// The action of the command the last parse ended at (empty when it ended at none).
Action chosenAction();

// A check of an option's value: `accepts` says whether the text is one; a value it refuses is reported as
// "--OPTION needs WHAT (got 'TEXT')". The numbers' predicates below are the usual `accepts`.
CLI::Validator takes(const std::string& what, std::function<bool(const std::string&)> accepts);
std::function<bool(const std::string&)> wholeNumberFrom(int64_t min);                 // "12", at least min
std::function<bool(const std::string&)> numberWhere(std::function<bool(double)> ok);  // "1e-3", finite
bool parseWholeNumber(const std::string& text, int64_t& out);
bool parseNumber(const std::string& text, double& out);

// The help of `command` (the program's own for the root), as --help prints it.
std::string helpText(const CLI::App& command);
// "workbench-cli queue add": the words that name `command`.
std::string commandPath(const CLI::App& command);
// The commands (or a command's actions) that --help lists: those not hidden.
std::vector<const CLI::App*> visibleActions(const CLI::App& command);

// For shell completion: one line per command, from the program (path ".") down (paths "queue.add"): its
// actions, its options (`--name`, or `--name=TYPE` when it takes a value) and its arguments (`<NAME>`).
void printCompletionTable(const CLI::App& command, const std::string& path, std::ostream& out);

}  // namespace wb::cli
