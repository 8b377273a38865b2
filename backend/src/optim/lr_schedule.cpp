#include "optim/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "workbench/errors.h"

namespace wb {

namespace {

// The double nearest pi, as Python's math.pi: the cosine forms below repeat torch's arithmetic operation
// for operation so that the results agree to the last few bits.
constexpr double kPi = 3.141592653589793;

// ReduceLROnPlateau only applies a reduction that changes the lr by more than this (torch's eps default).
constexpr double kPlateauEps = 1e-8;

// Steps of the main schedule: the run minus the warmup in front of it.
int64_t mainSteps(const ScheduleConfig& config, int64_t total_steps) {
  return total_steps - config.warmup_steps;
}

int64_t cosinePeriod(const ScheduleConfig& config, int64_t total_steps) {
  return config.t_max > 0 ? config.t_max : mainSteps(config, total_steps);
}

// One leg of OneCycleLR: the lr goes from start_lr to end_lr while the step goes up to end_step.
struct OneCyclePhase {
  double end_step;
  double start_lr;
  double end_lr;
};

// The phases exactly as torch's OneCycleLR builds them (end steps are fractional there too).
std::vector<OneCyclePhase> oneCyclePhases(const ScheduleConfig& config, double max_lr, int64_t steps) {
  const double initial_lr = max_lr / config.div_factor;
  const double min_lr = initial_lr / config.final_div_factor;
  const double total = static_cast<double>(steps);
  if (config.three_phase) {
    return {{config.pct_start * total - 1, initial_lr, max_lr},
            {2 * config.pct_start * total - 2, max_lr, initial_lr},
            {total - 1, initial_lr, min_lr}};
  }
  return {{config.pct_start * total - 1, initial_lr, max_lr}, {total - 1, max_lr, min_lr}};
}

double oneCycleLr(const ScheduleConfig& config, double max_lr, int64_t steps, int64_t step) {
  // torch raises past total_steps (and extrapolates the last phase at exactly total_steps, which for a
  // linear anneal can go below zero); a run that overshoots keeps the final lr instead.
  const double step_num = static_cast<double>(std::min(step, steps - 1));
  const std::vector<OneCyclePhase> phases = oneCyclePhases(config, max_lr, steps);
  double start_step = 0;
  for (size_t i = 0; i < phases.size(); ++i) {
    const OneCyclePhase& phase = phases[i];
    if (step_num <= phase.end_step || i + 1 == phases.size()) {
      const double pct = (step_num - start_step) / (phase.end_step - start_step);
      if (config.anneal_strategy == AnnealStrategy::Linear) {
        return (phase.end_lr - phase.start_lr) * pct + phase.start_lr;
      }
      const double cos_out = std::cos(kPi * pct) + 1;
      return phase.end_lr + (phase.start_lr - phase.end_lr) / 2.0 * cos_out;
    }
    start_step = phase.end_step;
  }
  return phases.back().end_lr;  // not reached: the last phase always answers
}

void requireThat(bool condition, const std::string& what) {
  if (!condition) {
    throw UserError("schedule: " + what);
  }
}

// transformers' get_linear_schedule_with_warmup (a LambdaLR): from 0 up to the rate over the warmup, then
// down to 0 at the run's last step: k / W for k < W, else max(0, (T - k) / (T - W)), each denominator at
// least 1.
double linearFactor(int64_t warmup, int64_t total_steps, int64_t k) {
  if (k < warmup) return static_cast<double>(k) / static_cast<double>(std::max<int64_t>(1, warmup));
  return std::max(0.0, static_cast<double>(total_steps - k) /
                           static_cast<double>(std::max<int64_t>(1, total_steps - warmup)));
}

void validate(const ScheduleConfig& config, int64_t total_steps) {
  requireThat(config.warmup_steps >= 0, "warmup_steps must not be negative");
  if (config.warmup_steps > 0) {
    requireThat(config.warmup_start_factor > 0 && config.warmup_start_factor <= 1,
                "warmup_start_factor must be in (0, 1]");
  }
  if (config.name == ScheduleName::Step) {
    requireThat(config.step_size >= 1, "step_size must be at least 1");
  } else if (config.name == ScheduleName::Cosine) {
    requireThat(cosinePeriod(config, total_steps) >= 1,
                "cosine needs t_max >= 1, or more steps in the run than warmup_steps");
  } else if (config.name == ScheduleName::OneCycle) {
    const int64_t steps = mainSteps(config, total_steps);
    requireThat(steps >= 1, "onecycle needs more steps in the run than warmup_steps");
    requireThat(config.pct_start >= 0 && config.pct_start <= 1, "pct_start must be in [0, 1]");
    requireThat(config.div_factor > 0 && config.final_div_factor > 0,
                "div_factor and final_div_factor must be > 0");
    // The two places where torch's OneCycleLR divides by a zero-length phase.
    const std::vector<OneCyclePhase> phases = oneCyclePhases(config, 1.0, steps);
    const double last_start = phases[phases.size() - 2].end_step;
    requireThat(phases.front().end_step != 0 && phases.back().end_step != last_start,
                "onecycle's pct_start leaves a phase of zero steps; change pct_start or the number of steps");
  } else if (config.name == ScheduleName::Linear) {
    requireThat(total_steps > config.warmup_steps, "linear needs more steps in the run than warmup_steps");
  } else if (config.name == ScheduleName::Plateau) {
    requireThat(config.factor < 1.0, "factor must be < 1");
    requireThat(config.patience >= 0 && config.cooldown >= 0, "patience and cooldown must not be negative");
  }
}

// JSON has no infinities; a best metric can be one after a diverged validation.
nlohmann::json encodeMetric(double value) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value > 0 ? "inf" : "-inf";
  }
  return value;
}

