#include "control/rank_controls.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>

namespace wb {

RankControls::RankControls(TrainingControl& control, RankGroup& group, LrSchedule& schedule,
                           EventStream& events, double checkpoint_every_minutes, bool checkpoints)
    : m_control(control),
      m_group(group),
      m_schedule(schedule),
      m_events(events),
      m_lead(group.rank() == 0),
      m_checkpoints(checkpoints),
      m_checkpoint_every_minutes(checkpoint_every_minutes) {}

ControlDecision RankControls::agree(int64_t step, int64_t epoch) {
  const auto checkpoint_interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(m_checkpoint_every_minutes * 60.0));
  // Read before deciding, so no request can slip past a wait that follows (and with several ranks, the oldest
  // reading counts: a request one rank saw late still wakes every rank).
  const bool due = m_checkpoints && m_checkpoint_every_minutes > 0 &&
                   Clock::now() - m_last_checkpoint >= checkpoint_interval;
  const ControlDecision d = agreeOnControl(m_group, m_control, due, m_control.generation());
  if (d.lr) applyLrChange(*d.lr, step);
  if (d.stop_after_epoch && !m_stop_after_epoch) announceStopAfterEpoch(epoch, step);
  return d;
}

// Every rank adds the change to its schedule at the same step boundary; rank 0 reports it.
void RankControls::applyLrChange(const LrChange& change, int64_t step) {
  LrOverride o;
  o.from_step = std::max(step, change.from_step);  // a step already trained keeps its learning rate
  o.constant = change.kind == LrChange::Kind::Constant;
  o.value = change.value;
  m_schedule.addOverride(o);
  if (!m_lead) return;
  ControlApplied e;
  e.step = o.from_step;
  e.kind = o.constant ? ControlKind::LrConstant : ControlKind::LrScale;
  e.value = change.value;
  e.lr = m_schedule.lrAt(o.from_step);
  e.source = change.source;
  std::ostringstream text;
  text << "step " << o.from_step << ": learning rate ";
  if (o.constant) {
    text << "set to " << change.value << " (replaces the schedule)";
  } else {
    text << "×" << change.value << (o.from_step > step ? " (then " : " (now ") << e.lr << ")";
  }
  if (o.from_step > step) text << ", asked at step " << step;
  if (!change.source.empty()) text << ", requested via " << change.source;
  e.message = text.str();
  m_events.post(std::move(e));
}

void RankControls::announceStopAfterEpoch(int64_t epoch, int64_t step) {
  m_stop_after_epoch = true;
  if (!m_lead) return;
  ControlApplied e;
  e.step = step;
  e.kind = ControlKind::StopAfterEpoch;
  e.value = static_cast<double>(epoch);
  e.source = m_control.stopAfterEpochSource();
  e.message = "step " + std::to_string(step) + ": the run stops at the end of epoch " +
              std::to_string(epoch) + " with a checkpoint (resume continues it)" +
              (e.source.empty() ? std::string() : ", requested via " + e.source);
  m_events.post(std::move(e));
}

}  // namespace wb
