#pragma once
// Data parallel, as the run sees it: which ranks this process trains (one thread per device of
// train.devices, or the one rank a launcher such as torchrun gave this process), the c10d store where they
// meet, the parts each rank adds to its training step (bucketed gradient allreduce, DDP's buffer broadcast,
// per-rank random streams), and running the rank threads so that the rank that failed first is the one
// reported.

#include <torch/torch.h>

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "distributed/gradient_allreduce.h"
#include "distributed/process_group_ranks.h"
#include "distributed/rank_group.h"
#include "model/model.h"
#include "step/phase_range.h"
#include "step/step_part.h"
#include "workbench/experiment.h"
#include "workbench/process_launch.h"

namespace wb {

struct RankPlacement {
  int rank = 0;
  torch::Device device = torch::kCPU;
};

struct RankLayout {
  int world_size = 1;
  std::vector<RankPlacement> local;  // the ranks this process trains
  std::vector<std::string> devices;  // every rank's device, by rank, for the metrics
  int ranks_on_this_machine = 1;     // they share its cores
};

// One device: one rank. Several devices: one rank each, in this process. Launched (torchrun, Slurm): this
// process is rank launch.rank, on cuda:LOCAL_RANK when the experiment trains on CUDA, else on the CPU.
RankLayout layoutRanks(const Experiment& experiment, const std::optional<ProcessLaunch>& launch);

// Where the ranks meet: an in-process HashStore for threads; for processes, torchrun's agent store (under its
// prefix) or a TCPStore that rank 0 hosts at MASTER_ADDR:MASTER_PORT.
c10::intrusive_ptr<c10d::Store> makeRankStore(const std::optional<ProcessLaunch>& launch,
                                              std::chrono::milliseconds timeout);

// The address Gloo binds to: the interface GLOO_SOCKET_IFNAME names; else loopback when the ranks are all on
// this machine, and Gloo's default (this host's address) when they are not.
std::string glooAddressFor(const std::optional<ProcessLaunch>& launch);

// Forwards to the group the rank joins on its own thread (models, built before the ranks meet, hold this).
class DeferredRankGroup final : public RankGroup {
 public:
  explicit DeferredRankGroup(int rank, int size, torch::Device device)
      : m_rank(rank), m_size(size), m_device(device) {}
  void attach(std::unique_ptr<RankGroup> group) { m_group = std::move(group); }
  void detach() { m_group.reset(); }  // leaves the group (closes its connections); later collectives throw
  int rank() const override { return m_rank; }
  int size() const override { return m_size; }
  torch::Device device() const override { return m_device; }
  void allreduceSum(torch::Tensor& t) override { target().allreduceSum(t); }
  std::function<void()> allreduceSumAsync(torch::Tensor t) override {
    return target().allreduceSumAsync(std::move(t));
  }
  std::function<void()> allreduceSumAsync(torch::Tensor t,
                                          std::shared_ptr<CollectiveTiming> timing) override {
    return target().allreduceSumAsync(std::move(t), std::move(timing));
  }
  bool timesOnDevice() const override { return m_group && m_group->timesOnDevice(); }
  void broadcast(std::vector<torch::Tensor>& tensors, int root) override {
    target().broadcast(tensors, root);
  }
  torch::Tensor allgather(const torch::Tensor& row) override { return target().allgather(row); }
  void reduceScatterSum(const torch::Tensor& input, torch::Tensor& output) override {
    target().reduceScatterSum(input, output);
  }
  void allgatherInto(const torch::Tensor& input, torch::Tensor& output) override {
    target().allgatherInto(input, output);
  }

 private:
  RankGroup& target();
  int m_rank, m_size;
  torch::Device m_device;
  std::unique_ptr<RankGroup> m_group;
};

// What data parallelism adds to one rank's step, as a part of it: the gradient allreduce (started before the
// last backward, finished when the gradients are ready), rank 0's buffers broadcast at each step and before
// validation (DDP's broadcast_buffers; not needed with sync_batchnorm), and random streams (dropout) seeded
// from (seed, rank, step) so runs repeat and resume exactly. First in a step's list: the other parts see the
// group's gradients.
class DataParallelStep final : public StepPart {
 public:
  DataParallelStep(Model& model, RankGroup& group, const TrainConfig& train, uint64_t seed);
  // Rank 0's parameters and buffers to every rank, before the first step.
  void broadcastInitialState();
  size_t bucketCount() const { return m_allreduce ? m_allreduce->bucketCount() : 0; }

  std::string name() const override { return "allreduce"; }
  void beforeStep(int64_t step) override;
  void beforeBackward(bool completes) override {
    if (m_allreduce) m_allreduce->beginBackward(completes);
  }
  void gradientsReady() override {
    // A profile's "## allreduce ##": what backward left to wait for.
    PhaseRange allreduce(StepPhase::Allreduce);
    if (m_allreduce) m_allreduce->finish();
  }
  void beforeEvaluation() override;
  CommunicationTimes takeCommunicationTimes() override;

 private:
  Model& m_model;
  RankGroup& m_group;
  // Null when the gradients are reduce-scattered instead (train.shard gradients: ShardedTrainingState).
  std::unique_ptr<GradientAllreduce> m_allreduce;
  std::vector<torch::Tensor> m_buffers;
  bool m_broadcast_buffers;
  uint64_t m_seed;
};

// Runs body(i) for each local rank on its own thread and joins them all. A failing rank announces itself in
// the store (so the others, who then time out in a collective, can name it). Returns the failure to report:
// the first rank that failed for a reason of its own, before ranks that failed only waiting for it.
struct RankFailure {
  int rank = 0;
  std::exception_ptr error;
};
std::optional<RankFailure> runRankThreads(const std::vector<RankPlacement>& ranks,
                                          const c10::intrusive_ptr<c10d::Store>& store, int world_size,
                                          const std::function<void(size_t index)>& body);

// The rank threads of one process, as a run and a compression pass's fine-tuning both start them: one rank
// per local device, each on its own thread with its share of the cores and its CUDA device current, joining
// the group there and taking rank 0's weights before its first step.
struct LocalRank {
  RankPlacement placement;
  DeferredRankGroup* group = nullptr;    // joined on the rank's thread (data parallel)
  DataParallelStep* parallel = nullptr;  // null with one rank
};
struct RankThreadSettings {
  c10::intrusive_ptr<c10d::Store> store;  // made here when null and there are several ranks
  int world_size = 1;
  int64_t cores_per_rank = 1;
  RankGroupOptions group_options;
};
// `train`'s collective timeout, and the Gloo address for this launch.
RankGroupOptions rankGroupOptions(const TrainConfig& train, const std::optional<ProcessLaunch>& launch);
// A rank that fails leaves its group at once, so that the others fail in their next collective instead of
// waiting out train.collective_timeout. Returns the failure to report, as runRankThreads does.
std::optional<RankFailure> trainLocalRanks(const std::vector<LocalRank>& ranks, RankThreadSettings& settings,
                                           const std::function<void(size_t index)>& body);

}  // namespace wb
