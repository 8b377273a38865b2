#pragma once
// What the ranks of a group agree on between optimizer steps, in one collective each, so every rank takes the
// same branch and none is left waiting in a collective: the live controls (stop, pause, a checkpoint asked or
// due, stop after this epoch, a learning-rate change), and sums across ranks. One device (SingleRank): its
// own control, and a read-back.

#include <cstdint>
#include <optional>
#include <vector>

#include "control/training_control.h"
#include "distributed/rank_group.h"

namespace wb {

struct ControlDecision {
  bool stop = false;
  bool pause = false;
  bool checkpoint_requested = false;  // Run ▸ Checkpoint Now (rank 0's control)
  bool checkpoint_due = false;        // train.checkpoint_every_minutes on rank 0's clock
  bool stop_after_epoch = false;
  uint64_t seen = 0;  // the oldest control generation any rank read: every rank waits for news after it
  std::optional<LrChange> lr;  // rank 0's, applied by every rank at the same step
};

// The most any rank asks for; the checkpoint requests and the learning-rate change are rank 0's (`lead`),
// which takes them from its control. `seen` is this rank's control generation read before deciding (so a
// request cannot slip past a wait that follows).
ControlDecision agreeOnControl(RankGroup& group, TrainingControl& control, bool checkpoint_due,
                               uint64_t seen);

// Each value summed over the ranks (one allgather). Every rank must call it at the same point.
std::vector<double> sumAcrossRanks(RankGroup& group, std::vector<double> values);

}  // namespace wb
