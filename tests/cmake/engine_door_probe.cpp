// Compiled as a front end is (the CLI linking workbench_engine, the window workbench_gui_lib; see
// tests/CMakeLists.txt): the engine's public door must be on its include path, the engine's inside and
// LibTorch must not. __has_include asks the compiler itself, so the probe holds on any compiler.
#if !__has_include("workbench/experiment.h")
#error "a front end cannot see the engine's public headers (backend/include): link workbench_engine_api"
#endif
#if __has_include("train/rank_trainer.h")
#error "a front end sees the engine's inside (backend/src): only the engine and its tests may include it"
#endif
// <torch/torch.h> lives in LibTorch's own include folders (Debian: /usr/include/torch/csrc/api/include; pip:
// site-packages/torch/include/torch/csrc/api/include), which only the engine's targets get.
#if __has_include(<torch/torch.h>)
#error "a front end has LibTorch on its include path: the engine must link torch PRIVATE"
#endif

int engineDoorProbe() {
  return 0;
}
