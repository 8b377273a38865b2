#include "util/process_stats.h"

#include <unistd.h>

#include <cstdio>

namespace wb {

int64_t currentRssBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  long long pages_total = 0, pages_resident = 0;
  const int read = std::fscanf(f, "%lld %lld", &pages_total, &pages_resident);
  std::fclose(f);
  if (read != 2) return 0;
  return static_cast<int64_t>(pages_resident) * static_cast<int64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace wb
