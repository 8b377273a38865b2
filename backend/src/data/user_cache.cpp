#include "data/user_cache.h"

#include <cstdlib>
#include <iomanip>
#include <sstream>

namespace wb {

std::string userCacheFolder() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/torch-workbench";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/torch-workbench";
  return {};
}

uint64_t fnv1a(uint64_t hash, std::string_view bytes) {
  for (const unsigned char ch : bytes) hash = (hash ^ ch) * 1099511628211ULL;
  return (hash ^ 0xffU) * 1099511628211ULL;
}

std::string hex16(uint64_t value) {
  std::ostringstream text;
  text << std::hex << std::setw(16) << std::setfill('0') << value;
  return text.str();
}

}  // namespace wb
