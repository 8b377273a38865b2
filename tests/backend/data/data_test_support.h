#pragma once
// Helpers for the data module's tests: a temporary folder, byte-level file I/O and gzip through zlib (to
// make damaged copies of real files), running the reference Python, and checking DataError messages.

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>

#include "support/temporary_folder.h"
#include "support/test_helpers.h"
#include "workbench/errors.h"

namespace wb::test {

using TempDir = TemporaryFolder;

inline void writeBytes(const std::string& file, const std::string& bytes) {
  std::filesystem::create_directories(std::filesystem::path(file).parent_path());
  std::ofstream out(file, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("test: cannot write " + file);
}

// A gzip (not zlib) stream of `bytes`.
inline std::string gzipBytes(const std::string& bytes) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("test: deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, bytes.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) throw std::runtime_error("test: deflate failed");
  out.resize(stream.total_out);
  return out;
}

inline std::string gunzipFile(const std::string& file) {
  gzFile in = gzopen(file.c_str(), "rb");
  if (in == nullptr) throw std::runtime_error("test: cannot gzopen " + file);
  std::string out;
  char buffer[1 << 16];
  int got = 0;
  while ((got = gzread(in, buffer, sizeof(buffer))) > 0) out.append(buffer, static_cast<size_t>(got));
  gzclose(in);
  if (got < 0) throw std::runtime_error("test: gzread failed on " + file);
  return out;
}

// Runs the reference Python (Debian's, with numpy) on `script` and returns what it printed.
inline std::string runPython(const std::string& script, const TempDir& dir) {
  const std::string script_file = dir.file("reference.py");
  writeBytes(script_file, script);
  FILE* pipe = popen((std::string(WB_PYTHON) + " " + script_file).c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("test: cannot run " + std::string(WB_PYTHON));
  std::string output;
  char buffer[4096];
  size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, got);
  if (pclose(pipe) != 0) throw std::runtime_error("test: reference Python failed: " + output);
  return output;
}

// Expects `action` to throw DataError whose message contains every one of `parts`; returns the error's hint.
inline std::string expectDataError(const std::function<void()>& action,
                                   std::initializer_list<std::string> parts) {
  try {
    action();
  } catch (const DataError& error) {
    const std::string message = error.what();
    for (const auto& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "message: " << message << "\nmissing: " << part;
    }
    return error.hint();
  } catch (const std::exception& error) {
    ADD_FAILURE() << "expected DataError, got: " << error.what();
    return {};
  }
  ADD_FAILURE() << "expected DataError, nothing was thrown";
  return {};
}

}  // namespace wb::test
