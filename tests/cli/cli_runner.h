#pragma once
// Running the workbench-cli binary as a user does: to completion (popen), or in the background to signal it.

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/temporary_folder.h"

namespace wb::test {

struct CliResult {
  int status = -1;
  std::string out;  // stdout only; stderr goes to err
  std::string err;
};

inline std::string readFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `prefix`, when given, runs in a shell first (limits such as `ulimit -f` for the CLI it then execs).
inline CliResult runCliAfter(const std::string& prefix, const std::string& args) {
  namespace fs = std::filesystem;
  const std::string err_file =
      (fs::temp_directory_path() / ("wb-cli-err-" + std::to_string(::getpid()))).string();
  const std::string cli = std::string(WB_CLI) + " " + args;
  const std::string cmd =
      (prefix.empty() ? cli : "sh -c \"" + prefix + " exec " + cli + "\"") + " 2>" + err_file;
  CliResult r;
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int raw = ::pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.err = readFile(err_file);
  fs::remove(err_file);
  return r;
}

inline CliResult runCli(const std::string& args) {
  return runCliAfter("", args);
}

// Starts the CLI in the background (its own pid: the shell execs it), output to out_file.
inline pid_t startCli(const std::string& args, const std::string& out_file) {
  const std::string cmd = "exec " + std::string(WB_CLI) + " " + args + " >" + out_file + " 2>&1";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

// A new empty folder, removed when the current test ends (support/temporary_folder.h).
inline std::string tempDir(const std::string& name) {
  return folderForThisTest("cli-" + name);
}

// The single run folder under `runs` ("" until it exists).
inline std::string onlyRunFolder(const std::string& runs) {
  if (!std::filesystem::exists(runs)) return {};
  for (const auto& entry : std::filesystem::directory_iterator(runs)) {
    if (entry.is_directory()) return entry.path().string();
  }
  return {};
}

}  // namespace wb::test
