#pragma once
// A command run through the shell (stderr joined to stdout by the caller's "2>&1"): "" when it exits 0,
// otherwise what it printed, for a test's failure message.

#include <cstdio>
#include <string>

namespace wb::test {

inline std::string failureOf(const std::string& command) {
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "cannot start " + command;
  std::string said;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) said += buffer;
  return ::pclose(pipe) == 0 ? std::string() : said;
}

}  // namespace wb::test
