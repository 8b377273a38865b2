#include "train/epoch_ledger.h"

#include <algorithm>

#include "control/rank_agreement.h"

namespace wb {

EpochLedger::EpochLedger(RankGroup& group, const Task& task, torch::Device device, bool loss_scaling)
    : m_group(group), m_task(task), m_device(device), m_loss_scaling(loss_scaling) {}

void EpochLedger::begin(const RankProgress* carry) {
  m_carried = carry ? carry->epoch_samples : 0;
  m_start = std::chrono::steady_clock::now();
  m_totals.emplace(m_device, carry ? carry->epoch_loss_sum : 0.0, carry ? carry->epoch_loss_samples : 0.0,
                   carry ? carry->figureSums(m_task) : RankProgress().figureSums(m_task),
                   carry ? carry->epoch_samples : 0);
}

double EpochLedger::fraction(int64_t epoch_samples, int64_t ranks) const {
  return (static_cast<double>(ownSamples()) + static_cast<double>(m_carried) / static_cast<double>(ranks)) /
         static_cast<double>(std::max<int64_t>(1, epoch_samples));
}

void EpochLedger::close() {
  m_carried_done += m_carried;
}

double EpochLedger::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

EpochSums EpochLedger::groupSums(double rate) {
  const EpochTotals& totals = *m_totals;
  std::vector<double> mine = {
      totals.loss_sum.item<double>(),
      m_loss_scaling ? totals.loss_samples.item<double>() : static_cast<double>(totals.samples),
      static_cast<double>(totals.samples), rate};
  const std::vector<double> figure_sums = totals.figureSums();
  mine.insert(mine.end(), figure_sums.begin(), figure_sums.end());
  const std::vector<double> all = sumAcrossRanks(m_group, mine);
  return {all[0], all[1], static_cast<int64_t>(all[2]), all[3], {all.begin() + 4, all.end()}};
}

void EpochLedger::emptyIntoProgress(RankProgress& progress) const {
  progress.epoch_figure_sums.clear();
  for (const std::string& name : m_task.sumNames()) progress.epoch_figure_sums.emplace_back(name, 0.0);
}

void EpochLedger::intoProgress(RankProgress& progress) {
  const EpochSums sums = groupSums(0.0);
  progress.epoch_loss_sum = sums.loss_sum;
  progress.epoch_loss_samples = sums.loss_samples;
  progress.epoch_samples = sums.samples;
  emptyIntoProgress(progress);
  for (size_t i = 0; i < progress.epoch_figure_sums.size(); ++i) {
    progress.epoch_figure_sums[i].second = sums.figure_sums[i];
  }
}

}  // namespace wb
