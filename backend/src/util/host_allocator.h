#pragma once
// Host memory between training steps. glibc's malloc gives every thread but the main one an arena of its own,
// and a large block freed there goes straight back to the kernel (munmap, or the arena's heap shrunk); the
// next step maps it again and faults each page in. Training runs on a worker thread, so a ResNet step at
// batch 128 on the CPU spent more than half its time there (332 ms a step against 149 ms without; Python,
// training on the main thread, is spared by that arena's adaptive thresholds). Keeping freed blocks
// for reuse while a run lasts, as LibTorch's CUDA caching allocator does for device memory, and giving them
// back when it ends, removes that.

#include <string>

namespace wb {

// Process-wide and idempotent: blocks below 32 MiB come from the arenas, and up to 1 GiB of free memory at
// an arena's top stays mapped. Leaves glibc alone when the user tunes malloc themselves (MALLOC_*_ or
// glibc.malloc tunables in the environment) and on other C libraries. Returns a line for the run's log.
std::string keepFreedHostMemoryForReuse();

// Returns the free memory of every arena to the system (malloc_trim): at the end of a run, so an idle window
// does not keep the peak of the run it has just shown.
void releaseFreedHostMemory();

}  // namespace wb
