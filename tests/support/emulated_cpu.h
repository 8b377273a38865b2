#pragma once
// The ctest entries that run a test executable on an emulated CPU (qemu-user, `ctest -L emulated-cpu`) set
// WB_TEST_EXPECT_CPU; a test that must see that CPU checks it, or it would test the host's fast path twice.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "workbench/system_info.h"

namespace wb::test {

// "avx2": AVX2 without AVX-512 or VNNI (qemu's EPYC-Rome model).
inline void expectTheCpuTheEntryPromises() {
  const char* expected = std::getenv("WB_TEST_EXPECT_CPU");
  if (expected == nullptr || std::string(expected) != "avx2") return;
  const CpuFeatures cpu = queryCpuFeatures();
  EXPECT_TRUE(cpu.avx2) << describeCpuFeatures(cpu);
  EXPECT_FALSE(cpu.avx512f) << describeCpuFeatures(cpu);
  EXPECT_FALSE(cpu.vnni()) << describeCpuFeatures(cpu);
}

}  // namespace wb::test
