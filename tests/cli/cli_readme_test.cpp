// The documentation's command lines, run as written: every `build/cli/workbench-cli ...` line (or
// `workbench-cli ...`, the installed program's name) of the ```sh blocks of README.md, then of every
// docs/*.md page in name order (export.md after compression.md, whose artifacts it exports), in one scratch
// folder (its default runs/ there); a command shown on two pages runs once. The placeholders a reader fills
// in are filled in: RUN_DIR (a finished CNN run, which docs/compression.md's `compress` line then
// compresses), the example run folder (an interrupted run for `resume`, a finished one for `eval`), my.json
// and my-experiment.json (copies of the examples, as docs/cli.md says to make them), optimizers.json (the
// sweep file docs/queue.md shows), ~/photos (an image folder). Long runs are shortened by `--set` only (a
// subset of the data, one epoch), never by changing the line. Lines that need what no test machine has (GPUs,
// a launcher, a run training now) or what this build lacks (Gloo, ONNX export: pip's LibTorch) are listed
// with the reason, and there must be no others. A failure names the file and line: README.md:42,
// docs/cli.md:7.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_runner.h"
#include "support/image_folder.h"
#include "support/test_helpers.h"
#include "workbench/export.h"

namespace {

namespace fs = std::filesystem;

struct ReadmeLine {
  std::string file;  // README.md, docs/cli.md, ...
  int number = 0;
  std::string text;  // without its trailing comment; `workbench-cli ...` as `build/cli/workbench-cli ...`
};

// README.md, then every docs/*.md page in name order: the files whose command lines are run.
std::vector<std::string> documentationFiles() {
  std::vector<std::string> pages;
  for (const auto& e : fs::directory_iterator(std::string(WB_SOURCE_DIR) + "/docs")) {
    if (e.is_regular_file() && e.path().extension() == ".md")
      pages.push_back("docs/" + e.path().filename().string());
  }
  std::sort(pages.begin(), pages.end());
  pages.insert(pages.begin(), "README.md");
  return pages;
}

// The command lines of one file's ```sh blocks that run the CLI, with their line numbers.
std::vector<ReadmeLine> commandsOf(const std::string& file) {
  std::ifstream in(std::string(WB_SOURCE_DIR) + "/" + file);
  EXPECT_TRUE(in) << file << " cannot be read";
  std::vector<ReadmeLine> out;
  bool in_sh = false;
  int number = 0;
  std::string pending;  // a line continued with a backslash
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.rfind("```", 0) == 0) {
      in_sh = !in_sh && line == "```sh";
      continue;
    }
    if (!in_sh) continue;
    if (!line.empty() && line.back() == '\\') {
      pending += line.substr(0, line.size() - 1);
      continue;
    }
    line = pending + line;
    pending.clear();
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    line = line.substr(start);
    if (line.find("workbench-cli") == std::string::npos) continue;
    // The comment: a " #" outside quotes.
    bool single = false, dbl = false;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\'' && !dbl) single = !single;
      if (line[i] == '"' && !single) dbl = !dbl;
      if (line[i] == '#' && !single && !dbl && i > 0 && line[i - 1] == ' ') {
        line = line.substr(0, i);
        break;
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    // A page may write the installed program's name, as a user of the packages types it.
    if (line.rfind("workbench-cli ", 0) == 0) line = "build/cli/" + line;
    out.push_back({file, number, line});
  }
  return out;
}

// Every file's command lines, README.md's first.
std::vector<ReadmeLine> readmeCommands() {
  std::vector<ReadmeLine> out;
  for (const std::string& file : documentationFiles()) {
    const std::vector<ReadmeLine> lines = commandsOf(file);
    out.insert(out.end(), lines.begin(), lines.end());
  }
  return out;
}

