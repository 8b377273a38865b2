#pragma once
// The ranks of a data-parallel run over torch.distributed's c10d: Gloo for CPU ranks, NCCL for CUDA ranks,
// meeting through a c10d store (a HashStore for ranks that are threads of one process, torchrun's or our own
// TCPStore for ranks in separate processes).

#include <chrono>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distributed/rank_group.h"

namespace wb {

struct RankGroupOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};  // train.collective_timeout
  // The address Gloo binds to and announces to the others: loopback when every rank is on this machine;
  // "interface:NAME" for a network interface (GLOO_SOCKET_IFNAME); empty = Gloo's default (this host's
  // name, as torch.distributed does).
  std::string gloo_address = "127.0.0.1";
};

// Whether this LibTorch build has the process group a device type needs.
bool hasCollectivesFor(const torch::Device& device);

// Joins the group as `rank` of `size`. Every rank first announces itself in the store and waits (up to the
// timeout) for all others; a rank that does not come is named. Then one small allreduce checks the links.
// Throws wb::CollectiveError.
std::unique_ptr<RankGroup> joinRankGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                         const torch::Device& device, const RankGroupOptions& options);

// A rank that fails leaves its reason in the store, so the others can name the rank that failed first rather
// than only report their own timeout. Best effort: never throws.
void announceRankFailure(const c10::intrusive_ptr<c10d::Store>& store, int rank, const std::string& reason);
// "rank 1 failed: <reason>" for each rank that announced a failure; empty when none did.
std::string describeRankFailures(const c10::intrusive_ptr<c10d::Store>& store, int size, int except_rank);

}  // namespace wb
