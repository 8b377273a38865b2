#pragma once
// One rank's account of the epoch in progress: what its batches added up on the device (EpochTotals: loss,
// the task's sums, samples), the samples of a resumed epoch that rank 0 carries in for the whole group
// (counted once, not once per rank), when the epoch started, and the group's sums of it — at the epoch's end
// for its metrics, inside it for a checkpoint (RankProgress's epoch_* fields).

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "distributed/rank_group.h"
#include "task/task.h"
#include "train/metrics_window.h"
#include "train/rank_trainer.h"

namespace wb {

// The whole group's sums of the epoch in progress.
struct EpochSums {
  double loss_sum = 0;
  double loss_samples = 0;  // samples in loss_sum (fp16 leaves out non-finite losses)
  int64_t samples = 0;
  double rate = 0;  // samples per second, added over the ranks
  std::vector<double> figure_sums;
};

class EpochLedger {
 public:
  // `loss_scaling`: fp16's, whose skipped steps' losses are left out of the loss (loss_samples counts).
  EpochLedger(RankGroup& group, const Task& task, torch::Device device, bool loss_scaling);

  // Opens an epoch: from zero, or from `carry`, a checkpoint's partial sums of the group (rank 0 carries
  // them).
  void begin(const RankProgress* carry);
  EpochTotals& totals() { return *m_totals; }
  // This rank's samples of the epoch, the carried ones left out.
  int64_t ownSamples() const { return m_totals->samples - m_carried; }
  int64_t carried() const { return m_carried; }
  // The share of an epoch of `epoch_samples` samples (one rank's shard) done, the carried samples counted as
  // the group's.
  double fraction(int64_t epoch_samples, int64_t ranks) const;
  // Closes the epoch: what it carried in is now counted (carriedDone).
  void close();
  // Samples carried into the epochs closed so far.
  int64_t carriedDone() const { return m_carried_done; }

  // Seconds since begin().
  double seconds() const;
  // The group's sums (one collective: every rank calls it at the same point), each rank's `rate` added up.
  EpochSums groupSums(double rate);
  // The group's partial sums into a checkpoint's progress, named by the task (a collective, as groupSums).
  void intoProgress(RankProgress& progress);
  // Zeros named by the task, for a checkpoint at an epoch's boundary.
  void emptyIntoProgress(RankProgress& progress) const;

 private:
  RankGroup& m_group;
  const Task& m_task;
  torch::Device m_device;
  bool m_loss_scaling;
  std::optional<EpochTotals> m_totals;
  int64_t m_carried = 0;
  int64_t m_carried_done = 0;
  std::chrono::steady_clock::time_point m_start;
};

}  // namespace wb
