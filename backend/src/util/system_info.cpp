#include "workbench/system_info.h"

#include <ATen/Version.h>
#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "torch_compat.h"

namespace wb {
namespace {

// Debian's LibTorch calls whatever libblas.so.3 the alternatives system points at; ask the dynamic linker
// which library actually provides sgemm_, and OpenBLAS for its configuration when it is that.
std::string blasLibraryPath() {
  void* symbol = ::dlsym(RTLD_DEFAULT, "sgemm_");
  if (!symbol) return {};
  Dl_info info{};
  if (::dladdr(symbol, &info) == 0 || !info.dli_fname) return {};
  char resolved[PATH_MAX];
  if (::realpath(info.dli_fname, resolved)) return resolved;
  return info.dli_fname;
}

// A function of the library that provides sgemm_ (or of the libraries it loads), by name; nullptr when it has
// none. Not RTLD_DEFAULT: another BLAS can be loaded beside it (Debian's LAPACK pulls in libopenblas.so.0
// even when libblas.so.3 is the reference BLAS), and its functions would describe a library that multiplies
// nothing.
void* blasLibraryHandle() {
  static void* const handle = [] {
    void* symbol = ::dlsym(RTLD_DEFAULT, "sgemm_");
    Dl_info info{};
    if (!symbol || ::dladdr(symbol, &info) == 0 || !info.dli_fname) return static_cast<void*>(nullptr);
    return ::dlopen(info.dli_fname,
                    RTLD_LAZY | RTLD_NOLOAD);  // kept open: the process keeps the library anyway
  }();
  return handle;
}

template <typename Fn>
Fn blasFunction(const char* name) {
  void* handle = blasLibraryHandle();
  return handle ? reinterpret_cast<Fn>(::dlsym(handle, name)) : nullptr;
}

using OpenBlasGetConfig = char* (*)();
using OpenBlasGetThreads = int (*)();
using OpenBlasSetThreads = void (*)(int);

template <typename Fn>
Fn openBlasFunction(const char* name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_DEFAULT, name));
}

// A function of a library loaded in this process, by name: how the versions below are read without the
// libraries' headers, the same way against LibTorch 1.13 and 2.x, with CUDA or without.
template <typename Fn>
Fn loadedFunction(const char* name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_DEFAULT, name));
}

// The words of OpenBLAS's configuration ("OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ... Haswell
// MAX_THREADS=64") that matter to a user: its version, its threading and the kernels chosen for this CPU.
std::string openBlasName(const std::string& config) {
  std::istringstream words(config);
  std::string name, version;
  words >> name >> version;
  std::string out = "OpenBLAS" + (version.empty() ? std::string() : " " + version);
  std::string details;
  if (auto parallel = blasFunction<int (*)()>("openblas_get_parallel")) {
    const int kind = parallel();
    details = kind == 0 ? "sequential" : kind == 2 ? "OpenMP" : "pthreads";
  }
  if (auto corename = blasFunction<char* (*)()>("openblas_get_corename")) {
    const std::string core = corename();
    if (!core.empty()) details += (details.empty() ? "" : ", ") + core;
  }
  return details.empty() ? out : out + " (" + details + ")";
}

// One line of at::show_config() that starts with `prefix` (after its "  - "), without the prefix; "" when
// none.
std::string configLine(const std::string& config, const std::string& prefix) {
  std::istringstream lines(config);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t start = line.find_first_not_of(" -");
    if (start != std::string::npos && line.compare(start, prefix.size(), prefix) == 0) {
      return line.substr(start + prefix.size());
    }
  }
  return {};
}

struct BlasDescription {
  std::string name;
  std::string library;
  bool is_reference = false;
};

