#include "images/pixel_bytes.h"

#include <cstdlib>

namespace wb {
namespace {

// Each block carries its capacity in a header in front of it (a vector gives back the size it asked for, not
// the cached block's).
constexpr size_t kHeader = 64;
// Blocks below this malloc serves from its heap without faults; above the largest kept, caching is not worth
// it.
constexpr size_t kSmallest = 32 * 1024;
constexpr size_t kLargest = size_t{16} << 20;
constexpr int kKept = 4;

size_t& capacityOf(void* block) {
  return *reinterpret_cast<size_t*>(static_cast<char*>(block) - kHeader);
}

// A thread's idle blocks. A thread ending frees them; a block given back after that (a static's destructor)
// is freed at once.
struct IdlePixelBlocks {
  void* blocks[kKept] = {};
  int count = 0;
  ~IdlePixelBlocks();
};
thread_local bool pixel_blocks_gone = false;
thread_local IdlePixelBlocks idle_pixel_blocks;

void freeBlock(void* block) {
  std::free(static_cast<char*>(block) - kHeader);
}

IdlePixelBlocks::~IdlePixelBlocks() {
  for (int i = 0; i < count; ++i) freeBlock(blocks[i]);
  count = 0;
  pixel_blocks_gone = true;
}

}  // namespace

void* takePixelBlock(size_t bytes) {
  if (bytes >= kSmallest && !pixel_blocks_gone) {
    IdlePixelBlocks& idle = idle_pixel_blocks;
    // The smallest idle block that fits, unless it is more than twice the size (kept for the larger images).
    int best = -1;
    for (int i = 0; i < idle.count; ++i) {
      const size_t capacity = capacityOf(idle.blocks[i]);
      if (capacity >= bytes && capacity <= 2 * bytes &&
          (best < 0 || capacity < capacityOf(idle.blocks[best])))
        best = i;
    }
    if (best >= 0) {
      void* block = idle.blocks[best];
      idle.blocks[best] = idle.blocks[--idle.count];
      return block;
    }
  }
  const size_t rounded = (bytes + 63) / 64 * 64;
  void* raw = std::aligned_alloc(64, kHeader + rounded);
  if (raw == nullptr) throw std::bad_alloc();
  void* block = static_cast<char*>(raw) + kHeader;
  capacityOf(block) = rounded;
  return block;
}

void givePixelBlock(void* block) noexcept {
  if (block == nullptr) return;
  const size_t capacity = capacityOf(block);
  if (capacity < kSmallest || capacity > kLargest || pixel_blocks_gone) return freeBlock(block);
  IdlePixelBlocks& idle = idle_pixel_blocks;
  if (idle.count < kKept) {
    idle.blocks[idle.count++] = block;
    return;
  }
  // Full: the smallest of the idle blocks and this one is freed (the larger stay useful for every size).
  int smallest = 0;
  for (int i = 1; i < idle.count; ++i) {
    if (capacityOf(idle.blocks[i]) < capacityOf(idle.blocks[smallest])) smallest = i;
  }
  if (capacityOf(idle.blocks[smallest]) < capacity) std::swap(idle.blocks[smallest], block);
  freeBlock(block);
}

}  // namespace wb
