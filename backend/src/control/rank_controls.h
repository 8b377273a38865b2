#pragma once
// A rank's side of the live controls, between optimizer steps: the ranks agree on what was asked
// (rank_agreement.h), then every rank applies it alike — a learning-rate change laid over the schedule at the
// same step, "stop after this epoch" remembered until the epoch ends — and rank 0 tells each one as a
// ControlApplied event. It also keeps the checkpoint clock (train.checkpoint_every_minutes, rank 0's counts).

#include <chrono>
#include <cstdint>

#include "control/rank_agreement.h"
#include "control/training_control.h"
#include "distributed/rank_group.h"
#include "optim/lr_schedule.h"
#include "run_folder/event_stream.h"

namespace wb {

class RankControls {
 public:
  using Clock = std::chrono::steady_clock;

  // `checkpoints`: this rank's loop writes checkpoints (a time-based one is due only then).
  RankControls(TrainingControl& control, RankGroup& group, LrSchedule& schedule, EventStream& events,
               double checkpoint_every_minutes, bool checkpoints);

  // What every rank agreed on at the boundary before step `step` + 1 of `epoch`, with its learning-rate
  // change and "stop after this epoch" already applied. The stop, the checkpoint and the pause are the
  // caller's.
  ControlDecision agree(int64_t step, int64_t epoch);
  // Blocks while the agreed pause lasts (until a request newer than the decision); how long it waited.
  Clock::duration waitWhilePaused(const ControlDecision& decision) {
    return m_control.waitWhilePaused(decision.seen);
  }
  // Agreed by every rank: the run ends Interrupted when the epoch in progress ends.
  bool stopAfterEpoch() const { return m_stop_after_epoch; }
  // A checkpoint was just written: the next time-based one is due a whole interval from now.
  void checkpointWritten() { m_last_checkpoint = Clock::now(); }

 private:
  void applyLrChange(const LrChange& change, int64_t step);
  void announceStopAfterEpoch(int64_t epoch, int64_t step);

  TrainingControl& m_control;
  RankGroup& m_group;
  LrSchedule& m_schedule;
  EventStream& m_events;
  const bool m_lead;  // rank 0 takes checkpoint requests, keeps the checkpoint clock and reports
  const bool m_checkpoints;
  const double m_checkpoint_every_minutes;
  Clock::time_point m_last_checkpoint = Clock::now();
  bool m_stop_after_epoch = false;
};

}  // namespace wb
