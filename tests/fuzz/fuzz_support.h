#pragma once
// Helpers shared by the fuzz targets (tests/fuzz/fuzz_<name>.cpp). Each target defines
// LLVMFuzzerTestOneInput; built with -fsanitize=fuzzer it is a libFuzzer binary (scripts/fuzz.sh), built with
// replay_main.cpp it replays the corpus in ctest (label fuzz-replay). A target never exits: the engine's
// clear errors (wb::UserError, issues in a ParseResult) are normal outcomes; a broken promise calls fuzzFail
// (abort), which both libFuzzer and ctest report as a crash.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace wb::fuzz {

[[noreturn]] inline void fuzzFail(const std::string& what) {
  std::fprintf(stderr, "fuzz: broken promise: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// The input cut at each separator line "\n%%\n" (a text that JSON and the run files never hold on a line of
// its own), so that one corpus file can carry several files and stay readable.
inline std::vector<std::string> splitParts(const uint8_t* data, size_t size) {
  static const std::string separator = "\n%%\n";
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t at = text.find(separator, begin);
    if (at == std::string::npos) {
      parts.push_back(text.substr(begin));
      return parts;
    }
    parts.push_back(text.substr(begin, at - begin));
    begin = at + separator.size();
  }
}

// One scratch folder per process (libFuzzer runs the target in one process; -jobs uses several), removed at
// exit.
inline const std::filesystem::path& scratchDir() {
  struct Scratch {
    std::filesystem::path path;
    Scratch() {
      const char* tmp = std::getenv("TMPDIR");
      path = std::filesystem::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") /
             ("wb-fuzz-" + std::to_string(::getpid()));
      std::filesystem::create_directories(path);
    }
    ~Scratch() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static Scratch scratch;
  return scratch.path;
}

// The engine's clear errors carry a message; an empty one would leave the user with nothing to act on.
template <typename Error>
inline void expectMessage(const Error& error) {
  if (std::string(error.what()).empty()) fuzzFail("an error without a message");
}

inline void writeFile(const std::filesystem::path& file, const std::string& content) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) fuzzFail("cannot write the scratch file " + file.string());
}

}  // namespace wb::fuzz
