#pragma once
// The user's cache folder for what the loader works out once and keeps between runs (an image folder's
// statistics, a text file's tokens): $XDG_CACHE_HOME/torch-workbench, else ~/.cache/torch-workbench. Never
// the data folder itself: a user's data folder is read, never written (it may be read-only, shared, or under
// version control).

#include <cstdint>
#include <string>
#include <string_view>

namespace wb {

// Empty when there is neither $XDG_CACHE_HOME nor $HOME: the work is then done every time.
std::string userCacheFolder();

constexpr uint64_t kFnv1aStart = 1469598103934665603ULL;

// 64-bit FNV-1a of `bytes` continued from `hash`, closed with a separator so that ("ab", "c") and ("a", "bc")
// differ.
uint64_t fnv1a(uint64_t hash, std::string_view bytes);

// "00ab12..." (16 hex digits).
std::string hex16(uint64_t value);

}  // namespace wb
