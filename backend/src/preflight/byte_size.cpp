// parseByteSize and formatBytes (declared in workbench/finders.h): memory sizes as a user types and reads
// them.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "workbench/finders.h"

namespace wb {

int64_t parseByteSize(const std::string& text) {
  size_t pos = 0;
  while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  const size_t number_start = pos;
  while (pos < text.size() && (std::isdigit(static_cast<unsigned char>(text[pos])) || text[pos] == '.'))
    ++pos;
  if (pos == number_start) return -1;
  double value = 0;
  try {
    size_t used = 0;
    value = std::stod(text.substr(number_start, pos - number_start), &used);
    if (used != pos - number_start) return -1;
  } catch (const std::exception&) {
    return -1;
  }
  while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  std::string unit;
  for (; pos < text.size(); ++pos)
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[pos])));
  // K, M, G, T and KiB... are powers of 1024 (as free, top and ulimit read them); KB, MB, GB, TB are SI.
  double scale = 1;
  const std::string prefixes = "kmgt";
  if (unit.empty() || unit == "b") {
    scale = 1;
  } else {
    const size_t power = prefixes.find(unit[0]);
    if (power == std::string::npos) return -1;
    const std::string rest = unit.substr(1);
    if (rest.empty() || rest == "i" || rest == "ib") {
      scale = std::pow(1024.0, static_cast<double>(power + 1));
    } else if (rest == "b") {
      scale = std::pow(1000.0, static_cast<double>(power + 1));
    } else {
      return -1;
    }
  }
  const double bytes = value * scale;
  if (!std::isfinite(bytes) || bytes < 0 || bytes > 9.2e18) return -1;
  return static_cast<int64_t>(std::llround(bytes));
}

std::string formatBytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (std::abs(value) >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, value < 10 ? "%.2f %s" : (value < 100 ? "%.1f %s" : "%.0f %s"), value,
                  units[unit]);
  }
  return text;
}

}  // namespace wb
