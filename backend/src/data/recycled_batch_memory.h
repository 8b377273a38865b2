#pragma once
// The memory of a loader's float batches, handed back when the step lets go of a batch and handed out again
// for the next one. A batch of 64 images of 224 x 224 is 38 MB: fresh from the allocator it is a new mapping
// whose every page faults on first touch (glibc maps blocks this large on their own and unmaps them when
// freed), which cost about a quarter of the loader's time on small images. Recycled, its pages are already
// there.

#include <torch/torch.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace wb {

class RecycledBatchMemory : public std::enable_shared_from_this<RecycledBatchMemory> {
 public:
  // At most `kept` idle blocks are kept (those of the batches in flight are counted by the loader's queue).
  static std::shared_ptr<RecycledBatchMemory> create(size_t kept = 2);
  ~RecycledBatchMemory();
  RecycledBatchMemory(const RecycledBatchMemory&) = delete;
  RecycledBatchMemory& operator=(const RecycledBatchMemory&) = delete;

  // An uninitialized float32 CPU tensor of `sizes` whose memory comes back here when its last user drops it.
  torch::Tensor emptyFloat(at::IntArrayRef sizes);

  size_t idleBlocks() const;

 private:
  explicit RecycledBatchMemory(size_t kept) : m_kept(kept) {}
  void giveBack(void* block, size_t bytes);

  struct Block {
    void* data;
    size_t bytes;
  };
  mutable std::mutex m_mutex;
  std::vector<Block> m_idle;
  size_t m_kept;
};

}  // namespace wb
