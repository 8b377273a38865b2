#pragma once
// The learning rate as a function of the optimizer step, matching torch.optim.lr_scheduler when its step()
// is called after every optimizer step (plateau: after every validation), with optional linear warmup in
// front (LinearLR from warmup_start_factor to 1 over warmup_steps, then the main schedule from its step 0).
//
// How warmup and the main schedule compose (what scripts/make_schedule_fixtures.py simulates with torch):
// with W = warmup_steps and f = warmup_start_factor,
//   k <  W: lrAt(k) = base_lr * (f + (1 - f) * k / W)   (LinearLR(f, 1, total_iters=W) stepped k times);
//           plateau: that factor times the plateau's current lr;
//   k >= W: the main scheduler, created fresh on its own optimizer at step W and stepped k - W times.
// This is deliberately not torch's SequentialLR: there all schedulers share one optimizer's param groups, so
// in 1.13 a OneCycleLR behind the warmup rewrites the lr the warmup ramps (to lr / div_factor, not lr).
// Main schedules: cosine's T_max is t_max, or total_steps - W when t_max is 0, and after T_max the cosine
// rises again as torch's does; onecycle runs over total_steps - W steps starting at lr / div_factor and
// holds its last lr past them (torch raises there). linear: transformers' get_linear_schedule_with_warmup,
// one LambdaLR — from 0 (not warmup_start_factor) up to the rate over the warmup, then down to 0 at
// total_steps. plateau: ReduceLROnPlateau including its rule that a reduction must change the lr by more than
// 1e-8.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "optim/lr_override.h"
#include "workbench/experiment.h"

namespace wb {

class LrSchedule {
 public:
  // total_steps: the optimizer steps of the whole run (cosine's T_max and onecycle's total_steps derive
  // from it, minus the warmup).
  LrSchedule(const ScheduleConfig& config, double base_lr, int64_t total_steps);

  // The learning rate for the optimizer step that follows `steps_done` steps (0: the first step), with the
  // live changes (addOverride) applied.
  double lrAt(int64_t steps_done) const;
  // The schedule's own value, without live changes (what torch's scheduler gives).
  double scheduledLrAt(int64_t steps_done) const;

  // Per-group learning rates, as torch's schedulers keep an initial_lr per param group: the optimizer's
  // groups with their base rates, in the optimizer's order (appended as groups join it). Each group follows
  // the schedule computed from its own base rate (cosine's eta_min and plateau's min_lr are absolute, as in
  // torch); a live change's factor applies to every group, its constant sets the default group's rate and
  // the others keep their ratio to it. A group joining later (an unfreeze) follows the schedule from the step
  // it joins as if it had been there from the start (plateau: unreduced, as torch's add_param_group leaves
  // it).
  void addGroups(const std::vector<double>& base_lrs);
  size_t groupCount() const { return m_group_base_lrs.size(); }
  // One rate per group (with live changes); without groups, lrAt alone.
  std::vector<double> groupLrsAt(int64_t steps_done) const;

  // A live change from o.from_step on (kept in step order; part of state()).
  void addOverride(const LrOverride& o);
  const std::vector<LrOverride>& overrides() const { return m_overrides; }

  // plateau only: reports a validation metric (stepping ReduceLROnPlateau); no-op for the others.
  void observeValidation(double metric);

  // For checkpoints: the state a resumed run needs (plateau's counters and current factor, live changes).
  // A state without "overrides" (checkpoints from before live changes) means none.
  nlohmann::json state() const;
  void loadState(const nlohmann::json& state);

 private:
  ScheduleConfig m_config;
  double m_base_lr;
  int64_t m_total_steps;
  // plateau state
  double m_plateau_scale = 1.0;
  double m_best = 0;
  bool m_has_best = false;
  int64_t m_bad_epochs = 0;
  int64_t m_cooldown_counter = 0;
  std::vector<LrOverride> m_overrides;
  std::vector<double> m_group_base_lrs;
  std::vector<double> m_group_plateau_scales;

  double scheduledFor(int64_t steps_done, double base_lr, double plateau_scale) const;
  void reducePlateau(double base_lr, double& plateau_scale) const;
};

}  // namespace wb
