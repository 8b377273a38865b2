#include "util/host_allocator.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

extern char** environ;

namespace wb {

namespace {

constexpr int kMmapThreshold = 32 << 20;  // glibc's ceiling for it on 64-bit (half its 64 MiB arena heaps)
constexpr int kTrimThreshold = 1 << 30;

bool userTunesMalloc() {
  for (char** entry = environ; entry && *entry; ++entry) {
    if (std::strncmp(*entry, "MALLOC_", 7) == 0) return true;
    if (std::strncmp(*entry, "GLIBC_TUNABLES=", 15) == 0 && std::strstr(*entry, "glibc.malloc.")) return true;
  }
  return false;
}

}  // namespace

std::string keepFreedHostMemoryForReuse() {
#if defined(__GLIBC__)
  static std::once_flag once;
  static std::string line;
  std::call_once(once, [] {
    if (userTunesMalloc()) {
      line = "Host memory: malloc as tuned in the environment (MALLOC_* / GLIBC_TUNABLES)";
      return;
    }
    // Setting either threshold also turns off glibc's adaptive adjustment of both.
    const bool ok =
        mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 && mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
    line =
        ok ? "Host memory: freed blocks kept for reuse during the run (malloc mmap threshold 32 MiB, trim "
             "threshold 1 GiB), returned when it ends"
           : "Host memory: glibc refused the malloc thresholds; freed blocks go back to the system at once";
  });
  return line;
#else
  return "Host memory: the C library's default malloc";
#endif
}

void releaseFreedHostMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace wb
