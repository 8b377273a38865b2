#include "python_models.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "support/temporary_folder.h"

namespace wb::test {
namespace {

bool readCounts(PythonModels& models) {
  std::ifstream in(models.dir + "/counts.txt");
  std::string arch;
  int64_t count = 0;
  while (in >> arch >> count) models.parameterCounts[arch] = count;
  return models.parameterCounts.size() == 5;
}

// ctest runs every test in its own process: the models are made once per version of the script and kept
// beside the test program (in the build tree), so only the first process pays for starting Python.
PythonModels makePythonModels() {
  const std::string script = std::string(WB_SOURCE_DIR) + "/tests/fixtures/make_torchscript_model.py";
  std::ifstream scriptFile(script);
  const std::string scriptText((std::istreambuf_iterator<char>(scriptFile)),
                               std::istreambuf_iterator<char>());
  const size_t key = std::hash<std::string>()(scriptText + WB_PYTHON);
  const std::filesystem::path cacheDir = std::filesystem::read_symlink("/proc/self/exe").parent_path() /
                                         ("model_test_fixtures_" + std::to_string(key));

  PythonModels models;
  models.dir = cacheDir.string();
  if (readCounts(models)) return models;

  // Made in a private folder and renamed into place, so a concurrent test process never sees half of it.
  const std::string staging = models.dir + ".tmp." + std::to_string(::getpid());
  std::filesystem::remove_all(staging);
  const std::string command = std::string(WB_PYTHON) + " " + script + " " + staging +
                              " tiny_mlp mlp cnn resnet vit --input 1 28 28 --classes 10 > " + staging +
                              ".counts && mv " + staging + ".counts " + staging + "/counts.txt";
  if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
  std::error_code lostTheRace;
  std::filesystem::rename(staging, cacheDir, lostTheRace);
  if (lostTheRace) std::filesystem::remove_all(staging);
  models.parameterCounts.clear();
  if (!readCounts(models)) throw std::runtime_error("unexpected output of " + command);
  return models;
}

}  // namespace

std::string makeTempDir(const std::string& name) {
  return folderForThisTest("test-model-" + name);
}

const PythonModels& pythonModels() {
  static const PythonModels models = makePythonModels();
  return models;
}

}  // namespace wb::test
