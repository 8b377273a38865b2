#pragma once
// A collective (allreduce, broadcast, the group's rendezvous) failed or timed out: another rank died, threw
// or hangs. The message names the rank where that is known and carries Gloo's or NCCL's own words.

#include <stdexcept>
#include <string>

namespace wb {

class CollectiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wb
