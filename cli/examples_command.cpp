// workbench-cli examples: the example experiments installed with the workbench
// (share/torch-workbench/examples, or the source tree's resources/examples), listed or printed for a copy to
// edit.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/did_you_mean.h"
#include "workbench/examples.h"
#include "workbench/install_paths.h"

namespace wb::cli {
namespace {

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

int printExample(const std::string& name) {
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
}

struct ExamplesOptions {
  std::string name;
  bool json = false;
};

}  // namespace

void addExamplesCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "examples",
      "list the example experiments, or print one\n"
      "Lists the example experiments a new project starts from (MLP, CNN, ResNet and ViT on Fashion-MNIST, a "
      "CSV "
      "table, a compression pipeline), each with what it shows. Given a NAME, prints that example's "
      "experiment "
      "file, with its data paths made absolute so a copy works from any folder.\n"
      "\n"
      "The folder: share/torch-workbench/examples beside the installed program, or resources/examples in the "
      "source tree; TORCH_WORKBENCH_EXAMPLES overrides it.",
      "Examples:\n"
      "  workbench-cli examples\n"
      "  workbench-cli train --example mlp                    # train one as it is\n"
      "  workbench-cli examples cnn > my-cnn.json             # a copy to edit, then:\n"
      "  workbench-cli train my-cnn.json --set train.epochs=2\n");
  auto o = std::make_shared<ExamplesOptions>();
  command->add_option("EXAMPLE", o->name,
                      "the example to print (its experiment file, data paths made absolute)");
  command->add_flag("--json", o->json, "the list as a JSON array of {id, title, description, file}");
  // An unreadable examples folder is a UserError, printed by the CLI's error edge.
  setAction(command, [o] { return o->name.empty() ? listExamplesCommand(o->json) : printExample(o->name); });
}

}  // namespace wb::cli
