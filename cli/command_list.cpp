// The command line of workbench-cli: every command, listed once, in the order `help` shows them; `help`,
// `--version` and the hidden `completion`; and the one error edge, where a bad command line, an error a user
// can fix (exit status 2) and any other failure (1) are printed.
#include <iostream>
#include <string>
#include <vector>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/did_you_mean.h"
#include "workbench/errors.h"
#include "workbench/system_info.h"

namespace wb::cli {
namespace {

// In the order `workbench-cli help` lists them.
void (*const kCommands[])(CLI::App&) = {
    addTrainCommand,   addResumeCommand, addRunsCommand,      addQueueCommand,          addSweepCommand,
    addControlCommand, addEvalCommand,   addCompressCommand,  addExportCommand,         addBenchCommand,
    addProfileCommand, addFindLrCommand, addFindBatchCommand, addCheckCommand,          addExamplesCommand,
    addKeysCommand,    addInfoCommand,   addTokenizeCommand,  addTrainTokenizerCommand,
};

std::vector<std::string> commandNames(const CLI::App& program) {
  std::vector<std::string> names;
  for (const CLI::App* c : visibleActions(program)) names.push_back(c->get_name());
  return names;
}

// "queue add" ("workbench-cli" for the program itself).
std::string commandName(const CLI::App& command) {
  const std::string path = commandPath(command);
  return command.get_parent() ? path.substr(path.find(' ') + 1) : path;
}

int unknownCommand(const CLI::App& program, const std::string& name) {
  std::cerr << "error: unknown command '" << name << "'";
  const std::string suggestion = didYouMean(name, commandNames(program));
  if (!suggestion.empty()) std::cerr << "; did you mean '" << suggestion << "'?";
  std::cerr << "\n  what to do: `workbench-cli help` lists the commands\n";
  return kExitBadInput;
}

void addHelpCommand(CLI::App& program) {
  auto words = std::make_shared<std::vector<std::string>>();
  auto list = std::make_shared<bool>(false);
  CLI::App* help = addCommand(
      program, "help",
      "list the commands, or describe one\n"
      "Lists the commands, or describes one: its arguments, options and examples (the same as `workbench-cli "
      "COMMAND --help`).",
      "Examples:\n  workbench-cli help\n  workbench-cli help train\n  workbench-cli help queue add\n");
  help->add_option("COMMAND", *words, "the command (and action) to describe");
  help->add_flag("--commands", *list,
                 "the command words only, one a line (for scripts and shell completion)");
  setAction(help, [&program, words, list] {
    if (*list) {
      for (const std::string& name : commandNames(program)) std::cout << name << "\n";
      return static_cast<int>(kExitOk);
    }
    const CLI::App* command = &program;
    for (const std::string& word : *words) {
      const std::vector<const CLI::App*> found =
          command->get_subcommands([&word](const CLI::App* a) { return a->get_name() == word; });
      if (found.empty() && command == &program) return unknownCommand(program, word);
      if (found.empty()) {
        printError("unknown action '" + word + "' for " + commandName(*command),
                   "`workbench-cli help " + commandName(*command) + "` lists its actions");
        return static_cast<int>(kExitBadInput);
      }
      command = found.front();
    }
    std::cout << helpText(*command);
    return static_cast<int>(kExitOk);
  });
}

void addVersionCommands(CLI::App& program) {
  const auto version = [] {
    std::cout << describeVersions(queryVersions(), "workbench-cli");
    return static_cast<int>(kExitOk);
  };
  auto flag = std::make_shared<bool>(false);
  program.add_flag("--version", *flag,
                   "the versions of workbench-cli, LibTorch, the BLAS, CUDA, cuDNN and NCCL");
  // The program's own action: the line named no command.
  setAction(&program, [&program, flag, version] {
    if (*flag) return version();
    std::cerr << helpText(program);
    return static_cast<int>(kExitBadInput);
  });
  setAction(addCommand(program, "version", "the versions (as --version)")->group(""), version);
}

// The program's command line, built once per process.
CLI::App& program() {
  static CLI::App* app = [] {
    auto* p = new CLI::App("", "workbench-cli");
    configureProgram(*p);
    for (const auto add : kCommands) add(*p);
    addHelpCommand(*p);
    addVersionCommands(*p);
    setAction(addCommand(*p, "completion", "the commands and options, for shell completion")->group(""), [p] {
      printCompletionTable(*p, ".", std::cout);
      return static_cast<int>(kExitOk);
    });
    p->description("       workbench-cli help [COMMAND]\n       workbench-cli --version");
    p->footer(
        "`workbench-cli help COMMAND` (or `workbench-cli COMMAND --help`) describes each, with examples.\n"
        "Experiment keys: `workbench-cli keys`, docs/experiment.md. Examples to start from: `workbench-cli "
        "examples`.\n");
    return p;
  }();
  return *app;
}

// The innermost command the line named (the program itself when none).
const CLI::App& innermost(const CLI::App& program) {
  const CLI::App* command = &program;
  while (!command->get_subcommands().empty()) command = command->get_subcommands().front();
  return *command;
}

// A command line CLI11 refused, said the house way: what is wrong, naming the option, and where to look.
int badCommandLine(const CLI::ParseError& error, const CLI::App& command) {
  std::string message = error.what();
  const std::string name = commandName(command);
  const std::string help = "`" + commandPath(command) + " --help` describes its arguments and options";
  if (dynamic_cast<const CLI::ExtrasError*>(&error)) {
    const std::string extras = message.substr(message.find(": ") + 2);
    message = "unknown argument '" + extras + "' for " + name;
    std::vector<std::string> known;
    for (const CLI::Option* o : command.get_options()) {
      for (const std::string& l : o->get_lnames()) known.push_back("--" + l);
    }
    for (const CLI::App* a : visibleActions(command)) known.push_back(a->get_name());
    const std::string suggestion = didYouMean(extras.substr(0, extras.find(' ')), known);
    if (!suggestion.empty()) message += "; did you mean '" + suggestion + "'?";
  } else if (dynamic_cast<const CLI::RequiredError*>(&error) && message.size() > 12) {
    const std::string what = message.substr(0, message.size() - 12);  // "X is required"
    if (what == "A subcommand" && !command.remaining().empty()) {
      // `queue lst`: a word that is no action of the command.
      std::vector<std::string> actions;
      for (const CLI::App* a : visibleActions(command)) actions.push_back(a->get_name());
      const std::string word = command.remaining().front();
      const std::string suggestion = didYouMean(word, actions);
      message = "unknown action '" + word + "' for " + name +
                (suggestion.empty() ? "" : "; did you mean '" + suggestion + "'?");
    } else if (what == "A subcommand") {
      std::string actions;
      for (const CLI::App* a : visibleActions(command))
        actions += (actions.empty() ? "" : ", ") + a->get_name();
      message = name + " needs an action: " + actions;
    } else {
      message = name + " needs " + what;
    }
  } else if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) &&
             message.find(": At Most ") != std::string::npos) {
    // "--stop: At Most 1 required but received 2": an option that may be given once (control's actions).
    message = message.substr(0, message.find(": ")) + " is given more than once; give it once";
  } else if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) &&
             message.find(" required ") != std::string::npos) {
    // "--steps: 1 required N missing"
    const size_t colon = message.find(": ");
    const size_t type = message.find(" required ") + 10;
    message = message.substr(0, colon) + " needs a value (" +
              message.substr(type, message.rfind(" missing") - type) + ")";
  } else if (dynamic_cast<const CLI::ValidationError*>(&error)) {
    const size_t colon = message.find(": needs ");
    if (colon != std::string::npos) message.erase(colon, 1);  // "--steps needs a whole number ..."
  }
  printError(message, help);
  return kExitBadInput;
}

}  // namespace

int runCommandLine(const std::vector<std::string>& args) {
  CLI::App& app = program();
  if (args.empty()) {
    std::cerr << helpText(app);
    return kExitBadInput;
  }
  if (args[0].empty() || args[0][0] != '-') {
    const std::string& word = args[0];
    if (app.get_subcommands([&word](const CLI::App* a) { return a->get_name() == word; }).empty())
      return unknownCommand(app, word);
  }
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes the words last first
    app.parse(reversed);
    const Action action = chosenAction();
    return action ? action() : static_cast<int>(kExitBadInput);
  } catch (const CLI::CallForHelp&) {
    std::cout << helpText(innermost(app));
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    return badCommandLine(e, innermost(app));
  } catch (const UserError& e) {
    printError(e.what(), e.hint());
    return kExitBadInput;
  } catch (const std::exception& e) {
    printError(e.what(), "");
    return kExitFailure;
  }
}

}  // namespace wb::cli
