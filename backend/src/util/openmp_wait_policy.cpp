#include <unistd.h>

#include <cstdlib>

#include "workbench/system_info.h"

namespace wb {

void ensurePassiveOpenMpWait(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  ::execv("/proc/self/exe", argv);
  // execv only returns on failure: carry on with the default policy rather than not at all.
}

}  // namespace wb