BlasDescription describeBlas() {
  BlasDescription blas;
  blas.library = blasLibraryPath();
  const std::string file = std::filesystem::path(blas.library).filename().string();
  if (auto get_config = blasFunction<OpenBlasGetConfig>("openblas_get_config")) {
    blas.name = openBlasName(get_config());
  } else if (auto blis_version = blasFunction<const char* (*)()>("bli_info_get_version_str")) {
    blas.name = std::string("BLIS ") + blis_version();
  } else if (file.find("mkl") != std::string::npos || file.find("libtorch") != std::string::npos ||
             blas.library.empty()) {
    // pip's LibTorch links Intel MKL into libtorch_cpu itself; its build configuration names the version.
    const std::string config = at::show_config();
    const std::string mkl = configLine(config, "Intel(R) oneAPI Math Kernel Library Version ");
    const std::string old_mkl = configLine(config, "Intel(R) Math Kernel Library Version ");
    if (!mkl.empty() || !old_mkl.empty()) {
      const std::string version = mkl.empty() ? old_mkl : mkl;
      blas.name = "Intel MKL " + version.substr(0, version.find_first_of(" -"));
    } else {
      blas.name = blas.library.empty() ? "no BLAS found" : "unknown BLAS (" + file + ")";
    }
  } else if (blas.library.find("/blas/") != std::string::npos || file.rfind("libblas.so", 0) == 0) {
    // Debian's reference BLAS (netlib): its version is in the file name, libblas.so.3.11.0.
    const std::string prefix = "libblas.so.";
    blas.name =
        "reference BLAS" + (file.rfind(prefix, 0) == 0 ? " " + file.substr(prefix.size()) : std::string());
    blas.is_reference = true;
  } else {
    blas.name = "unknown BLAS (" + file + ")";
  }
  return blas;
}

// NVIDIA's version numbers: CUDA 12010 = 12.1; cuDNN 8902 = 8.9.2 and, from 9, 90100 = 9.1.0; NCCL 2708
// = 2.7.8 and, from 2.9, 21803 = 2.18.3.
std::string cudaVersionText(int code) {
  return std::to_string(code / 1000) + "." + std::to_string((code % 1000) / 10);
}
std::string threePartVersion(long code, long major_unit) {
  const long minor_unit = 100;
  return std::to_string(code / major_unit) + "." + std::to_string((code % major_unit) / minor_unit) + "." +
         std::to_string(code % minor_unit);
}

}  // namespace

int64_t coresAvailable() {
  // The cores this process may run on: a queue slot's share of them, taskset's, a container's cpuset.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int64_t>(n);
}

SystemInfo querySystemInfo() {
  SystemInfo info;
  info.torch_version = compat::torchVersion();
  const BlasDescription blas = describeBlas();
  info.blas = blas.name;
  info.blas_is_reference = blas.is_reference;
  if (!blas.library.empty()) info.blas += " at " + blas.library;
  if (auto get_threads = blasFunction<OpenBlasGetThreads>("openblas_get_num_threads")) {
    info.blas_threads = get_threads();
  }
  info.intra_op_threads = at::get_num_threads();
  info.cuda_available = torch::cuda::is_available();
  info.cpu = queryCpuFeatures();

  DeviceInfo cpu;
  cpu.id = "cpu";
  cpu.cores = coresAvailable();
  cpu.memory_bytes = static_cast<int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
  cpu.name = "CPU (" + std::to_string(cpu.cores) + " threads)";
  info.devices.push_back(cpu);
  if (info.cuda_available) {
    const int64_t count = static_cast<int64_t>(torch::cuda::device_count());
    for (int64_t i = 0; i < count; ++i) {
      DeviceInfo gpu;
      gpu.id = "cuda:" + std::to_string(i);
      gpu.name = compat::cudaDeviceName(i);
      gpu.memory_bytes = compat::cudaDeviceMemory(i);
      info.devices.push_back(gpu);
    }
  }
  return info;
}

std::string describe(const SystemInfo& info) {
  std::ostringstream out;
  out << "LibTorch " << info.torch_version << "; BLAS: " << info.blas << "; threads: intra-op "
      << info.intra_op_threads;
  if (info.blas_threads > 0) out << ", BLAS " << info.blas_threads;
  out << "; devices:";
  for (const auto& d : info.devices) out << " " << d.id << " [" << d.name << "]";
  out << "\nCPU: " << (info.cpu.model.empty() ? std::string("unnamed") : info.cpu.model) << " ("
      << describeCpuFeatures(info.cpu) << ")";
  if (info.blas_is_reference) {
    out << "\nWarning: the reference BLAS is ~35x slower than OpenBLAS for matrix products; install "
           "libopenblas0-pthread (apt-get install libopenblas0-pthread).";
  }
  return out.str();
}

