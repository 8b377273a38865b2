#pragma once
// Files that are either the old version or the new one, never half of each: write to a temporary file in the
// same folder, flush it to disk, rename it over the target, then flush the folder.

#include <functional>
#include <string>

namespace wb {

void writeFileAtomically(const std::string& path, const std::string& contents);
// For writers that need a path (torch's archives): `write` fills the temporary path it is given.
void writeFileAtomically(const std::string& path, const std::function<void(const std::string& tmp)>& write);

}  // namespace wb
