// queryCpuFeatures and what they mean for bf16 (declared in workbench/system_info.h). CPUID says what the
// core implements; XGETBV says which register states the operating system saves: AVX-512 counts only with the
// opmask and ZMM states (XCR0 bits 5-7), AMX only with its tile states (bits 17-18), as LibTorch's cpuinfo
// and oneDNN decide.
#include <string>
#include <vector>

#include "workbench/system_info.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace wb {
namespace {

#if defined(__x86_64__) || defined(__i386__)
struct Regs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Regs cpuid(unsigned leaf, unsigned subleaf = 0) {
  Regs r;
  if (__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx) == 0) return {};
  return r;
}

unsigned long long xgetbv0() {
  unsigned eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}

bool bit(unsigned value, int n) {
  return ((value >> n) & 1u) != 0;
}

std::string brandString() {
  if (cpuid(0x80000000).eax < 0x80000004) return {};
  std::string brand;
  for (unsigned leaf = 0x80000002; leaf <= 0x80000004; ++leaf) {
    const Regs r = cpuid(leaf);
    for (unsigned word : {r.eax, r.ebx, r.ecx, r.edx}) {
      for (int i = 0; i < 4; ++i) brand += static_cast<char>((word >> (8 * i)) & 0xff);
    }
  }
  brand = brand.c_str();  // up to its terminating zero
  const size_t first = brand.find_first_not_of(' ');
  const size_t last = brand.find_last_not_of(' ');
  return first == std::string::npos ? std::string() : brand.substr(first, last - first + 1);
}
#endif

}  // namespace

CpuFeatures queryCpuFeatures() {
  CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  f.model = brandString();
  const Regs basic = cpuid(0);
  if (basic.eax < 1) return f;
  const Regs l1 = cpuid(1);
  const bool osxsave = bit(l1.ecx, 27);
  const unsigned long long xcr0 = osxsave ? xgetbv0() : 0;
  const bool ymm = (xcr0 & 0x6) == 0x6;            // SSE and AVX state
  const bool zmm = ymm && (xcr0 & 0xe0) == 0xe0;   // opmask, ZMM0-15 upper halves, ZMM16-31
  const bool tiles = (xcr0 & 0x60000) == 0x60000;  // XTILECFG and XTILEDATA
  f.fma = ymm && bit(l1.ecx, 12);
  if (basic.eax < 7) return f;
  const Regs l7 = cpuid(7, 0);
  const Regs l7s1 = cpuid(7, 1);
  f.avx2 = ymm && bit(l7.ebx, 5);
  f.avx512f = zmm && bit(l7.ebx, 16);
  f.avx512dq = zmm && bit(l7.ebx, 17);
  f.avx512bw = zmm && bit(l7.ebx, 30);
  f.avx512vl = zmm && bit(l7.ebx, 31);
  f.avx512_vnni = zmm && bit(l7.ecx, 11);
  f.avx_vnni = ymm && bit(l7s1.eax, 4);
  f.avx512_bf16 = zmm && bit(l7s1.eax, 5);
  f.amx_bf16 = tiles && bit(l7.edx, 22);
  f.amx_int8 = tiles && bit(l7.edx, 25);
#endif
  return f;
}

std::string describeCpuFeatures(const CpuFeatures& f) {
  std::vector<std::string> parts;
  if (f.avx2) parts.push_back("AVX2");
  if (f.fma) parts.push_back("FMA");
  if (f.avx512f) {
    std::string avx512 = "AVX-512 (F";
    if (f.avx512bw) avx512 += " BW";
    if (f.avx512vl) avx512 += " VL";
    if (f.avx512dq) avx512 += " DQ";
    parts.push_back(avx512 + ")");
  }
  if (f.avx512_vnni) parts.push_back("AVX512-VNNI");
  if (f.avx_vnni) parts.push_back("AVX-VNNI");
  if (f.avx512_bf16) parts.push_back("AVX512-BF16");
  if (f.amx_bf16) parts.push_back("AMX-BF16");
  if (f.amx_int8) parts.push_back("AMX-INT8");
  if (parts.empty()) return "none of AVX2, AVX-512, VNNI, BF16, AMX";
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

CpuBf16Cost cpuBf16Cost(const CpuFeatures& f) {
  CpuBf16Cost cost;
  if (f.avx512Core() && (f.avx512_bf16 || f.amx_bf16)) {
    cost.kind = CpuBf16::Native;
    cost.slower_than_fp32 = false;
    cost.summary = std::string("bf16 on this CPU: native (") + (f.amx_bf16 ? "AMX-BF16" : "AVX512-BF16") +
                   "): oneDNN multiplies in bf16; compare its speed with fp32 in `workbench-cli bench`";
  } else if (f.avx512Core()) {
    cost.kind = CpuBf16::Emulated;
    cost.slower_than_fp32 = false;
    cost.summary =
        "bf16 on this CPU: emulated by oneDNN with AVX-512 (no AVX512-BF16): about fp32's speed, "
        "half the activation memory";
  } else {
    cost.kind = CpuBf16::ReferenceKernels;
    cost.slower_than_fp32 = true;
    cost.summary =
        "bf16 on this CPU: no AVX-512, so LibTorch runs bf16 matrix products and convolutions on its "
        "reference loops, many times slower than fp32 (measured with LibTorch 1.13 on an AVX2 EPYC: 0.06x "
        "fp32's speed): "
        "train in fp32 here, or use bf16 on a GPU";
  }
  return cost;
}

}  // namespace wb
