#pragma once
// What the engine runs on: for logs, the CLI's header and the window's About box and device picker.

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

struct DeviceInfo {
  std::string id;    // "cpu", "cuda:0", ...
  std::string name;  // human-readable
  int64_t memory_bytes = 0;
  int64_t cores = 0;  // CPU only
};

// The x86 extensions that decide which kernels LibTorch, oneDNN, FBGEMM and ONNX Runtime run on this CPU,
// read once from CPUID (and XGETBV: an extension counts only when the operating system saves its registers).
// All false on other architectures.
struct CpuFeatures {
  std::string model;  // "AMD EPYC 7B13" (the CPUID brand string; empty when there is none)
  bool avx2 = false, fma = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false;
  bool avx512_vnni = false, avx_vnni = false;  // int8 dot products without 16-bit intermediates
  bool avx512_bf16 = false, amx_bf16 = false, amx_int8 = false;
  bool avx512Core() const { return avx512f && avx512bw && avx512vl && avx512dq; }
  bool vnni() const { return avx512_vnni || avx_vnni || amx_int8; }
};
CpuFeatures queryCpuFeatures();
// "AVX2, FMA, AVX-512 (F BW VL DQ), AVX512-VNNI, AVX512-BF16", or "none of AVX2, AVX-512, VNNI, BF16, AMX".
std::string describeCpuFeatures(const CpuFeatures& cpu);

// What train.amp "bf16" costs on this CPU. LibTorch sends bf16 matrix products and convolutions to oneDNN
// only on CPUs with AVX-512 (F, BW, VL, DQ); elsewhere they run on its portable reference loops, many times
// slower than fp32 through the BLAS (measured 0.06x fp32's speed on an AVX2 EPYC). With AVX-512 but no bf16
// instructions oneDNN converts to fp32 and back (about fp32's speed); AVX512-BF16 or AMX compute in bf16.
enum class CpuBf16 { Native, Emulated, ReferenceKernels };
struct CpuBf16Cost {
  CpuBf16 kind = CpuBf16::ReferenceKernels;
  std::string summary;           // one line for the log, `check`, `info` and the window's AMP field
  bool slower_than_fp32 = true;  // a user toggling bf16 to go faster should be told
};
CpuBf16Cost cpuBf16Cost(const CpuFeatures& cpu);

struct SystemInfo {
  std::string torch_version;
  std::string blas;  // the BLAS library LibTorch's matmuls end up in, e.g. "OpenBLAS 0.3.21 (pthreads)"
  bool blas_is_reference = false;
  int64_t intra_op_threads = 0;
  int64_t blas_threads = 0;
  bool cuda_available = false;
  std::vector<DeviceInfo> devices;
  CpuFeatures cpu;
};

SystemInfo querySystemInfo();
std::string describe(const SystemInfo& info);

// The versions of everything the engine runs on, for `--version` and Help ▸ About. Read from the libraries
// loaded in this process (what runs, not what was compiled against); needs no display and initializes no GPU.
// A CUDA field is empty when this LibTorch has no CUDA (or the library is not loaded).
struct VersionInfo {
  std::string workbench;  // the project's version, "0.1.0"
  std::string torch;      // LibTorch, "1.13.0"
  std::string blas;  // "OpenBLAS 0.3.21 (pthreads, Haswell)", "reference BLAS 3.11.0", "Intel MKL 2024.2"
  std::string blas_library;  // the file that provides sgemm_, when it is a library of its own
  bool blas_is_reference = false;
  std::string cuda_runtime;     // "12.1"
  std::string cuda_driver;      // the newest CUDA the installed driver supports, "12.4"
  std::string cudnn;            // "8.9.2"
  std::string nccl;             // "2.18.1"
  bool cuda_available = false;  // a CUDA device can be used
};

VersionInfo queryVersions();
// One component a line: "workbench-cli 0.1.0", "LibTorch 1.13.0", "BLAS: ...", "CUDA: ..."; `program` names
// the first line.
std::string describeVersions(const VersionInfo& versions, const std::string& program);

// Chooses thread counts for this thread's intra-op pool and for BLAS so they do not oversubscribe the cores;
// `requested` 0 means one per core (train.threads); `blas_requested` 0 means as many OpenBLAS threads as
// intra-op threads (train.blas_threads overrides it). Returns a line that says what was chosen and why.
std::string configureThreads(int64_t requested, int64_t blas_requested = 0);
// The cores this process may use (at least 1).
int64_t coresAvailable();

}  // namespace wb

namespace wb {

// LibTorch's OpenMP workers spin while they wait for work; beside OpenBLAS's own threads, and on a machine
// with other load, that spinning makes a training step several times slower (measured here: MLP step 101 ms
// spinning, 6 ms passive). libgomp reads OMP_WAIT_POLICY only when it loads, before main(), so a front end
// calls this first thing: when the variable is unset it sets it to PASSIVE and re-executes the program.
// Returns only if no re-execution was needed (or it failed). An OMP_WAIT_POLICY set by the user is kept.
void ensurePassiveOpenMpWait(char** argv);

}  // namespace wb
