// The CLI's own door: --version, help for every command, unknown commands, and the bash completion.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "cli/cli_runner.h"

namespace {

using wb::test::runCli;

// Each CLI start re-executes itself once to set OMP_WAIT_POLICY (ensurePassiveOpenMpWait) unless it is set;
// these tests start it dozens of times, so they set it, for their own duration only.
class PassiveOpenMp {
 public:
  PassiveOpenMp() {
    if (const char* v = std::getenv("OMP_WAIT_POLICY")) m_saved = v;
    ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  }
  ~PassiveOpenMp() {
    if (m_saved.empty()) {
      ::unsetenv("OMP_WAIT_POLICY");
    } else {
      ::setenv("OMP_WAIT_POLICY", m_saved.c_str(), 1);
    }
  }

 private:
  std::string m_saved;
};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

TEST(CliHelp, VersionNamesTheProjectLibTorchAndTheBlas) {
  const auto r = runCli("--version");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("^workbench-cli [0-9]+\\.[0-9]+\\.[0-9]+\n"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nLibTorch [0-9]+\\.[0-9]+"))) << r.out;
  // This machine's LibTorch multiplies matrices in OpenBLAS (scripts/setup.sh); the line names its version.
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\nBLAS: (OpenBLAS [0-9]+\\.[0-9]+|reference BLAS|Intel MKL|BLIS)")))
      << r.out;
  EXPECT_NE(r.out.find("CUDA: "), std::string::npos) << r.out;
  EXPECT_EQ(runCli("version").out, r.out);
}

TEST(CliHelp, HelpListsEveryCommandAndEachHasItsOwnHelp) {
  const PassiveOpenMp passive;
  const auto listed = runCli("help --commands");
  ASSERT_EQ(listed.status, 0) << listed.err;
  const std::vector<std::string> commands = lines(listed.out);
  ASSERT_GE(commands.size(), 10u) << listed.out;
  const auto usage = runCli("help");
  ASSERT_EQ(usage.status, 0) << usage.err;
  for (const std::string& command : commands) {
    EXPECT_NE(usage.out.find(" " + command + " "), std::string::npos) << command << " missing from:\n"
                                                                      << usage.out;
    const auto help = runCli("help " + command);
    EXPECT_EQ(help.status, 0) << command << ": " << help.err;
    EXPECT_EQ(help.out.rfind("usage: workbench-cli " + command, 0), 0u) << command << ":\n" << help.out;
    const auto dashed = runCli(command + " --help");
    EXPECT_EQ(dashed.status, 0) << command << ": " << dashed.err;
    EXPECT_EQ(dashed.out, help.out) << command;
    EXPECT_NE(help.out.find("\nExample"), std::string::npos) << command << " has no examples:\n" << help.out;
    // One layout for all, made from each command's declared options.
    EXPECT_NE(help.out.find("\nOptions:\n"), std::string::npos) << command << ":\n" << help.out;
    EXPECT_NE(help.out.find("\n  -h, --help "), std::string::npos) << command << ":\n" << help.out;
  }
}

// A command line the parser refuses exits with 2 and says what is wrong, naming the option or argument, and
// where to look; stdout stays empty.
TEST(CliHelp, ABadCommandLineNamesTheOptionAndWhatToDo) {
  const PassiveOpenMp passive;
  struct Case {
    std::string args, says, command;
  };
  for (const Case& c : std::vector<Case>{
           {"train --no-such-flag", "unknown argument '--no-such-flag' for train", "train"},
           {"train --jsn", "did you mean '--json'?", "train"},
           {"bench --steps", "--steps needs a value (N)", "bench"},
           {"find-lr --steps many",
            "--steps needs a whole number of at least 2, e.g. --steps 100 (got 'many')", "find-lr"},
           {"eval", "eval needs RUN_DIR", "eval"},
           {"export RUN --format pickle --out x.pt",
            "--format needs a format: torchscript, onnx or safetensors", "export"},
           {"queue", "queue needs an action: add, list, run, remove, hold, release, move", "queue"},
           {"queue lst", "unknown action 'lst' for queue; did you mean 'list'?", "queue"},
           {"runs show", "runs show needs ID", "runs show"},
           {"queue remove x", "ID needs an entry id", "queue remove"},
           {"control /tmp --stop --stop", "--stop is given more than once; give it once", "control"},
           {"control /tmp --lr-scale 0.5 --lr-scale 0.1", "--lr-scale is given more than once", "control"},
       }) {
    const auto r = runCli(c.args);
    EXPECT_EQ(r.status, 2) << c.args;
    EXPECT_NE(r.err.find("error: "), std::string::npos) << c.args << ":\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ":\n" << r.err;
    EXPECT_NE(r.err.find("what to do: `workbench-cli " + c.command + " --help`"), std::string::npos)
        << c.args << ":\n"
        << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args << ":\n" << r.out;
  }
}

// `--` ends the options: what follows is an argument even when it starts with a dash.
TEST(CliHelp, DoubleDashEndsTheOptions) {
  const auto r = runCli("check -- --no-such.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot open experiment file --no-such.json"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("unknown argument"), std::string::npos) << r.err;
}

// Each --set takes one KEY=VALUE: the experiment file may follow it, as it always could.
TEST(CliHelp, SetTakesOneValueAndTheFileMayFollowIt) {
  for (const std::string args : {"check --set train.epochs=1 /no/such.json",
                                 "check --set=train.epochs=1 --set train.seed=3 /no/such.json"}) {
    const auto r = runCli(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_NE(r.err.find("cannot open experiment file /no/such.json"), std::string::npos) << args << ":\n"
                                                                                          << r.err;
  }
  const auto r =
      runCli("check --set train.epochs=1 " + std::string(WB_SOURCE_DIR) + "/resources/examples/mlp.json");
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(CliHelp, UnknownCommandIsNamedWithASuggestion) {
  const auto r = runCli("trian --set train.max_steps=1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown command 'trian'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'train'?"), std::string::npos) << r.err;
  const auto help = runCli("help exprot");
  EXPECT_EQ(help.status, 2);
  EXPECT_NE(help.err.find("did you mean 'export'?"), std::string::npos) << help.err;
  const auto none = runCli("");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("usage: workbench-cli"), std::string::npos) << none.err;
}

TEST(CliHelp, KeysListsTheSchemaWithDefaults) {
  const auto r = runCli("keys");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\ntrain\\.epochs +[0-9]+\n"))) << r.out;
  // The words a key takes and when it matters, from the schema the parser checks against.
  for (const char* line :
       {"\noptimizer\\.name +\"[a-z]+\" +one of: sgd adam adamw rmsprop adagrad\n",
        "\noptimizer\\.betas +\\[[0-9.,]+\\] +when optimizer\\.name is adam or adamw\n",
        "\ndata\\.augment\\.horizontal_flip +(true|false) +when data\\.dataset is neither csv nor text\n",
        "\nschedule\\.anneal_strategy +\"cos\" +one of: cos linear; when schedule\\.name is onecycle\n"}) {
    EXPECT_TRUE(std::regex_search(r.out, std::regex(line))) << line << "\n" << r.out;
  }
  const auto names = runCli("keys --names");
  ASSERT_EQ(names.status, 0);
  for (const std::string& key : lines(names.out)) {
    // Every listed key is one --set accepts (checked by the same schema, so a typo would be refused).
    EXPECT_TRUE(std::regex_match(key, std::regex("[a-z_]+(\\.[a-z_0-9]+)*"))) << key;
  }
  EXPECT_NE(names.out.find("\nschedule.warmup_steps\n"), std::string::npos);
}

// Sources the completion script in bash and asks it what it would offer, as a user's <TAB> does.
std::vector<std::string> complete(const std::string& words) {
  const std::string script = std::string(WB_SOURCE_DIR) + "/resources/completion/workbench-cli";
  const std::string program =
      "source '" + script + "'; COMP_WORDS=(" + std::string(WB_CLI) + " " + words + "); " +
      "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); " +
      (words.empty() || words.back() == ' ' ? "COMP_WORDS+=(''); COMP_CWORD=$((COMP_CWORD + 1)); " : "") +
      "_workbench_cli; printf '%s\\n' \"${COMPREPLY[@]}\"";
  std::string quoted;
  for (char c : program) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  const std::string cmd = "bash -c '" + quoted + "' 2>&1";
  std::string out;
  if (std::FILE* pipe = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
    ::pclose(pipe);
  }
  return lines(out);
}

TEST(CliCompletion, CompletesCommandsOptionsAndExperimentKeys) {
  EXPECT_EQ(complete("tr"), (std::vector<std::string>{"train", "train-tokenizer"}));
  EXPECT_EQ(complete("tok"), std::vector<std::string>{"tokenize"});
  EXPECT_EQ(complete("ex"), (std::vector<std::string>{"export", "examples"}));
  EXPECT_EQ(complete("train --set train.ep"), std::vector<std::string>{"train.epochs="});
  EXPECT_EQ(complete("train --set optimizer.be"), std::vector<std::string>{"optimizer.betas="});
  const auto train_options = complete("train --j");
  EXPECT_EQ(train_options, std::vector<std::string>{"--json"});
  EXPECT_EQ(complete("export RUN --format o"), std::vector<std::string>{"onnx"});
  EXPECT_EQ(complete("train --example cn"), (std::vector<std::string>{"cnn", "cnn-prune-quantize"}));
}

// The names a section of a command's help lists ("Options": every --long name; "Actions": each action).
std::vector<std::string> helpSection(const std::string& help, const std::string& title) {
  std::vector<std::string> names;
  const size_t start = help.find("\n" + title + ":\n");
  if (start == std::string::npos) return names;
  std::istringstream in(help.substr(start + title.size() + 3));
  for (std::string line; std::getline(in, line) && !line.empty();) {
    if (line.rfind("  ", 0) != 0 || line.size() < 3 || line[2] == ' ') continue;  // a description's next line
    const std::string left = line.substr(2, line.find("  ", 2) - 2);
    if (title != "Options") {
      names.push_back(left);
      continue;
    }
    const std::regex long_name("--[a-z][a-z-]*");
    for (auto m = std::sregex_iterator(left.begin(), left.end(), long_name); m != std::sregex_iterator(); ++m)
      names.push_back(m->str());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Completion and --help are made from the same definitions: for every command and action, completion offers
// exactly the options and actions its help lists.
TEST(CliCompletion, OffersEveryOptionAndActionTheHelpListsAndNoOther) {
  const PassiveOpenMp passive;
  std::vector<std::string> paths = lines(runCli("help --commands").out);
  ASSERT_GE(paths.size(), 10u);
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string help = runCli(paths[i] + " --help").out;
    const std::vector<std::string> options = helpSection(help, "Options");
    EXPECT_GE(options.size(), 1u) << paths[i] << ":\n" << help;
    std::vector<std::string> offered = complete(paths[i] + " --");
    std::sort(offered.begin(), offered.end());
    EXPECT_EQ(offered, options) << "completing `" << paths[i] << " --`";
    const std::vector<std::string> actions = helpSection(help, "Actions");
    if (actions.empty()) continue;
    std::vector<std::string> offered_actions = complete(paths[i] + " ");
    std::sort(offered_actions.begin(), offered_actions.end());
    EXPECT_EQ(offered_actions, actions) << "completing `" << paths[i] << " `";
    if (paths[i].find(' ') == std::string::npos) {
      for (const std::string& action : actions) paths.push_back(paths[i] + " " + action);
    }
  }
  EXPECT_GT(paths.size(), 25u) << "the actions of runs, queue and sweep were not visited";
}

TEST(CliCompletion, CompletesEveryCommandTheHelpLists) {
  const std::vector<std::string> commands = lines(runCli("help --commands").out);
  std::vector<std::string> offered;
  for (const std::string& c : complete("")) {
    if (c[0] != '-') offered.push_back(c);
  }
  std::vector<std::string> sorted_commands = commands;
  std::sort(sorted_commands.begin(), sorted_commands.end());
  std::sort(offered.begin(), offered.end());
  EXPECT_EQ(offered, sorted_commands)
      << "resources/completion/workbench-cli lists other commands than `help`";
}

}  // namespace
