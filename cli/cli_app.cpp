#include "cli_app.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <sstream>

namespace wb::cli {
namespace {

constexpr size_t kWidth = 110;  // the help's lines, as the README's
constexpr size_t kColumn = 24;  // where an option's description starts

Action& chosen() {
  static Action action;
  return action;
}

// Each line of `text` wrapped at word boundaries to `width`, continuation lines indented by `indent`; a line
// that starts with a space is preformatted (a command, a JSON example) and kept as it is.
std::string wrap(const std::string& text, size_t width, const std::string& indent) {
  std::string out;
  std::istringstream lines(text);
  bool first_line = true;
  for (std::string line; std::getline(lines, line); first_line = false) {
    if (!first_line) out += "\n" + indent;
    if (!line.empty() && line[0] == ' ') {
      out += line;
      continue;
    }
    std::istringstream words(line);
    size_t used = 0;
    for (std::string word; words >> word;) {
      if (used > 0 && used + 1 + word.size() > width) {
        out += "\n" + indent;
        used = 0;
      }
      out += (used > 0 ? " " : "") + word;
      used += (used > 0 ? 1 : 0) + word.size();
    }
  }
  return out;
}

bool takesValue(const CLI::Option* option) {
  return option->get_items_expected_max() > 0;
}

bool isPositional(const CLI::Option* option) {
  return !option->nonpositional();
}

bool hidden(const CLI::Option* option) {
  return option->get_group().empty();
}

std::string optionNames(const CLI::Option* option) {
  if (isPositional(option)) return option->get_name(true);
  std::string names;
  for (const std::string& s : option->get_snames()) names += (names.empty() ? "-" : ", -") + s;
  for (const std::string& l : option->get_lnames()) names += (names.empty() ? "--" : ", --") + l;
  if (takesValue(option)) names += " " + option->get_type_name();
  return names;
}

// The options --help lists, the help flag last.
std::vector<const CLI::Option*> listedOptions(const CLI::App& command, bool positional) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* o : command.get_options()) {
    if (!hidden(o) && isPositional(o) == positional && o != command.get_help_ptr()) out.push_back(o);
  }
  if (!positional && command.get_help_ptr()) out.push_back(command.get_help_ptr());
  return out;
}

std::string usageLine(const CLI::App& command) {
  std::string line = commandPath(command);
  if (!visibleActions(command).empty()) {
    line += command.get_require_subcommand_min() > 0 ? " ACTION" : " [ACTION]";
  }
  bool optional = false;
  for (const CLI::Option* o : listedOptions(command, true)) {
    const std::string name = o->get_name(true) + (o->get_items_expected_max() > 1 ? "..." : "");
    line += " " + (o->get_required() ? name : "[" + name + "]");
  }
  for (const CLI::Option* o : listedOptions(command, false)) {
    if (o->get_required()) {
      line += " --" + o->get_lnames().front() + " " + o->get_type_name();
    } else if (o != command.get_help_ptr()) {
      optional = true;
    }
  }
  return optional ? line + " [OPTIONS]" : line;
}

void section(std::ostream& out, const std::string& title,
             const std::vector<std::pair<std::string, std::string>>& rows) {
  if (rows.empty()) return;
  out << "\n" << title << ":\n";
  const std::string indent(kColumn, ' ');
  for (const auto& [left, description] : rows) {
    std::string line = "  " + left;
    if (line.size() + 1 > kColumn) {
      line += "\n" + indent;
    } else {
      line.resize(kColumn, ' ');
    }
    out << line << wrap(description, kWidth - kColumn, indent) << "\n";
  }
}

