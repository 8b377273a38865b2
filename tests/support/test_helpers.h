#pragma once
// Small helpers several engine tests use; one copy here, so that a target's tests can be compiled merged
// (unity build) without two files defining the same name.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "workbench/errors.h"

namespace wb::test {

// Fashion-MNIST's image shape (channels, height, width).
inline const std::vector<int64_t> kFashionImage = {1, 28, 28};

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A whole file's bytes.
inline std::string readBytes(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("test: cannot read " + file);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// One of the installed Fashion-MNIST files, by name.
inline std::string fashionFile(const std::string& name) { return std::string(WB_FASHION_MNIST_DIR) + "/" + name; }

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
