#pragma once
// The scripted NVML (tests/support/fake_nvml.cpp) as the tests drive it: its script reached through the same
// library the engine loads (dlopen of it returns the engine's handle), and a fixture that has the engine load
// it (WORKBENCH_NVML_LIBRARY) with no device, for the GPU sampler's tests and the NVML inventory's.

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace wb::test {

struct FakeNvml {
  void (*reset)(int);
  void (*set_device)(const char*, unsigned, unsigned long long, unsigned long long, int, unsigned, unsigned,
                     unsigned, unsigned long long, int);
  int (*initialized)();
  long (*utilization_reads)();

  static FakeNvml& get() {
    static FakeNvml fake = [] {
      void* handle = dlopen(WB_FAKE_NVML, RTLD_NOW | RTLD_LOCAL);  // kept open: the script outlives each load
      EXPECT_NE(handle, nullptr) << dlerror();
      FakeNvml f{};
      f.reset = reinterpret_cast<decltype(f.reset)>(dlsym(handle, "fake_nvml_reset"));
      f.set_device = reinterpret_cast<decltype(f.set_device)>(dlsym(handle, "fake_nvml_set_device"));
      f.initialized = reinterpret_cast<decltype(f.initialized)>(dlsym(handle, "fake_nvml_initialized"));
      f.utilization_reads =
          reinterpret_cast<decltype(f.utilization_reads)>(dlsym(handle, "fake_nvml_utilization_reads"));
      return f;
    }();
    return fake;
  }
  // A device with everyday figures but `utilization` and `power_mw`.
  void device(const char* bus_id, unsigned utilization, int power_mw = 312000, int lost = 0) {
    set_device(bus_id, utilization, 30ull << 30, 80ull << 30, power_mw, 400000, 71, 1980, 0x4 | 0x40, lost);
  }
};

// The engine loads the fake, which starts each test with no device and nvmlInit_v2 succeeding.
class FakeNvmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("WORKBENCH_NVML_LIBRARY", WB_FAKE_NVML, 1);
    FakeNvml::get().reset(0);
  }
  void TearDown() override { unsetenv("WORKBENCH_NVML_LIBRARY"); }
};

}  // namespace wb::test
