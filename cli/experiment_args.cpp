#include "experiment_args.h"

#include <algorithm>
#include <fstream>
#include <iostream>

namespace wb::cli {

bool parseExperimentArgs(const std::vector<std::string>& args, ExperimentArgs& out, std::vector<std::string>& rest,
                         const std::vector<std::string>& value_options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (std::find(value_options.begin(), value_options.end(), a) != value_options.end()) {
      rest.push_back(a);
      if (i + 1 < args.size()) rest.push_back(args[++i]);
    } else if (a == "--set") {
      if (i + 1 >= args.size()) {
        std::cerr << "error: --set needs an argument, e.g. --set train.epochs=1\n";
        return false;
      }
      out.overrides.push_back(args[++i]);
    } else if (a.rfind("--set=", 0) == 0) {
      out.overrides.push_back(a.substr(6));
    } else if (!a.empty() && a[0] != '-' && out.file.empty()) {
      out.file = a;
    } else {
      rest.push_back(a);
    }
  }
  return true;
}

std::optional<Experiment> resolveExperiment(const ExperimentArgs& args, bool engine_checks) {
  nlohmann::json doc = nlohmann::json::object();
  if (!args.file.empty()) {
    std::ifstream in(args.file);
    if (!in) {
      std::cerr << "error: cannot open experiment file " << args.file << "\n";
      return std::nullopt;
    }
    try {
      doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception&) {
      // loadExperimentFile words the syntax error (or a number out of range) with the file's name and position.
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
    std::cerr << "error: the experiment" << (args.file.empty() ? "" : " in " + args.file) << " is not valid:\n"
              << formatIssues(issues) << "\n";
    return std::nullopt;
  }
  return parsed.experiment;
}

}  // namespace wb::cli
