// LrSchedule against torch.optim.lr_scheduler: tests/fixtures/schedules.json holds, for each case, the lr of
// every optimizer step as torch's schedulers produce it (scripts/make_schedule_fixtures.py).

#include "optim/lr_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/test_helpers.h"
#include "workbench/errors.h"

namespace wb {
namespace {

const nlohmann::json& scheduleFixture() {
  static const nlohmann::json fixture = test::loadFixture("schedules.json");
  return fixture;
}

// The value a fixture spells as a word of E's table.
template <typename E>
E wordAt(const nlohmann::json& j, const char* key) {
  return fromWord<E>(j.at(key).get<std::string>()).value();
}

ScheduleConfig scheduleFromJson(const nlohmann::json& j) {
  ScheduleConfig config;
  config.name = wordAt<ScheduleName>(j, "name");
  config.warmup_steps = j.at("warmup_steps").get<int64_t>();
  config.warmup_start_factor = j.at("warmup_start_factor").get<double>();
  config.step_size = j.at("step_size").get<int64_t>();
  config.milestones = j.at("milestones").get<std::vector<int64_t>>();
  config.gamma = j.at("gamma").get<double>();
  config.t_max = j.at("t_max").get<int64_t>();
  config.eta_min = j.at("eta_min").get<double>();
  config.pct_start = j.at("pct_start").get<double>();
  config.anneal_strategy = wordAt<AnnealStrategy>(j, "anneal_strategy");
  config.div_factor = j.at("div_factor").get<double>();
  config.final_div_factor = j.at("final_div_factor").get<double>();
  config.three_phase = j.at("three_phase").get<bool>();
  config.plateau_mode = wordAt<PlateauMode>(j, "plateau_mode");
  config.factor = j.at("factor").get<double>();
  config.patience = j.at("patience").get<int64_t>();
  config.threshold = j.at("threshold").get<double>();
  config.threshold_mode = wordAt<ThresholdMode>(j, "threshold_mode");
  config.cooldown = j.at("cooldown").get<int64_t>();
  config.min_lr = j.at("min_lr").get<double>();
  return config;
}

LrSchedule scheduleFor(const nlohmann::json& fixture_case) {
  return LrSchedule(scheduleFromJson(fixture_case.at("config")), fixture_case.at("base_lr").get<double>(),
                    fixture_case.at("total_steps").get<int64_t>());
}

// Within 1e-12 relative, or 1e-15 absolute for lrs near zero.
bool sameLr(double actual, double expected) {
  return std::abs(actual - expected) <= std::max(1e-12 * std::abs(expected), 1e-15);
}

// Reports validations due before step k, as the trainer does, then checks the lr for each step from `first`.
void expectMatchesFrom(LrSchedule& schedule, const nlohmann::json& fixture_case, int64_t first) {
  const std::vector<double> lrs = fixture_case.at("lrs").get<std::vector<double>>();
  const nlohmann::json validations = fixture_case.value("validations", nlohmann::json::array());
  for (int64_t k = first; k < static_cast<int64_t>(lrs.size()); ++k) {
    for (const nlohmann::json& validation : validations) {
      if (validation.at("step").get<int64_t>() == k) {
        schedule.observeValidation(validation.at("metric").get<double>());
      }
    }
    const double actual = schedule.lrAt(k);
    ASSERT_TRUE(sameLr(actual, lrs[k])) << "step " << k << ": " << actual << " vs torch " << lrs[k];
  }
}

TEST(LrScheduleTest, FixtureCoversEveryScheduleWithAndWithoutWarmup) {
  std::set<std::string> plain;
  std::set<std::string> warmed;
  for (const nlohmann::json& fixture_case : scheduleFixture().at("cases")) {
    const nlohmann::json& config = fixture_case.at("config");
    (config.at("warmup_steps").get<int64_t>() > 0 ? warmed : plain)
        .insert(config.at("name").get<std::string>());
  }
  const std::set<std::string> all = {"constant", "step",     "multistep", "exponential",
                                     "cosine",   "onecycle", "plateau",   "linear"};
  EXPECT_EQ(plain, all);
  EXPECT_EQ(warmed, all);
}

TEST(LrScheduleTest, MatchesTorchAtEveryStep) {
  for (const nlohmann::json& fixture_case : scheduleFixture().at("cases")) {
    SCOPED_TRACE(fixture_case.at("name").get<std::string>());
    LrSchedule schedule = scheduleFor(fixture_case);
    expectMatchesFrom(schedule, fixture_case, 0);
  }
}

TEST(LrScheduleTest, OneCycleHoldsItsLastLrPastTheEnd) {
  int checked = 0;
  for (const nlohmann::json& fixture_case : scheduleFixture().at("cases")) {
    if (fixture_case.at("config").at("name") != "onecycle") {
      continue;
    }
    SCOPED_TRACE(fixture_case.at("name").get<std::string>());
    const LrSchedule schedule = scheduleFor(fixture_case);
    const int64_t total_steps = fixture_case.at("total_steps").get<int64_t>();
    const double last = fixture_case.at("lrs").back().get<double>();
    ASSERT_EQ(fixture_case.at("lrs").size(), static_cast<size_t>(total_steps));
    for (int64_t beyond : {int64_t{0}, int64_t{1}, int64_t{1000}}) {
      const double lr = schedule.lrAt(total_steps + beyond);
      EXPECT_TRUE(sameLr(lr, last)) << "step " << total_steps + beyond << ": " << lr << " vs " << last;
      EXPECT_GT(lr, 0.0);
    }
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

// torch's CosineAnnealingLR.get_lr(), the recursion its step() runs, including the branch at odd multiples
// of T_max that keeps it from dividing by zero.
std::vector<double> torchCosineRecursion(double base_lr, double eta_min, int64_t t_max, int64_t steps) {
  const double pi = 3.141592653589793;
  const double period = static_cast<double>(t_max);
  std::vector<double> lrs = {base_lr};
  for (int64_t epoch = 1; epoch < steps; ++epoch) {
    const double previous = lrs.back();
    const double e = static_cast<double>(epoch);
    if ((epoch - 1 - t_max) % (2 * t_max) == 0) {
      lrs.push_back(previous + (base_lr - eta_min) * (1 - std::cos(pi / period)) / 2);
    } else {
      lrs.push_back((1 + std::cos(pi * e / period)) / (1 + std::cos(pi * (e - 1) / period)) *
                        (previous - eta_min) +
                    eta_min);
    }
  }
  return lrs;
}

TEST(LrScheduleTest, CosineClosedFormFollowsTorchsRecursionOverManyCycles) {
  ScheduleConfig config;
  config.name = ScheduleName::Cosine;
  config.t_max = 1000;
  for (double eta_min : {0.0, 1e-4}) {
    SCOPED_TRACE(eta_min);
    config.eta_min = eta_min;
    const int64_t steps = 5 * config.t_max + 17;
    const LrSchedule schedule(config, 0.1, 2000);
    const std::vector<double> recursion = torchCosineRecursion(0.1, eta_min, config.t_max, steps);
    for (int64_t k = 0; k < steps; ++k) {
      const double expected = recursion[static_cast<size_t>(k)];
      ASSERT_LE(std::abs(schedule.lrAt(k) - expected), 1e-9 * std::abs(expected) + 1e-18) << "step " << k;
    }
  }
}

TEST(LrScheduleTest, PlateauReloadedFromStateContinuesIdentically) {
  int reloads = 0;
  for (const nlohmann::json& fixture_case : scheduleFixture().at("cases")) {
    if (fixture_case.at("config").at("name") != "plateau") {
      continue;
    }
    SCOPED_TRACE(fixture_case.at("name").get<std::string>());
    // Save after each validation (a checkpoint), reload into a fresh schedule, and run the rest from there.
    for (const nlohmann::json& validation : fixture_case.at("validations")) {
      const int64_t resume_at = validation.at("step").get<int64_t>() + 1;
      if (resume_at >= static_cast<int64_t>(fixture_case.at("lrs").size())) {
        continue;
      }
      LrSchedule original = scheduleFor(fixture_case);
      for (const nlohmann::json& earlier : fixture_case.at("validations")) {
        if (earlier.at("step").get<int64_t>() < resume_at) {
          original.observeValidation(earlier.at("metric").get<double>());
        }
      }
      const std::string saved = original.state().dump();
      LrSchedule resumed = scheduleFor(fixture_case);
      resumed.loadState(nlohmann::json::parse(saved));
      SCOPED_TRACE("resumed at step " + std::to_string(resume_at));
      expectMatchesFrom(resumed, fixture_case, resume_at);
      ++reloads;
    }
  }
  EXPECT_GT(reloads, 40);
}

TEST(LrScheduleTest, PlateauStateKeepsAnInfiniteBest) {
  ScheduleConfig config;
  config.name = ScheduleName::Plateau;
  config.plateau_mode = PlateauMode::Max;
  config.patience = 1;
  config.factor = 0.5;
  LrSchedule original(config, 0.1, 100);
  original.observeValidation(std::numeric_limits<double>::infinity());
  LrSchedule resumed(config, 0.1, 100);
  resumed.loadState(nlohmann::json::parse(original.state().dump()));
  // Nothing beats +inf: both must count bad validations and reduce at the same moment.
  for (int i = 0; i < 6; ++i) {
    original.observeValidation(1e300);
    resumed.observeValidation(1e300);
    EXPECT_EQ(resumed.lrAt(0), original.lrAt(0)) << "validation " << i;
  }
  EXPECT_LT(original.lrAt(0), 0.1);
}

TEST(LrScheduleTest, StateOfAnotherScheduleStartsThePlateauAfresh) {
  ScheduleConfig cosine;
  cosine.name = ScheduleName::Cosine;
  ScheduleConfig plateau;
  plateau.name = ScheduleName::Plateau;
  plateau.patience = 0;
  plateau.factor = 0.5;
  LrSchedule fresh(plateau, 0.1, 100);
  LrSchedule loaded(plateau, 0.1, 100);
  loaded.loadState(LrSchedule(cosine, 0.1, 100).state());
  for (double metric : {1.0, 2.0, 3.0, 0.5, 0.6}) {
    fresh.observeValidation(metric);
    loaded.observeValidation(metric);
    EXPECT_EQ(loaded.lrAt(5), fresh.lrAt(5));
  }
  EXPECT_LT(fresh.lrAt(5), 0.1);
}

TEST(LrScheduleTest, DamagedStateIsAUserError) {
  ScheduleConfig config;
  config.name = ScheduleName::Plateau;
  LrSchedule schedule(config, 0.1, 100);
  nlohmann::json state = schedule.state();
  state.erase("bad_epochs");
  EXPECT_THROW(schedule.loadState(state), UserError);
  EXPECT_THROW(schedule.loadState(nlohmann::json::parse(R"({"plateau_scale": "x", "best": null,
      "bad_epochs": 0, "cooldown_counter": 0})")),
               UserError);
}

TEST(LrScheduleTest, ValidationsOnlyMoveThePlateau) {
  ScheduleConfig config;
  config.name = ScheduleName::Exponential;
  config.gamma = 0.9;
  LrSchedule schedule(config, 0.1, 100);
  const double before = schedule.lrAt(7);
  for (int i = 0; i < 20; ++i) {
    schedule.observeValidation(1.0);
  }
  EXPECT_EQ(schedule.lrAt(7), before);
}

TEST(LrScheduleTest, RejectsConfigurationsTorchCannotRun) {
  ScheduleConfig config;
  config.name = ScheduleName::Cosine;
  config.warmup_steps = 100;  // nothing left for the cosine, and no t_max
  EXPECT_THROW(LrSchedule(config, 0.1, 100), UserError);
  config.t_max = 50;
  EXPECT_NO_THROW(LrSchedule(config, 0.1, 100));

  config = ScheduleConfig();
  config.name = ScheduleName::Step;
  config.step_size = 0;
  EXPECT_THROW(LrSchedule(config, 0.1, 100), UserError);

  config = ScheduleConfig();
  config.name = ScheduleName::OneCycle;
  config.pct_start = 0.1;  // the warm-up phase ends at step 0: torch divides by zero
  EXPECT_THROW(LrSchedule(config, 0.1, 10), UserError);
  config.pct_start = 0.3;
  EXPECT_NO_THROW(LrSchedule(config, 0.1, 10));

  config = ScheduleConfig();
  config.name = ScheduleName::Plateau;
  config.factor = 1.0;
  EXPECT_THROW(LrSchedule(config, 0.1, 10), UserError);

  config = ScheduleConfig();
  config.name = ScheduleName::Constant;
  config.warmup_steps = 5;
  config.warmup_start_factor = 0.0;
  EXPECT_THROW(LrSchedule(config, 0.1, 10), UserError);

  config = ScheduleConfig();
  config.name = ScheduleName::Constant;
  EXPECT_THROW(LrSchedule(config, 0.1, 10).lrAt(-1), std::out_of_range);
}

}  // namespace
}  // namespace wb
