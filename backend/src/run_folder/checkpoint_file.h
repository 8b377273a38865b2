#pragma once
// One checkpoint on disk: a small header that can be read alone (what, when, where in the data), then the
// tensors (a torch archive), then a CRC-32 of everything before it. Layout, little-endian:
//   "WBCKPT01" | u64 meta length | meta (JSON text) | u64 payload length | payload | u32 CRC-32 of all before
// Written atomically (temporary file, fsync, rename; every step checked, a failure throws FileWriteError and
// leaves no temporary file). A file that is short, has another magic, or whose CRC
// does not match is CorruptCheckpoint: the loader then falls back to the previous checkpoint.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace wb {

class CorruptCheckpoint : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CheckpointContents {
  nlohmann::json meta;
  std::string payload;
};

// What a file written by writeCheckpointFile is, for another file's header to name it: its length and the
// CRC-32 in its last four bytes.
struct CheckpointFileCheck {
  uint64_t bytes = 0;
  uint32_t crc32 = 0;
};

CheckpointFileCheck writeCheckpointFile(const std::string& path, const nlohmann::json& meta,
                                        const std::string& payload);
// The header alone (no checksum check: for listing and pruning).
nlohmann::json readCheckpointMeta(const std::string& path);
// Everything, checksum verified; with `expected`, also that the file is the one another header names.
CheckpointContents readCheckpointFile(const std::string& path, const CheckpointFileCheck* expected = nullptr);
// The file is `expected` (its length and stored CRC) and its checksum holds, read in pieces so a large file
// is never in memory whole; CorruptCheckpoint naming `path` otherwise.
void verifyCheckpointFile(const std::string& path, const CheckpointFileCheck& expected);

}  // namespace wb