std::string firstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// The house layout, for every command: usage, what it does, its arguments, options and actions, examples.
class HelpLayout : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* command, std::string, CLI::AppFormatMode) const override {
    std::ostringstream out;
    const bool program = command->get_parent() == nullptr;
    out << "usage: " << (program ? "workbench-cli COMMAND [ARGS]" : usageLine(*command)) << "\n";
    // The summary (the first line), then what it does.
    const std::string& about = command->get_description();
    const size_t end = std::min(about.find('\n'), about.size());
    if (!about.empty()) out << (program ? "" : "\n") << wrap(about.substr(0, end), kWidth, "") << "\n";
    if (end < about.size()) out << (program ? "" : "\n") << wrap(about.substr(end + 1), kWidth, "") << "\n";
    std::vector<std::pair<std::string, std::string>> rows;
    for (const CLI::Option* o : listedOptions(*command, true))
      rows.emplace_back(o->get_name(true), o->get_description());
    section(out, "Arguments", rows);
    rows.clear();
    for (const CLI::Option* o : listedOptions(*command, false))
      rows.emplace_back(optionNames(o), o->get_description());
    if (!program) section(out, "Options", rows);
    rows.clear();
    for (const CLI::App* a : visibleActions(*command))
      rows.emplace_back(a->get_name(), firstLine(a->get_description()));
    section(out, program ? "Commands" : "Actions", rows);
    if (!command->get_footer().empty()) out << "\n" << command->get_footer();
    return out.str();
  }
};

}  // namespace

CLI::App* addCommand(CLI::App& parent, const std::string& name, const std::string& about,
                     const std::string& footer) {
  CLI::App* command = parent.add_subcommand(name, about);
  command->footer(footer);
  return command;
}

void configureProgram(CLI::App& program) {
  program.formatter(std::make_shared<HelpLayout>());
  program.set_help_flag("-h,--help", "this help");
  // As a hand-written parser would: an option given twice takes the last value.
  program.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // One command (and one action of it) a line; so a word after the command is never taken for another command
  // (`help train`, `examples train`).
  program.require_subcommand(0, 1);
}

void setAction(CLI::App* command, Action action) {
  // A command's callback runs after its actions' (CLI11 runs the innermost first): the innermost one given
  // wins.
  command->callback([command, action = std::move(action)] {
    if (command->get_subcommands().empty()) chosen() = action;
  });
}

Action chosenAction() {
  return chosen();
}

CLI::Validator takes(const std::string& what, std::function<bool(const std::string&)> accepts) {
  return CLI::Validator(
      [what, accepts = std::move(accepts)](std::string& text) {
        return accepts(text) ? std::string() : "needs " + what + " (got '" + text + "')";
      },
      "");
}

bool parseWholeNumber(const std::string& text, int64_t& out) {
  try {
    size_t used = 0;
    out = std::stoll(text, &used);
    return used == text.size();
  } catch (const std::exception&) {
    return false;
  }
}

bool parseNumber(const std::string& text, double& out) {
  try {
    size_t used = 0;
    out = std::stod(text, &used);
    return used == text.size() && std::isfinite(out);
  } catch (const std::exception&) {
    return false;
  }
}

std::function<bool(const std::string&)> wholeNumberFrom(int64_t min) {
  return [min](const std::string& text) {
    int64_t n = 0;
    return parseWholeNumber(text, n) && n >= min;
  };
}

std::function<bool(const std::string&)> numberWhere(std::function<bool(double)> ok) {
  return [ok = std::move(ok)](const std::string& text) {
    double x = 0;
    return parseNumber(text, x) && ok(x);
  };
}

std::string helpText(const CLI::App& command) {
  return command.get_formatter()->make_help(&command, command.get_name(), CLI::AppFormatMode::Normal);
}

std::string commandPath(const CLI::App& command) {
  return command.get_parent() ? commandPath(*command.get_parent()) + " " + command.get_name()
                              : "workbench-cli";
}

std::vector<const CLI::App*> visibleActions(const CLI::App& command) {
  return command.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); });
}

void printCompletionTable(const CLI::App& command, const std::string& path, std::ostream& out) {
  out << path;
  for (const CLI::App* a : visibleActions(command)) out << " " << a->get_name();
  for (const CLI::Option* o : command.get_options()) {
    if (hidden(o)) continue;
    if (isPositional(o)) {
      out << " <" << o->get_name(true) << ">";
      continue;
    }
    const std::string value = takesValue(o) ? "=" + o->get_type_name() : "";
    for (const std::string& s : o->get_snames()) out << " -" << s << value;
    for (const std::string& l : o->get_lnames()) out << " --" << l << value;
  }
  out << "\n";
  for (const CLI::App* a : visibleActions(command)) {
    printCompletionTable(*a, path == "." ? a->get_name() : path + "." + a->get_name(), out);
  }
}

}  // namespace wb::cli
