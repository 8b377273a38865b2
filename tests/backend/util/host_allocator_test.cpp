// keepFreedHostMemoryForReuse: a block of several MiB allocated and freed on a worker thread (where training
// runs) comes from the arena instead of a fresh mmap each time.

#include "util/host_allocator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <thread>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace wb {
namespace {

#if defined(__SANITIZE_ADDRESS__)
#define WB_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WB_UNDER_ASAN 1
#endif
#endif

TEST(HostAllocatorTest, LargeBlocksOnAWorkerThreadAreNotMappedOneByOne) {
#if defined(WB_UNDER_ASAN)
  // AddressSanitizer replaces glibc's malloc: there are no glibc thresholds to set (scripts/sanitize.sh).
  GTEST_SKIP() << "under AddressSanitizer: " << keepFreedHostMemoryForReuse();
#elif defined(__GLIBC__)
  const std::string line = keepFreedHostMemoryForReuse();
  EXPECT_EQ(line, keepFreedHostMemoryForReuse()) << "idempotent";
  if (line.find("environment") != std::string::npos) GTEST_SKIP() << line;
  ASSERT_NE(line.find("kept for reuse"), std::string::npos) << line;
  std::thread worker([] {
    constexpr size_t kBlock = 8 << 20;  // an activation of a conv net at batch 128: far above glibc's default
    for (int i = 0; i < 3; ++i) {
      const size_t mapped_before = mallinfo2().hblks;
      auto block = std::make_unique<char[]>(kBlock);
      std::memset(block.get(), i, kBlock);
      EXPECT_EQ(mallinfo2().hblks, mapped_before) << "allocation " << i << " was mmapped on its own";
    }
  });
  worker.join();
  releaseFreedHostMemory();
#else
  GTEST_SKIP() << "glibc only";
#endif
}

}  // namespace
}  // namespace wb
