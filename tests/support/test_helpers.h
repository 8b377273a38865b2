#pragma once
// Small helpers several engine tests use; one copy here, so that a target's tests can be compiled merged
// (unity build) without two files defining the same name.

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "workbench/errors.h"

// CPU ranks train through c10d's Gloo process group, which a LibTorch has only with gloo's headers beside it
// (Debian: libgloo-dev; pip's torch wheel ships none). Tests of CPU data parallel skip with this reason
// there, and tests/CMakeLists.txt gives them a ctest entry of their own, so ctest reports them skipped and
// the rest passed.
#define WB_NO_GLOO_REASON                                                                                 \
  "this LibTorch has no Gloo (pip's torch wheel ships no gloo headers), so CPU ranks cannot train here; " \
  "the "                                                                                                  \
  "Debian build (LibTorch 1.13 with libgloo-dev) tests data parallel on CPUs"

namespace wb::test {

// Fashion-MNIST's image shape (channels, height, width).
inline const std::vector<int64_t> kFashionImage = {1, 28, 28};

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A whole file's bytes.
inline std::string readBytes(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("test: cannot read " + file);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// One of the installed Fashion-MNIST files, by name.
inline std::string fashionFile(const std::string& name) {
  return std::string(WB_FASHION_MNIST_DIR) + "/" + name;
}

// A fixture of tests/fixtures/ (made by python3-torch), parsed.
inline nlohmann::json loadFixture(const std::string& file) {
  const std::string path = std::string(WB_SOURCE_DIR) + "/tests/fixtures/" + file;
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot open " << path;
    return {};
  }
  return nlohmann::json::parse(in);
}

// The message of the UserError `action` throws, or "(no UserError)".
inline std::string userErrorOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const UserError& error) {
    return error.what();
  }
  return "(no UserError)";
}

}  // namespace wb::test
