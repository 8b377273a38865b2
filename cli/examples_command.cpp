// workbench-cli examples: the example experiments installed with the workbench
// (share/torch-workbench/examples, or the source tree's resources/examples), listed or printed for a copy to
// edit.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/did_you_mean.h"
#include "workbench/errors.h"
#include "workbench/examples.h"
#include "workbench/install_paths.h"

namespace wb::cli {
namespace {

const char* kExamplesHelp =
    "usage: workbench-cli examples [--json]\n"
    "       workbench-cli examples NAME\n"
    "\n"
    "Lists the example experiments a new project starts from (MLP, CNN, ResNet and ViT on Fashion-MNIST, a "
    "CSV\n"
    "table, a compression pipeline), each with what it shows. Given a NAME, prints that example's "
    "experiment\n"
    "file, with its data paths made absolute so a copy works from any folder.\n"
    "\n"
    "  --json   the list as a JSON array of {id, title, description, file}\n"
    "\n"
    "Examples:\n"
    "  workbench-cli examples\n"
    "  workbench-cli train --example mlp                    # train one as it is\n"
    "  workbench-cli examples cnn > my-cnn.json             # a copy to edit, then:\n"
    "  workbench-cli train my-cnn.json --set train.epochs=2\n"
    "\n"
    "The folder: share/torch-workbench/examples beside the installed program, or resources/examples in the\n"
    "source tree; TORCH_WORKBENCH_EXAMPLES overrides it.\n";

int listExamplesCommand(bool json) {
  const std::vector<ExampleInfo> examples = listExamples();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const ExampleInfo& e : examples) {
      out.push_back({{"id", e.id}, {"title", e.title}, {"description", e.description}, {"file", e.file}});
    }
    std::cout << out.dump(2) << std::endl;
    return kExitOk;
  }
  for (const ExampleInfo& e : examples) {
    std::printf("%-20s %s\n", e.id.c_str(), e.title.c_str());
    // The description wrapped under the title, at word boundaries.
    std::string line;
    size_t start = 0;
    const std::string& text = e.description;
    while (start < text.size()) {
      size_t end = text.find(' ', start);
      if (end == std::string::npos) end = text.size();
      const std::string word = text.substr(start, end - start);
      if (!line.empty() && line.size() + 1 + word.size() > 88) {
        std::printf("%-20s %s\n", "", line.c_str());
        line.clear();
      }
      line += (line.empty() ? "" : " ") + word;
      start = end + 1;
    }
    if (!line.empty()) std::printf("%-20s %s\n", "", line.c_str());
  }
  std::printf(
      "\nIn %s. `workbench-cli train --example NAME` trains one; `workbench-cli examples NAME > my.json`\n"
      "copies one to edit.\n",
      examplesDir().c_str());
  return kExitOk;
}

}  // namespace

int examplesCommand(const std::vector<std::string>& args) {
  bool json = false;
  std::string name;
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << kExamplesHelp;
      return kExitOk;
    } else if (a == "--json") {
      json = true;
    } else if (!a.empty() && a[0] != '-' && name.empty()) {
      name = a;
    } else {
      std::cerr << "error: unknown argument '" << a << "' for examples\n\n" << kExamplesHelp;
      return kExitBadInput;
    }
  }
  try {
    if (name.empty()) return listExamplesCommand(json);
    const std::vector<ExampleInfo> examples = listExamples();
    const std::optional<ExampleInfo> example = findExample(name, examples);
    if (!example) {
      std::vector<std::string> ids;
      for (const ExampleInfo& e : examples) ids.push_back(e.id);
      const std::string suggestion = didYouMean(name, ids);
      printError("no example named '" + name + "'" +
                     (suggestion.empty() ? "" : "; did you mean '" + suggestion + "'?"),
                 "`workbench-cli examples` lists them.");
      return kExitBadInput;
    }
    std::cout << loadExampleDocument(*example).dump(2) << std::endl;
    return kExitOk;
  } catch (const UserError& e) {
    printError(e.what(), e.hint());
    return kExitBadInput;
  }
}

}  // namespace wb::cli