VersionInfo queryVersions() {
  VersionInfo v;
#ifdef WB_PROJECT_VERSION
  v.workbench = WB_PROJECT_VERSION;
#endif
  v.torch = compat::torchVersion();
  const BlasDescription blas = describeBlas();
  v.blas = blas.name;
  v.blas_library = blas.library;
  v.blas_is_reference = blas.is_reference;
  if (auto runtime = loadedFunction<int (*)(int*)>("cudaRuntimeGetVersion")) {
    int code = 0;
    if (runtime(&code) == 0 && code > 0) v.cuda_runtime = cudaVersionText(code);
    if (auto driver = loadedFunction<int (*)(int*)>("cudaDriverGetVersion")) {
      code = 0;
      if (driver(&code) == 0 && code > 0) v.cuda_driver = cudaVersionText(code);
    }
  }
  if (auto cudnn = loadedFunction<size_t (*)()>("cudnnGetVersion")) {
    const long code = static_cast<long>(cudnn());
    if (code > 0) v.cudnn = threePartVersion(code, code >= 10000 ? 10000 : 1000);
  }
  if (auto nccl = loadedFunction<int (*)(int*)>("ncclGetVersion")) {
    int code = 0;
    if (nccl(&code) == 0 && code > 0) v.nccl = threePartVersion(code, code >= 10000 ? 10000 : 1000);
  }
  if (v.cuda_runtime.empty() || v.cudnn.empty()) {
    // Libraries linked into LibTorch (or loaded privately) are not visible by name: the versions LibTorch was
    // built with, from its own configuration, stand in for them.
    const std::string config = at::show_config();
    if (v.cuda_runtime.empty()) v.cuda_runtime = configLine(config, "CUDA Runtime ");
    if (v.cudnn.empty()) v.cudnn = configLine(config, "CuDNN ");
  }
  v.cuda_available = torch::cuda::is_available();
  return v;
}

std::string describeVersions(const VersionInfo& v, const std::string& program) {
  std::ostringstream out;
  out << program << " " << (v.workbench.empty() ? "(unknown version)" : v.workbench) << "\n";
  out << "LibTorch " << v.torch << "\n";
  out << "BLAS: " << v.blas;
  if (!v.blas_library.empty()) out << " (" << v.blas_library << ")";
  if (v.blas_is_reference) out << " -- slow: install libopenblas0-pthread";
  out << "\n";
  if (v.cuda_runtime.empty()) {
    out << "CUDA: none (this LibTorch is built for the CPU)\n";
  } else {
    out << "CUDA: runtime " << v.cuda_runtime;
    if (!v.cuda_driver.empty()) out << ", driver supports " << v.cuda_driver;
    out << (v.cuda_available ? "" : "; no usable CUDA device") << "\n";
    out << "cuDNN: " << (v.cudnn.empty() ? "not found" : v.cudnn) << "\n";
    out << "NCCL: " << (v.nccl.empty() ? "not found" : v.nccl) << "\n";
  }
  return out.str();
}

std::string configureThreads(int64_t requested, int64_t blas_requested) {
  const int64_t cores = coresAvailable();
  const int64_t threads = requested > 0 ? requested : cores;
  at::set_num_threads(static_cast<int>(threads));
  // Torch's OpenMP workers and OpenBLAS's pthreads would otherwise each spawn one thread per core and fight
  // for them; matrix products run from the training thread, outside Torch's parallel regions, so by default
  // OpenBLAS gets the same count and the two pools take turns rather than oversubscribe.
  // train.blas_threads overrides that count.
  int64_t blas_threads = 0;
  const auto set_threads = openBlasFunction<OpenBlasSetThreads>("openblas_set_num_threads");
  const bool have_openblas = set_threads != nullptr;
  if (have_openblas) {
    set_threads(static_cast<int>(blas_requested > 0 ? blas_requested : threads));
    if (auto get_threads = openBlasFunction<OpenBlasGetThreads>("openblas_get_num_threads")) {
      blas_threads = get_threads();
    }
  }
  std::ostringstream out;
  out << "Threads: " << at::get_num_threads() << " intra-op ("
      << (requested > 0 ? "train.threads" : "one per core") << ", " << cores << " cores)";
  if (blas_threads > 0) {
    out << ", " << blas_threads << " OpenBLAS ("
        << (blas_requested > 0 ? "train.blas_threads" : "as many as intra-op") << ")";
  }
  if (blas_requested > 0 && !have_openblas) out << "; train.blas_threads ignored: the BLAS is not OpenBLAS";
  if (blas_requested > cores) out << "; more BLAS threads than cores oversubscribes them";
  return out.str();
}

}  // namespace wb
