// What `workbench-cli info` says of NVML (workbench/nvml_inventory.h), against the scripted NVML
// (tests/support/fake_nvml.cpp) and without any: the driver, every GPU by NVML's index with its name, PCI bus
// id and memory, and the reason when NVML does not load.
#include "workbench/nvml_inventory.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "support/fake_nvml_script.h"

namespace wb {
namespace {

using test::FakeNvml;
using NvmlInventoryTest = test::FakeNvmlTest;

TEST_F(NvmlInventoryTest, ListsTheDriverAndEveryGpuByNvmlIndex) {
  FakeNvml& script = FakeNvml::get();
  script.set_device("00000000:3B:00.0", 0, 1ull << 30, 80ull << 30, 70000, 700000, 35, 1980, 0, 0);
  script.set_device("00000000:86:00.0", 0, 1ull << 30, 141ull << 30, 70000, 700000, 35, 1980, 0, 0);
  const NvmlInventory inventory = queryNvmlInventory();
  ASSERT_TRUE(inventory.loaded) << inventory.why_not;
  EXPECT_EQ(inventory.why_not, "");
  EXPECT_EQ(inventory.driver_version, "999.1.2");
  ASSERT_EQ(inventory.gpus.size(), 2u);
  EXPECT_EQ(inventory.gpus[1].index, 1u);
  EXPECT_EQ(inventory.gpus[1].name, "Fake GPU 1");
  EXPECT_EQ(inventory.gpus[1].pci_bus_id, "00000000:86:00.0");
  EXPECT_EQ(inventory.gpus[1].memory_total_bytes, 141ll << 30);
  const std::vector<std::string> lines = describeNvmlInventory(inventory);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "NVML: " + std::string(WB_FAKE_NVML) + ", driver 999.1.2, 2 GPUs");
  EXPECT_EQ(lines[1], "  0: Fake GPU 0 at PCI bus id 00000000:3B:00.0, 80.0 GiB");
  EXPECT_EQ(lines[2], "  1: Fake GPU 1 at PCI bus id 00000000:86:00.0, 141.0 GiB");
}

TEST_F(NvmlInventoryTest, WithoutTheLibraryItSaysWhyAndWhatIsLost) {
  setenv("WORKBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  const NvmlInventory inventory = queryNvmlInventory();
  EXPECT_FALSE(inventory.loaded);
  EXPECT_TRUE(inventory.gpus.empty());
  const std::vector<std::string> lines = describeNvmlInventory(inventory);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("NVML: not loaded (cannot load /nonexistent/libnvidia-ml.so.1", 0), 0u)
      << lines[0];
  EXPECT_NE(lines[0].find("no GPU utilization, power"), std::string::npos) << lines[0];
}

TEST_F(NvmlInventoryTest, ADriverNotLoadedIsTheReason) {
  FakeNvml::get().reset(9);
  const NvmlInventory inventory = queryNvmlInventory();
  EXPECT_FALSE(inventory.loaded);
  EXPECT_EQ(inventory.why_not, "nvmlInit_v2 failed: Driver Not Loaded");
}

TEST_F(NvmlInventoryTest, NoGpuIsSaidAsSuch) {
  const std::vector<std::string> lines = describeNvmlInventory(queryNvmlInventory());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "NVML: " + std::string(WB_FAKE_NVML) + ", driver 999.1.2, 0 GPUs");
}

}  // namespace
}  // namespace wb
