#include "workbench/system_info.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
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

using OpenBlasGetConfig = char* (*)();
using OpenBlasGetThreads = int (*)();
using OpenBlasSetThreads = void (*)(int);

template <typename Fn>
Fn openBlasFunction(const char* name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_DEFAULT, name));
}

}  // namespace

int64_t coresAvailable() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int64_t>(n);
}

SystemInfo querySystemInfo() {
  SystemInfo info;
  info.torch_version = compat::torchVersion();
  const std::string path = blasLibraryPath();
  if (auto get_config = openBlasFunction<OpenBlasGetConfig>("openblas_get_config")) {
    info.blas = std::string("OpenBLAS (") + get_config() + ")";
  } else if (path.find("/blas/") != std::string::npos || path.find("libblas.so") != std::string::npos) {
    info.blas = "reference BLAS";
    info.blas_is_reference = true;
  } else if (!path.empty()) {
    info.blas = "unknown BLAS";
  } else {
    info.blas = "no BLAS found";
  }
  if (!path.empty()) info.blas += " at " + path;
  if (auto get_threads = openBlasFunction<OpenBlasGetThreads>("openblas_get_num_threads")) {
    info.blas_threads = get_threads();
  }
  info.intra_op_threads = at::get_num_threads();
  info.cuda_available = torch::cuda::is_available();

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
  if (info.blas_is_reference) {
    out << "\nWarning: the reference BLAS is ~35x slower than OpenBLAS for matrix products; install "
           "libopenblas0-pthread (apt-get install libopenblas0-pthread).";
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
