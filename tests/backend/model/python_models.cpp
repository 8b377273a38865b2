#include "python_models.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace wb::test {
namespace {

// Removes the temp folders at exit, so that a failing assertion does not leave them behind.
struct TempDirs {
  std::vector<std::filesystem::path> dirs;
  ~TempDirs() {
    for (const auto& dir : dirs) {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  }
};

TempDirs& tempDirs() {
  static TempDirs dirs;
  return dirs;
}

PythonModels makePythonModels() {
  PythonModels models;
  models.dir = makeTempDir("python_models");
  const std::string counts = models.dir + "/counts.txt";
  const std::string command = std::string(WB_PYTHON) + " " + WB_SOURCE_DIR +
                              "/tests/fixtures/make_torchscript_model.py " + models.dir +
                              " tiny_mlp mlp cnn resnet vit --input 1 28 28 --classes 10 > " + counts;
  if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
  std::ifstream in(counts);
  std::string arch;
  int64_t count = 0;
  while (in >> arch >> count) models.parameterCounts[arch] = count;
  if (models.parameterCounts.size() != 5) throw std::runtime_error("unexpected output of " + command);
  return models;
}

}  // namespace

std::string makeTempDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("wb_test_model_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  tempDirs().dirs.push_back(dir);
  return dir.string();
}

const PythonModels& pythonModels() {
  static const PythonModels models = makePythonModels();
  return models;
}

}  // namespace wb::test
