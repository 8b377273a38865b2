#include "train/rank_launch.h"

#include "train/training_host.h"
#include "util/cuda_pci_bus_id.h"

namespace wb {
namespace {

// NVML's figures of this process's GPUs, every second on the sampler's thread, for the step metrics (the
// sampler says "no NVML" itself where there is none); none for CPU ranks.
std::unique_ptr<GpuSampler> sampleGpus(const std::vector<RankPlacement>& local, EventStream& events) {
  std::vector<GpuToSample> gpus;
  for (const RankPlacement& placement : local) {
    if (!placement.device.is_cuda()) continue;
    const int ordinal = std::max<int>(0, placement.device.index());
    gpus.push_back({ordinal, cudaPciBusId(ordinal)});
  }
  if (gpus.empty()) return nullptr;
  auto sampler = std::make_unique<GpuSampler>(gpus, std::chrono::seconds(1));
  events.log(LogLevel::Info, sampler->describe());
  return sampler;
}

}  // namespace

void RankLaunch::build(const std::function<void(TrainingRank&)>& set_up, const LoadedCheckpoint* checkpoint) {
  for (const RankPlacement& placement : m_layout.local) {
    auto rank = std::make_unique<TrainingRank>(placement, m_layout.world_size);
    set_up(*rank);
    if (checkpoint) rank->restore(*checkpoint);
    m_ranks.push_back(std::move(rank));
  }
}

std::optional<RankFailure> RankLaunch::train(const RankTraining& training,
                                             c10::intrusive_ptr<c10d::Store>& store,
                                             const RankGroupOptions& group_options) {
  RankThreadSettings threads;
  threads.store = store;
  threads.world_size = m_layout.world_size;
  threads.cores_per_rank = coresPerRank(training.experiment.train, m_layout.ranks_on_this_machine);
  threads.group_options = group_options;
  std::vector<LocalRank> local;
  for (const auto& rank : m_ranks) local.push_back(rank->local());
  const std::unique_ptr<GpuSampler> gpu_sampler = sampleGpus(m_layout.local, training.events);
  const auto failure = trainLocalRanks(local, threads, [&](size_t i) {
    TrainingRank& rank = *m_ranks[i];
    rank.train(RankSetup{
        .experiment = training.experiment,
        .data = training.data,
        .step = *rank.step,
        .schedule = *rank.schedule,
        .plan = training.plan,
        .events = rank.events(training.events),
        .control = training.control,
        .resume_from = training.resume_from,
        // The others take part in every checkpoint (their progress is gathered) without writing one.
        .checkpoint = rank.isLead() ? training.write_checkpoint : [](const RankProgress&) {},
        .group = parallel() ? rank.group.get() : nullptr,
        .rank_devices = m_layout.devices,
        .gpu_sampler = gpu_sampler.get(),
    });
  });
  store = threads.store;
  return failure;
}

}  // namespace wb
