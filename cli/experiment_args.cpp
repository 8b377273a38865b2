#include "experiment_args.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "run_session.h"
#include "workbench/did_you_mean.h"
#include "workbench/examples.h"

namespace wb::cli {
namespace {

// Paths in an experiment are relative to the folder the program runs in (docs/experiment.md). When a data
// file that was not found there is beside the experiment file instead (an example run by its installed path),
// say so.
void printPathsBesideFile(const std::string& file, const Experiment& experiment,
                          const std::vector<ValidationIssue>& issues) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(file).parent_path();
  for (const auto& [key, value] : {std::pair{"data.path", experiment.data.path},
                                   std::pair{"data.test_path", experiment.data.test_path}}) {
    const bool reported =
        std::any_of(issues.begin(), issues.end(), [&](const ValidationIssue& i) { return i.path == key; });
    if (!reported || value.empty() || fs::path(value).is_absolute() || folder.empty()) continue;
    std::error_code ec;
    if (fs::exists(folder / value, ec) && !fs::exists(value, ec)) {
      std::cerr << "  note: " << key << " \"" << value
                << "\" is relative to the folder you run in, not to the "
                << "experiment file; it is in " << folder.string()
                << ": run from there, or write the path in full"
                << "\n";
    }
  }
}

}  // namespace

void addExperimentArgs(CLI::App* command, ExperimentArgs& args, const std::string& file_name,
                       const std::string& file_help) {
  command->add_option(file_name, args.file, file_help)->type_name(file_name);
  command
      ->add_option(
          "--set", args.overrides,
          "override one key (again for each key); the value is read as JSON when it parses, else as a "
          "string, e.g. --set train.epochs=1 --set 'train.devices=[\"cpu\"]'")
      ->type_name("KEY=VALUE")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      // One KEY=VALUE per --set: a list option would otherwise take the words after it too, the experiment
      // file among them (`train --set train.epochs=1 my.json`).
      ->allow_extra_args(false);
  command
      ->add_option("--example", args.example,
                   "an installed example instead of a file (`workbench-cli examples` lists them)")
      ->type_name("EXAMPLE");
}

std::optional<Experiment> resolveExperiment(const ExperimentArgs& args, bool engine_checks) {
  nlohmann::json doc = nlohmann::json::object();
  if (!args.example.empty()) {
    if (!args.file.empty()) {
      std::cerr << "error: give an experiment file or --example, not both\n";
      return std::nullopt;
    }
    // A folder of examples that cannot be read is a UserError, printed by the CLI's error edge.
    const std::vector<ExampleInfo> examples = listExamples();
    const std::optional<ExampleInfo> example = findExample(args.example, examples);
    if (!example) {
      std::vector<std::string> ids;
      for (const ExampleInfo& e : examples) ids.push_back(e.id);
      const std::string suggestion = didYouMean(args.example, ids);
      std::cerr << "error: no example named '" << args.example << "'"
                << (suggestion.empty() ? "" : "; did you mean '" + suggestion + "'?") << "\n"
                << "  what to do: `workbench-cli examples` lists them\n";
      return std::nullopt;
    }
    doc = loadExampleDocument(*example);
  } else if (!args.file.empty()) {
    std::ifstream in(args.file);
    if (!in) {
      std::cerr << "error: cannot open experiment file " << args.file << "\n";
      return std::nullopt;
    }
    try {
      doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception&) {
      // loadExperimentFile words the syntax error (or a number out of range) with the file's name and
      // position.
      const ParseResult r = loadExperimentFile(args.file);
      std::cerr << "error: " << args.file << ":\n" << formatIssues(r.issues) << "\n";
      return std::nullopt;
    }
  }
  std::vector<ValidationIssue> issues;
  for (const std::string& assignment : args.overrides) {
    auto more = applyOverride(doc, assignment);
    issues.insert(issues.end(), more.begin(), more.end());
  }
  ParseResult parsed = parseExperiment(doc);
  issues.insert(issues.end(), parsed.issues.begin(), parsed.issues.end());
  if (issues.empty() && engine_checks) issues = checkExperiment(parsed.experiment);
  if (!issues.empty()) {
    const std::string source = !args.example.empty() ? " of example " + args.example
                               : args.file.empty()   ? std::string()
                                                     : " in " + args.file;
    std::cerr << "error: the experiment" << source << " is not valid:\n" << formatIssues(issues) << "\n";
    if (!args.file.empty()) printPathsBesideFile(args.file, parsed.experiment, issues);
    return std::nullopt;
  }
  return parsed.experiment;
}

}  // namespace wb::cli
