#include "parallel/data_parallel.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "data/seed_mixing.h"
#include "distributed/collective_backends.h"
#include "distributed/collective_error.h"
#include "distributed/device_selection.h"
#include "distributed/process_group_ranks.h"
#include "model/step_generator.h"
#include "util/cuda_memory.h"
#include "workbench/errors.h"

namespace wb {
namespace {

bool isLoopback(const std::string& address) {
  return address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

}  // namespace

RankLayout layoutRanks(const Experiment& experiment, const std::optional<ProcessLaunch>& launch) {
  RankLayout layout;
  const std::vector<std::string>& devices = experiment.train.devices;
  if (launch) {
    layout.world_size = launch->world_size;
    const bool cuda = !devices.empty() && devices.front().rfind("cuda", 0) == 0;
    // cuda:LOCAL_RANK; where the launcher shows each process only its own GPUs (srun --gpus-per-task, or
    // CUDA_VISIBLE_DEVICES per process), modulo the devices this process sees.
    const int64_t visible =
        cuda && torch::cuda::is_available() ? static_cast<int64_t>(torch::cuda::device_count()) : 1;
    const torch::Device device =
        cuda ? resolveDevice("cuda:" + std::to_string(launch->local_rank % std::max<int64_t>(1, visible)))
             : torch::Device(torch::kCPU);
    layout.local.push_back({launch->rank, device});
    // Every process has the same layout; names of other hosts' devices are not known here.
    for (int r = 0; r < launch->world_size; ++r) {
      layout.devices.push_back(r == launch->rank ? device.str() : std::string("rank ") + std::to_string(r));
    }
    const char* local_world = std::getenv("LOCAL_WORLD_SIZE");  // torchrun sets it
    layout.ranks_on_this_machine = local_world ? std::max(1, std::atoi(local_world)) : 1;
    return layout;
  }
  layout.world_size = static_cast<int>(devices.size());
  for (size_t r = 0; r < devices.size(); ++r) {
    const torch::Device device = resolveDevice(devices[r]);
    layout.local.push_back({static_cast<int>(r), device});
    layout.devices.push_back(device.str());
  }
  layout.ranks_on_this_machine = layout.world_size;
  return layout;
}

c10::intrusive_ptr<c10d::Store> makeRankStore(const std::optional<ProcessLaunch>& launch,
                                              std::chrono::milliseconds timeout) {
  if (!launch) {
    auto store = c10::make_intrusive<c10d::HashStore>();
    store->setTimeout(timeout);
    return store;
  }
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(launch->master_port);
  options.isServer = !launch->agent_store && launch->rank == 0;
  options.numWorkers = launch->world_size;
  options.waitWorkers = false;  // the pre-flight waits for them, and names the ones that do not come
  options.timeout = timeout;
  try {
    auto tcp = c10::make_intrusive<c10d::TCPStore>(launch->master_addr, options);
    if (launch->agent_store) return c10::make_intrusive<c10d::PrefixStore>(launch->store_prefix, tcp);
    return tcp;
  } catch (const std::exception& e) {
    throw CollectiveError("Rank " + std::to_string(launch->rank) + ": cannot " +
                          (options.isServer ? "open" : "reach") + " the store at MASTER_ADDR:MASTER_PORT = " +
                          launch->master_addr + ":" + std::to_string(launch->master_port) + " (" + e.what() +
                          "). Check the address and that the port is free on rank 0's machine.");
  }
}

std::string glooAddressFor(const std::optional<ProcessLaunch>& launch) {
  if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface && *interface) {
    return std::string("interface:") + interface;
  }
  if (!launch || isLoopback(launch->master_addr)) return "127.0.0.1";
  return {};  // Gloo's default: this host's address
}

RankGroup& DeferredRankGroup::target() {
  if (!m_group) throw std::logic_error("DeferredRankGroup: a collective before the rank joined its group");
  return *m_group;
}

DataParallelStep::DataParallelStep(Model& model, RankGroup& group, const TrainConfig& train, uint64_t seed)
    : m_model(model), m_group(group), m_broadcast_buffers(!train.sync_batchnorm), m_seed(seed) {
  if (train.shard < ShardLevel::Gradients) {
    m_allreduce = std::make_unique<GradientAllreduce>(model.parameters(), group, train.bucket_mb);
  }
  for (const auto& b : model.namedBuffers()) m_buffers.push_back(b.second);
}

void DataParallelStep::broadcastInitialState() {
  std::vector<torch::Tensor> state = m_model.parameters();
  for (const auto& b : m_buffers) state.push_back(b);
  m_group.broadcast(state, 0);
}

void DataParallelStep::beforeStep(int64_t step) {
  if (m_broadcast_buffers && !m_buffers.empty()) m_group.broadcast(m_buffers, 0);
  // Each rank draws its own dropout masks, the same ones at the same step in every run and after resume.
  const uint64_t stream =
      mixSeed(mixSeed(m_seed, static_cast<uint64_t>(m_group.rank()) + 1), static_cast<uint64_t>(step));
  seedStepGenerator(m_group.device(), stream);
}

void DataParallelStep::beforeEvaluation() {
  if (m_broadcast_buffers && !m_buffers.empty()) m_group.broadcast(m_buffers, 0);
}

CommunicationTimes DataParallelStep::takeCommunicationTimes() {
  if (!m_allreduce) return {};
  const GradientAllreduce::Times t = m_allreduce->takeTimes();
  return {t.busy_ms, t.hidden_ms};
}

std::optional<RankFailure> runRankThreads(const std::vector<RankPlacement>& ranks,
                                          const c10::intrusive_ptr<c10d::Store>& store, int world_size,
                                          const std::function<void(size_t index)>& body) {
  struct Failed {
    RankFailure failure;
    bool waiting_only = false;  // failed in a collective: a consequence of another rank's failure
    std::chrono::steady_clock::time_point when;
  };
  std::mutex mutex;
  std::vector<Failed> failures;
  auto runOne = [&](size_t i) {
    try {
      body(i);
    } catch (...) {
      const std::exception_ptr error = std::current_exception();
      bool waiting_only = false;
      std::string reason = "unknown error";
      try {
        std::rethrow_exception(error);
      } catch (const CollectiveError& e) {
        waiting_only = true;
        reason = e.what();
      } catch (const c10::Error& e) {
        reason = e.what_without_backtrace();
      } catch (const std::exception& e) {
        reason = e.what();
      } catch (...) {
      }
      if (!waiting_only) announceRankFailure(store, ranks[i].rank, reason);
      std::lock_guard<std::mutex> lock(mutex);
      failures.push_back({{ranks[i].rank, error}, waiting_only, std::chrono::steady_clock::now()});
    }
  };
  if (ranks.size() == 1) {
    runOne(0);
  } else {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < ranks.size(); ++i) threads.emplace_back(runOne, i);
    for (auto& t : threads) t.join();
  }
  (void)world_size;
  if (failures.empty()) return std::nullopt;
  const Failed* first = nullptr;
  for (const auto& f : failures) {
    const bool better = !first || (first->waiting_only && !f.waiting_only) ||
                        (first->waiting_only == f.waiting_only && f.when < first->when);
    if (better) first = &f;
  }
  return first->failure;
}