// Why a line cannot run on a test machine; "" when it can.
std::string whyNotHere(const std::string& line) {
  if (line.rfind("build/cli/workbench-cli", 0) != 0) {
    if (line.rfind("torchrun", 0) == 0 || line.rfind("srun", 0) == 0 ||
        line.find("torch.distributed.run") != std::string::npos ||
        line.find("MASTER_ADDR") != std::string::npos) {
      return "a launcher over several processes or machines (tests/cli/cli_data_parallel_test.cpp runs "
             "torchrun)";
    }
    if (line.rfind("sudo apt", 0) == 0) return "installs the packages (tests/packaging/package_test.sh does)";
    if (line.rfind("source ", 0) == 0) return "bash completion for an interactive shell";
    // The GPU benchmark's table (scripts/gpu-check.sh runs it on a lent device).
    if (line.find("DEVICE=cuda") != std::string::npos) return "needs CUDA devices";
    return "not a workbench-cli line";
  }
  if (line.find("cuda") != std::string::npos) return "needs CUDA devices";
    // What this build lacks, said by the engine and the build; the Debian build runs these lines.
#if !WB_TEST_HAS_GLOO
  if (line.find("train.devices=cpu:") != std::string::npos) return WB_NO_GLOO_REASON;
#endif
  if (line.find("--format onnx") != std::string::npos &&
      !wb::exportUnavailable(wb::ExportFormat::Onnx).empty()) {
    return "this build has no ONNX export: " + wb::exportUnavailable(wb::ExportFormat::Onnx);
  }
  if (line.find(" control ") != std::string::npos) {
    return "needs a run training now (tests/cli/cli_live_control_test.cpp controls one)";
  }
  return "";
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

struct Shell {
  std::string dir;
  int run(const std::string& command, std::string* output = nullptr) const {
    const std::string log = dir + "/last.log";
    // In a subshell, so that a redirection of the command's own (`examples mlp > my.json`) stays its own.
    const int raw = std::system(("cd " + dir + " && (" + command + ") >" + log + " 2>&1").c_str());
    if (output) *output = wb::test::readFile(log);
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  }
};

std::string newestRun(const std::string& runs) {
  std::string newest;
  for (const auto& e : fs::directory_iterator(runs)) {
    if (e.is_directory() && e.path().string() > newest) newest = e.path().string();
  }
  return newest;
}

TEST(CliReadme, EveryCommandLineRunsAsWritten) {
  const std::vector<ReadmeLine> lines = readmeCommands();
  ASSERT_GT(lines.size(), 30u);
  Shell sh{wb::test::tempDir("readme")};
  const std::string cli = WB_CLI;
  const std::string small = " --set data.limit=4000 --set train.epochs=1";

  // What the README tells the reader to make first.
  ASSERT_EQ(sh.run(cli + " examples mlp > my.json"), 0);
  ASSERT_EQ(sh.run(cli + " examples cnn-prune-quantize > my-experiment.json"), 0);
  ASSERT_EQ(sh.run(cli + " examples mlp > exp.json"), 0);
  // optimizers.json: the sweep file the README shows.
  std::ofstream(sh.dir + "/optimizers.json")
      << R"({"name": "optimizers", "keys": {"optimizer.name": ["adam", "sgd", "adamw"], "optimizer.lr": [0.001, 0.01]}})";
  // ~/photos: the reader's own image folder (10 classes of garment pictures).
  wb::test::makeGarmentFolder(sh.dir + "/photos", 12);
  // RUN_DIR: a finished CNN (the README's compress line prunes its channels, then quantizes it).
  ASSERT_EQ(sh.run(cli + " train --quiet --set model.preset=cnn" + small), 0);
  const std::string run_dir = newestRun(sh.dir + "/runs");
  // The example folder of `resume`: a run stopped after its first checkpoint.
  const pid_t pid = wb::test::startCli("train --example mlp --set output.runs_dir=" + sh.dir + "/runs" +
                                           " --set train.checkpoint_every_steps=10 --set data.limit=20000",
                                       sh.dir + "/interrupted.log");
  for (int i = 0; i < 600; ++i) {
    bool checkpoint = false;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(sh.dir + "/runs", ec)) {
      if (e.path() != run_dir && fs::exists(e.path() / "checkpoints", ec) &&
          !fs::is_empty(e.path() / "checkpoints", ec)) {
        checkpoint = true;
      }
    }
    if (checkpoint) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const std::string interrupted = newestRun(sh.dir + "/runs");
  ASSERT_NE(interrupted, run_dir);

  int ran = 0;
  std::map<std::string, std::string> not_here;
  std::map<std::string, std::string> ran_at;  // a command already run -> where it was shown first
  std::vector<std::string> again;             // the same command shown again on another page: run once
  for (const ReadmeLine& l : lines) {
    const std::string why = whyNotHere(l.text);
    if (!why.empty()) {
      not_here[l.text] = why;
      continue;
    }
    std::istringstream words(l.text);
    std::string program, subcommand;
    words >> program >> subcommand;
    // The README's example run folder: the interrupted one for resume, the finished one elsewhere.
    const std::regex example_run("(^| )runs/[0-9]{8}-[0-9]{6}-[a-z0-9-]+");
    std::string command =
        std::regex_replace(l.text, example_run, "$1" + (subcommand == "resume" ? interrupted : run_dir));
    command = replaceAll(command, "build/cli/workbench-cli", cli);
    command = replaceAll(command, "RUN_DIR", run_dir);
    command = replaceAll(command, "~/photos", sh.dir + "/photos");
    // Shortened by --set only: the default experiment (15 epochs of the CNN on all the data) and the
    // examples. A finished run is compressed on its own (already short) data: it takes compress.* keys only.
    const bool of_run = command.find(run_dir) != std::string::npos;
    const bool trains =
        !of_run && (subcommand == "train" || subcommand == "compress" || subcommand == "find-lr" ||
                    subcommand == "find-batch" ||
                    (subcommand == "queue" && command.find(" queue add ") != std::string::npos) ||
                    (subcommand == "sweep" && command.find(" sweep start ") != std::string::npos));
    if (trains && command.find("data.limit") == std::string::npos &&
        command.find("--list") == std::string::npos) {
      command += small;
    }
    const std::string where = l.file + ":" + std::to_string(l.number);
    if (const auto first = ran_at.find(command); first != ran_at.end()) {
      again.push_back(where + " (as " + first->second + ")");
      continue;
    }
    ran_at[command] = where;
    std::string output;
    const int rc = sh.run(command, &output);
    ++ran;
    EXPECT_EQ(rc, 0) << where << ": " << l.text << "\nran: " << command << "\n" << output;
  }
  std::printf("    %d command lines ran (README.md and docs/*.md); shown again, run once:\n", ran);
  for (const std::string& line : again) std::printf("      %s\n", line.c_str());
  std::printf("    not here:\n");
  for (const auto& [line, why] : not_here) std::printf("      %s\n        (%s)\n", line.c_str(), why.c_str());
  // The lines left out are those of these kinds only, and few.
  EXPECT_LE(not_here.size(), 14u);
  for (const auto& [line, why] : not_here) EXPECT_NE(why, "not a workbench-cli line") << line;
  EXPECT_GE(ran, 35);  // 39 on the Debian build; fewer on one without Gloo and ONNX export (pip LibTorch)
  fs::remove_all(sh.dir);
}

}  // namespace