double decodeMetric(const nlohmann::json& value) {
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (text == "inf") {
      return std::numeric_limits<double>::infinity();
    }
    if (text == "-inf") {
      return -std::numeric_limits<double>::infinity();
    }
    if (text == "nan") {
      return std::numeric_limits<double>::quiet_NaN();
    }
  }
  return value.get<double>();
}

}  // namespace

LrSchedule::LrSchedule(const ScheduleConfig& config, double base_lr, int64_t total_steps)
    : m_config(config), m_base_lr(base_lr), m_total_steps(total_steps) {
  validate(m_config, m_total_steps);
  // MultiStepLR counts milestones as a multiset: sorted, a repeated milestone applies gamma twice.
  std::sort(m_config.milestones.begin(), m_config.milestones.end());
}

double LrSchedule::lrAt(int64_t steps_done) const {
  const double scheduled = scheduledLrAt(steps_done);
  return m_overrides.empty() ? scheduled : applyLrOverrides(m_overrides, steps_done, scheduled);
}

void LrSchedule::addOverride(const LrOverride& o) {
  // After every override of the same or an earlier step: changes made at one step apply in the order made.
  auto at =
      std::upper_bound(m_overrides.begin(), m_overrides.end(), o.from_step,
                       [](int64_t step, const LrOverride& existing) { return step < existing.from_step; });
  m_overrides.insert(at, o);
}

double LrSchedule::scheduledLrAt(int64_t steps_done) const {
  return scheduledFor(steps_done, m_base_lr, m_plateau_scale);
}

void LrSchedule::addGroups(const std::vector<double>& base_lrs) {
  m_group_base_lrs.insert(m_group_base_lrs.end(), base_lrs.begin(), base_lrs.end());
  m_group_plateau_scales.resize(m_group_base_lrs.size(), 1.0);
}

std::vector<double> LrSchedule::groupLrsAt(int64_t steps_done) const {
  if (m_group_base_lrs.empty()) return {lrAt(steps_done)};
  std::vector<double> lrs;
  for (size_t g = 0; g < m_group_base_lrs.size(); ++g) {
    const double base = m_group_base_lrs[g];
    const double scheduled = scheduledFor(steps_done, base, m_group_plateau_scales[g]);
    if (m_overrides.empty()) {
      lrs.push_back(scheduled);
      continue;
    }
    std::vector<LrOverride> overrides = m_overrides;
    for (LrOverride& o : overrides) {
      if (o.constant) o.value *= base / m_base_lr;
    }
    lrs.push_back(applyLrOverrides(overrides, steps_done, scheduled));
  }
  return lrs;
}

double LrSchedule::scheduledFor(int64_t steps_done, double base_lr, double plateau_scale) const {
  if (steps_done < 0) {
    throw std::out_of_range("LrSchedule::lrAt: negative step " + std::to_string(steps_done));
  }
  const int64_t warmup = m_config.warmup_steps;
  if (m_config.name == ScheduleName::Linear) return base_lr * linearFactor(warmup, m_total_steps, steps_done);
  if (steps_done < warmup) {
    // LinearLR's closed form; the main schedule has not started, so it is at its step-0 lr (plateau: the lr
    // its validations so far have left).
    const double start = m_config.warmup_start_factor;
    const double factor =
        start + (1.0 - start) * static_cast<double>(steps_done) / static_cast<double>(warmup);
    const double main_lr = m_config.name == ScheduleName::Plateau ? base_lr * plateau_scale : base_lr;
    return main_lr * factor;
  }
  const int64_t step = steps_done - warmup;
  switch (m_config.name) {
    case ScheduleName::Constant:
      return base_lr;
    case ScheduleName::Step:
      return base_lr * std::pow(m_config.gamma, static_cast<double>(step / m_config.step_size));
    case ScheduleName::MultiStep: {
      const auto passed = std::upper_bound(m_config.milestones.begin(), m_config.milestones.end(), step) -
                          m_config.milestones.begin();
      return base_lr * std::pow(m_config.gamma, static_cast<double>(passed));
    }
    case ScheduleName::Exponential:
      return base_lr * std::pow(m_config.gamma, static_cast<double>(step));
    case ScheduleName::Cosine: {
      // torch's closed form. Its step() runs a recursion that equals this one in exact arithmetic, past T_max
      // too (the cosine climbs back up with period 2 * T_max); the tests hold the two together.
      const double period = static_cast<double>(cosinePeriod(m_config, m_total_steps));
      const double eta_min = m_config.eta_min;
      return eta_min + (base_lr - eta_min) * (1 + std::cos(kPi * static_cast<double>(step) / period)) / 2;
    }
    case ScheduleName::OneCycle:
      return oneCycleLr(m_config, base_lr, mainSteps(m_config, m_total_steps), step);
    case ScheduleName::Plateau:
      return base_lr * plateau_scale;  // constant between validations
    case ScheduleName::Linear:
      break;  // above: its warmup is its own
  }
  return base_lr;
}

