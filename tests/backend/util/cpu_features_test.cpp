// The CPU's extensions as the engine reads them (CPUID and XGETBV), against the kernel's own list in
// /proc/cpuinfo, and what they mean for bf16: native with AVX512-BF16 or AMX, emulated by oneDNN with
// AVX-512, LibTorch's reference loops (many times slower than fp32) without AVX-512.

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "workbench/system_info.h"

namespace wb {
namespace {

// The first processor's "flags" line of /proc/cpuinfo; empty where there is none.
std::set<std::string> kernelFlags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

TEST(CpuFeatures, AgreeWithTheKernelsFlags) {
  const std::set<std::string> flags = kernelFlags();
  if (flags.empty() || flags.count("fpu") == 0) GTEST_SKIP() << "no x86 flags in /proc/cpuinfo";
  const CpuFeatures cpu = queryCpuFeatures();
  // The kernel lists an extension only when it also saves its registers, as XGETBV tells us.
  EXPECT_EQ(cpu.avx2, flags.count("avx2") == 1);
  EXPECT_EQ(cpu.fma, flags.count("fma") == 1);
  EXPECT_EQ(cpu.avx512f, flags.count("avx512f") == 1);
  EXPECT_EQ(cpu.avx512bw, flags.count("avx512bw") == 1);
  EXPECT_EQ(cpu.avx512vl, flags.count("avx512vl") == 1);
  EXPECT_EQ(cpu.avx512dq, flags.count("avx512dq") == 1);
  EXPECT_EQ(cpu.avx512_vnni, flags.count("avx512_vnni") == 1);
  EXPECT_EQ(cpu.avx_vnni, flags.count("avx_vnni") == 1);
  EXPECT_EQ(cpu.avx512_bf16, flags.count("avx512_bf16") == 1);
  EXPECT_EQ(cpu.amx_bf16, flags.count("amx_bf16") == 1);
  EXPECT_EQ(cpu.amx_int8, flags.count("amx_int8") == 1);
  std::printf("    %s: %s\n", cpu.model.c_str(), describeCpuFeatures(cpu).c_str());
}

TEST(CpuFeatures, Bf16CostFollowsTheKernelsLibTorchPicks) {
  CpuFeatures avx2;
  avx2.avx2 = avx2.fma = true;
  const CpuBf16Cost slow = cpuBf16Cost(avx2);
  EXPECT_EQ(slow.kind, CpuBf16::ReferenceKernels);
  EXPECT_TRUE(slow.slower_than_fp32);
  EXPECT_NE(slow.summary.find("slower than fp32"), std::string::npos) << slow.summary;
  EXPECT_NE(slow.summary.find("fp32"), std::string::npos);

  CpuFeatures skylake = avx2;
  skylake.avx512f = skylake.avx512bw = skylake.avx512vl = skylake.avx512dq = skylake.avx512_vnni = true;
  EXPECT_EQ(cpuBf16Cost(skylake).kind, CpuBf16::Emulated);
  EXPECT_FALSE(cpuBf16Cost(skylake).slower_than_fp32);

  CpuFeatures cooper = skylake;
  cooper.avx512_bf16 = true;
  EXPECT_EQ(cpuBf16Cost(cooper).kind, CpuBf16::Native);
  EXPECT_NE(cpuBf16Cost(cooper).summary.find("AVX512-BF16"), std::string::npos);
  CpuFeatures sapphire = skylake;
  sapphire.amx_bf16 = sapphire.amx_int8 = true;
  EXPECT_NE(cpuBf16Cost(sapphire).summary.find("AMX-BF16"), std::string::npos);

  // AVX-512 F alone (no BW/VL/DQ, Knights Landing) is not what LibTorch sends bf16 to oneDNN for.
  CpuFeatures knights = avx2;
  knights.avx512f = true;
  EXPECT_EQ(cpuBf16Cost(knights).kind, CpuBf16::ReferenceKernels);

  EXPECT_EQ(describeCpuFeatures(CpuFeatures{}), "none of AVX2, AVX-512, VNNI, BF16, AMX");
  EXPECT_EQ(describeCpuFeatures(cooper), "AVX2, FMA, AVX-512 (F BW VL DQ), AVX512-VNNI, AVX512-BF16");
}

}  // namespace
}  // namespace wb
