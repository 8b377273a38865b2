#pragma once
// The reference models written in Python (tests/fixtures/make_torchscript_model.py), made once per test run:
// the presets rebuilt in plain PyTorch, and a tiny MLP, all for 1x28x28 inputs and 10 classes.

#include <cstdint>
#include <map>
#include <string>

namespace wb::test {

struct PythonModels {
  std::string dir;  // holds ARCH.pt for tiny_mlp, mlp, cnn, resnet, vit
  std::map<std::string, int64_t>
      parameterCounts;  // as counted by PyTorch: sum(p.numel() for p in parameters())
  std::string path(const std::string& arch) const { return dir + "/" + arch + ".pt"; }
};

// Runs the script on the first call (a few seconds: one Python start), or reuses what an earlier test process
// made with the same script; throws (failing the calling test) if it cannot.
const PythonModels& pythonModels();

// A fresh folder under the system's temp folder, removed when the test program exits.
std::string makeTempDir(const std::string& name);

}  // namespace wb::test
