#pragma once
// c10d's process groups, each in its own translation unit: Gloo's headers need libgloo-dev (Debian) and
// NCCL's need a CUDA build of LibTorch, so each is compiled only where its build has it.

#include <chrono>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "torch_compat.h"

namespace wb {

// The environment NCCL's process group reads when it is made (blocking waits that throw on a timeout, no
// process teardown), set once per process where the user did not set it. Called before any rank thread
// starts: setenv beside another thread's getenv is a data race.
void prepareNcclEnvironment();

bool glooAvailable();
bool ncclAvailable();

c10::intrusive_ptr<compat::CollectiveBackend> makeGlooBackend(const c10::intrusive_ptr<c10d::Store>& store,
                                                              int rank, int size,
                                                              std::chrono::milliseconds timeout,
                                                              const std::string& address);
c10::intrusive_ptr<compat::CollectiveBackend> makeNcclBackend(const c10::intrusive_ptr<c10d::Store>& store,
                                                              int rank, int size,
                                                              std::chrono::milliseconds timeout);

}  // namespace wb
