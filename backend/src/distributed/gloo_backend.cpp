// Gloo: c10d's CPU process group. Ranks talk over TCP on `address` (loopback for ranks on this machine).
#include "distributed/collective_backends.h"

#ifdef WB_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

#include "distributed/collective_error.h"

namespace wb {

#ifdef WB_WITH_GLOO

bool glooAvailable() {
  return true;
}

c10::intrusive_ptr<compat::CollectiveBackend> makeGlooBackend(const c10::intrusive_ptr<c10d::Store>& store,
                                                              int rank, int size,
                                                              std::chrono::milliseconds timeout,
                                                              const std::string& address) {
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  if (address.empty()) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  } else if (address.rfind("interface:", 0) == 0) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(address.substr(10)));
  } else {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(address));
  }
  // Gloo's own threads run the collectives while the training thread goes on with backward; one is enough
  // for our ordered buckets and leaves the cores to the ranks.
  options->threads = 1;
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
}

#else

bool glooAvailable() {
  return false;
}

c10::intrusive_ptr<compat::CollectiveBackend> makeGlooBackend(const c10::intrusive_ptr<c10d::Store>&, int,
                                                              int, std::chrono::milliseconds,
                                                              const std::string&) {
  throw CollectiveError(
      "This LibTorch build has no Gloo process group headers, so several CPU ranks cannot train together "
      "(Debian: install libgloo-dev and rebuild).");
}

#endif

}  // namespace wb
