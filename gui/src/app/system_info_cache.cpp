#include "app/system_info_cache.h"

namespace wb::gui {

const SystemInfo& systemInfo() {
  static const SystemInfo info = querySystemInfo();
  return info;
}

}  // namespace wb::gui
