#include "data/recycled_batch_memory.h"

#include <cstdlib>
#include <new>

namespace wb {

namespace {
constexpr size_t kAlignment = 64;  // as LibTorch's CPU allocator aligns
}

std::shared_ptr<RecycledBatchMemory> RecycledBatchMemory::create(size_t kept) {
  return std::shared_ptr<RecycledBatchMemory>(new RecycledBatchMemory(kept));
}

RecycledBatchMemory::~RecycledBatchMemory() {
  for (const Block& block : m_idle) std::free(block.data);
}

torch::Tensor RecycledBatchMemory::emptyFloat(at::IntArrayRef sizes) {
  size_t bytes = sizeof(float);
  for (const int64_t size : sizes) bytes *= static_cast<size_t>(size);
  bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* block = nullptr;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (size_t i = 0; i < m_idle.size(); ++i) {
      if (m_idle[i].bytes == bytes) {
        block = m_idle[i].data;
        m_idle.erase(m_idle.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
  }
  if (block == nullptr) {
    block = std::aligned_alloc(kAlignment, bytes);
    if (block == nullptr) throw std::bad_alloc();
  }
  // The deleter holds the pool alive: a batch may outlive the loader that made it (a step still running).
  std::shared_ptr<RecycledBatchMemory> self = shared_from_this();
  return torch::from_blob(
      block, sizes, [self, bytes](void* data) { self->giveBack(data, bytes); },
      torch::TensorOptions().dtype(torch::kFloat32));
}

void RecycledBatchMemory::giveBack(void* block, size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_idle.size() < m_kept) {
      m_idle.push_back({block, bytes});
      return;
    }
  }
  std::free(block);
}

size_t RecycledBatchMemory::idleBlocks() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_idle.size();
}

}  // namespace wb
