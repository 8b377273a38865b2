#include "train/rank_launch.h"

#include "train/training_host.h"

namespace wb {

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
    });
  });
  store = threads.store;
  return failure;
}

}  // namespace wb