RankGroupOptions rankGroupOptions(const TrainConfig& train, const std::optional<ProcessLaunch>& launch) {
  RankGroupOptions options;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(train.collective_timeout * 1000.0));
  options.gloo_address = glooAddressFor(launch);
  return options;
}

std::optional<RankFailure> trainLocalRanks(const std::vector<LocalRank>& ranks, RankThreadSettings& settings,
                                           const std::function<void(size_t index)>& body) {
  const bool parallel = settings.world_size > 1;
  if (parallel && !settings.store)
    settings.store = makeRankStore(std::nullopt, settings.group_options.timeout);
  std::vector<RankPlacement> placements;
  for (const LocalRank& r : ranks) placements.push_back(r.placement);
  // Here, on the launching thread: each rank thread makes its ProcessGroupNCCL, which reads the environment.
  const bool nccl = std::any_of(ranks.begin(), ranks.end(),
                                [](const LocalRank& r) { return r.placement.device.is_cuda(); });
  if (parallel && nccl) prepareNcclEnvironment();
  return runRankThreads(placements, settings.store, settings.world_size, [&](size_t i) {
    const LocalRank& rank = ranks[i];
    StepGeneratorScope random_streams;  // seeded per step by the data-parallel step; cleared at the end
    if (parallel) {
      // Per thread: OpenMP's team size and the CUDA device are the rank's own.
      at::set_num_threads(static_cast<int>(settings.cores_per_rank));
      if (rank.placement.device.is_cuda()) setCurrentCudaDevice(rank.placement.device.index());
      rank.group->attach(joinRankGroup(settings.store, rank.placement.rank, settings.world_size,
                                       rank.placement.device, settings.group_options));
      rank.parallel->broadcastInitialState();
    }
    try {
      body(i);
    } catch (...) {
      if (rank.group) rank.group->detach();
      throw;
    }
  });
}

}  // namespace wb