void LrSchedule::observeValidation(double metric) {
  if (m_config.name != ScheduleName::Plateau) {
    return;
  }
  // ReduceLROnPlateau.step(): an unset best is the worst value of the mode, so the first finite metric wins.
  const bool minimize = m_config.plateau_mode == PlateauMode::Min;
  const bool relative = m_config.threshold_mode == ThresholdMode::Rel;
  const double worst =
      minimize ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  const double best = m_has_best ? m_best : worst;
  const double threshold = m_config.threshold;
  bool better = false;
  if (minimize) {
    better = relative ? metric < best * (1.0 - threshold) : metric < best - threshold;
  } else {
    better = relative ? metric > best * (threshold + 1.0) : metric > best + threshold;
  }
  if (better) {
    m_best = metric;
    m_has_best = true;
    m_bad_epochs = 0;
  } else {
    ++m_bad_epochs;
  }
  if (m_cooldown_counter > 0) {
    --m_cooldown_counter;
    m_bad_epochs = 0;  // bad validations during cooldown do not count
  }
  if (m_bad_epochs > m_config.patience) {
    reducePlateau(m_base_lr, m_plateau_scale);
    for (size_t g = 0; g < m_group_base_lrs.size(); ++g)
      reducePlateau(m_group_base_lrs[g], m_group_plateau_scales[g]);
    m_cooldown_counter = m_config.cooldown;
    m_bad_epochs = 0;
  }
}

// ReduceLROnPlateau's reduction of one group: by factor, not below min_lr, and only by more than its eps.
void LrSchedule::reducePlateau(double base_lr, double& plateau_scale) const {
  const double old_lr = base_lr * plateau_scale;
  const double new_lr = std::max(old_lr * m_config.factor, m_config.min_lr);
  if (old_lr - new_lr > kPlateauEps) {
    plateau_scale = new_lr / base_lr;
  }
}

nlohmann::json LrSchedule::state() const {
  return {
      {"name", m_config.name},
      {"plateau_scale", m_plateau_scale},
      {"best", m_has_best ? encodeMetric(m_best) : nlohmann::json()},
      {"bad_epochs", m_bad_epochs},
      {"cooldown_counter", m_cooldown_counter},
      {"overrides", lrOverridesToJson(m_overrides)},
      {"group_plateau_scales", m_group_plateau_scales},
  };
}

void LrSchedule::loadState(const nlohmann::json& state) {
  // Every schedule saves the plateau counters; a non-plateau run saves them untouched, so loading such a
  // state into a plateau schedule starts the plateau afresh.
  try {
    const double scale = state.at("plateau_scale").get<double>();
    const nlohmann::json& best = state.at("best");
    const int64_t bad_epochs = state.at("bad_epochs").get<int64_t>();
    const int64_t cooldown_counter = state.at("cooldown_counter").get<int64_t>();
    m_plateau_scale = scale;
    m_has_best = !best.is_null();
    m_best = m_has_best ? decodeMetric(best) : 0.0;
    m_bad_epochs = bad_epochs;
    m_cooldown_counter = cooldown_counter;
    m_overrides =
        state.contains("overrides") ? lrOverridesFromJson(state.at("overrides")) : std::vector<LrOverride>();
    // Checkpoints from before per-group rates have none; a group's scale is kept only for the groups saved.
    if (state.contains("group_plateau_scales")) {
      const auto scales = state.at("group_plateau_scales").get<std::vector<double>>();
      for (size_t g = 0; g < scales.size() && g < m_group_plateau_scales.size(); ++g) {
        m_group_plateau_scales[g] = scales[g];
      }
    }
  } catch (const nlohmann::json::exception& error) {
    throw UserError(std::string("the checkpoint's learning-rate schedule state is damaged: ") + error.what(),
                    "resume from another checkpoint, or start the run afresh");
  }
}

}  // namespace wb
