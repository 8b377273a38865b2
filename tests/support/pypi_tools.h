#pragma once
// The tests' independent readers from PyPI (onnxruntime, tensorboard, safetensors), in the virtual
// environment .venv/ that scripts/setup.sh makes from scripts/requirements-test.txt. The README's test
// command installs them, so a test that needs them and finds none fails, saying how to get them; it never
// skips.
//
// WB_TEST_CPU_EMULATOR (environment), e.g. "qemu-x86_64 -cpu EPYC-Rome", runs each Python tool under that
// emulator: the test_export_avx2 ctest entry runs the int8 tests and ONNX Runtime on an emulated AVX2 CPU.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace wb::test {

inline std::string venvPython() {
  return std::string(WB_SOURCE_DIR) + "/.venv/bin/python";
}

// "" when the environment is there; otherwise the failure message.
inline std::string pypiToolsMissing() {
  if (std::filesystem::exists(venvPython())) return {};
  return "the tests' Python environment " + venvPython() +
         " is missing: scripts/setup.sh makes it (python3 -m venv .venv && .venv/bin/pip install -r "
         "scripts/requirements-test.txt); the README's test command runs it";
}

#define ASSERT_PYPI_TOOLS() ASSERT_EQ(::wb::test::pypiToolsMissing(), "")

// The command line that runs tests/python/<script> with the environment's Python (under the emulator when
// WB_TEST_CPU_EMULATOR is set).
inline std::string pypiToolCommand(const std::string& script) {
  const char* emulator = std::getenv("WB_TEST_CPU_EMULATOR");
  const std::string prefix = emulator != nullptr && *emulator != '\0' ? std::string(emulator) + " " : "";
  return prefix + venvPython() + " " + WB_SOURCE_DIR + "/tests/python/" + script;
}

}  // namespace wb::test
