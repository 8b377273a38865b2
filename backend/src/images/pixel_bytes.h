#pragma once
// The bytes of a decoded image. A loader worker decodes, resizes and crops thousands of images of a few
// sizes, each a block of 50 KB to a few MB that lives for a moment. From malloc such a block is often a fresh
// mapping (glibc maps blocks over its threshold on their own and unmaps them when freed): every page faults
// on first touch, and std::vector zero-fills bytes the decoder overwrites at once — together a tenth of a
// decode-only epoch. So the blocks come from a small cache per thread (the last few freed, reused while still
// mapped and in the cache) and the bytes are left uninitialized until written.

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace wb {

// A block of at least `bytes` (64-byte aligned): a cached one of about that size, or a new one.
void* takePixelBlock(size_t bytes);
// Back to this thread's cache (a few blocks at most; the others are freed).
void givePixelBlock(void* block) noexcept;

template <typename T>
struct PixelBlockAllocator {
  using value_type = T;
  PixelBlockAllocator() = default;
  template <typename U>
  PixelBlockAllocator(const PixelBlockAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(takePixelBlock(n * sizeof(T))); }
  void deallocate(T* p, size_t) noexcept { givePixelBlock(p); }
  // Default-initialized elements (no zero fill): each writer fills what it sizes.
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  bool operator==(const PixelBlockAllocator<U>&) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const PixelBlockAllocator<U>&) const noexcept {
    return false;
  }
};

// Sized with (n) the bytes are uninitialized; (n, value) fills them.
using PixelBytes = std::vector<uint8_t, PixelBlockAllocator<uint8_t>>;

}  // namespace wb
