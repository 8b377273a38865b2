// A sweep file's trials: its form checked with the field named; a grid in order (the last key fastest) or a
// seeded subset; a seeded random search inside its ranges (log and integer ones too); every key and value
// checked on the base before any trial (unknown key with "did you mean", a value the key does not take); a
// combination the engine's checks refuse becomes a trial with its problem; each trial a whole experiment.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "workbench/errors.h"
#include "workbench/experiment.h"
#include "workbench/sweep.h"

namespace wb {
namespace {

nlohmann::json baseExperiment() {
  return experimentToJson(Experiment{});
}

std::string refusal(const nlohmann::json& doc) {
  try {
    parseSweep(doc, "test.json");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

std::string planRefusal(const nlohmann::json& doc) {
  try {
    planSweep(baseExperiment(), parseSweep(doc, "test.json"));
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(SweepPlan, TheFileIsCheckedNamingWhatIsWrong) {
  const nlohmann::json keys = {{"optimizer.lr", {0.1, 0.01}}};
  EXPECT_NE(refusal({{"name", "s"}, {"keys", keys}, {"trails", 3}}).find("did you mean \"trials\""),
            std::string::npos);
  EXPECT_NE(refusal({{"keys", keys}}).find("\"name\""), std::string::npos);
  EXPECT_NE(refusal({{"name", "a b"}, {"keys", keys}}).find("run folders"), std::string::npos);
  EXPECT_NE(refusal({{"name", "s"}, {"keys", nlohmann::json::object()}}).find("\"keys\""), std::string::npos);
  EXPECT_NE(refusal({{"name", "s"}, {"keys", {{"optimizer.lr", nlohmann::json::array()}}}}).find("no values"),
            std::string::npos);
  const nlohmann::json range = {{"optimizer.lr", {{"min", 0.0}, {"max", 0.1}, {"scale", "log"}}}};
  EXPECT_NE(refusal({{"name", "s"}, {"keys", range}, {"trials", 3}}).find("log scale needs min above 0"),
            std::string::npos);
  EXPECT_NE(
      refusal({{"name", "s"}, {"keys", {{"optimizer.lr", {{"min", 0.01}, {"max", 0.1}}}}}}).find("trials"),
      std::string::npos)
      << "a range needs a number of trials";
  EXPECT_NE(refusal({{"name", "s"}, {"keys", keys}, {"metric", "val_acuracy"}}).find("best_val_accuracy"),
            std::string::npos);
  EXPECT_EQ(refusal({{"name", "s"}, {"keys", keys}, {"metric", "test_loss"}}), "");
  EXPECT_FALSE(parseSweep({{"name", "s"}, {"keys", keys}, {"metric", "test_loss"}}, "t").maximize());
}

// The sweep file's "metric" is read once into SweepMetric: each word to its value and back, the message for
// a word it does not take unchanged.
TEST(SweepPlan, EveryMetricWordIsReadAsItsValue) {
  const nlohmann::json keys = {{"optimizer.lr", {0.1, 0.01}}};
  const std::vector<std::pair<SweepMetric, std::string>> words = {
      {SweepMetric::BestValAccuracy, "best_val_accuracy"},
      {SweepMetric::BestValLoss, "best_val_loss"},
      {SweepMetric::TestAccuracy, "test_accuracy"},
      {SweepMetric::TestLoss, "test_loss"}};
  ASSERT_EQ(allWords<SweepMetric>().size(), words.size()) << "a value was added: add it here";
  for (const auto& [metric, word] : words) {
    EXPECT_EQ(wordString(metric), word);
    const SweepSpec spec = parseSweep({{"name", "s"}, {"keys", keys}, {"metric", word}}, "t");
    EXPECT_EQ(spec.metric, metric) << word;
    EXPECT_EQ(spec.maximize(), word.find("accuracy") != std::string::npos) << word;
  }
  EXPECT_EQ(parseSweep({{"name", "s"}, {"keys", keys}}, "t").metric, SweepMetric::BestValAccuracy);
  EXPECT_NE(
      refusal({{"name", "s"}, {"keys", keys}, {"metric", "test_los"}})
          .find("\"metric\" \"test_los\" is not one of best_val_accuracy, best_val_loss, test_accuracy, "
                "test_loss; did you mean \"test_loss\"?"),
      std::string::npos);
}

TEST(SweepPlan, AGridIsEveryCombinationInOrderOrASeededSubset) {
  const nlohmann::json doc = {
      {"name", "grid"},
      {"keys", {{"optimizer.name", {"adam", "sgd", "adamw"}}, {"optimizer.lr", {0.1, 0.01}}}}};
  const std::vector<SweepTrial> all = planSweep(baseExperiment(), parseSweep(doc, "t"));
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[0].label, "grid-t01");
  EXPECT_EQ(describeOverrides(all[0].overrides), "optimizer.lr=0.1, optimizer.name=adam");
  EXPECT_EQ(describeOverrides(all[1].overrides), "optimizer.lr=0.1, optimizer.name=sgd");
  EXPECT_EQ(describeOverrides(all[5].overrides), "optimizer.lr=0.01, optimizer.name=adamw");
  // Each trial is the whole experiment with its values and its name.
  EXPECT_EQ(all[4].experiment["optimizer"]["name"], "sgd");
  EXPECT_DOUBLE_EQ(all[4].experiment["optimizer"]["lr"].get<double>(), 0.01);
  EXPECT_EQ(all[4].experiment["name"], "grid-t05");
  EXPECT_EQ(all[4].experiment["model"], baseExperiment()["model"]) << "the rest is the base";
  EXPECT_TRUE(all[4].problem.empty());

  nlohmann::json subset = doc;
  subset["trials"] = 3;
  subset["seed"] = 11;
  const std::vector<SweepTrial> a = planSweep(baseExperiment(), parseSweep(subset, "t"));
  const std::vector<SweepTrial> b = planSweep(baseExperiment(), parseSweep(subset, "t"));
  ASSERT_EQ(a.size(), 3u);
  std::set<std::string> drawn;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].overrides, b[i].overrides) << "the same seed, the same trials";
    drawn.insert(a[i].overrides.dump());
  }
  EXPECT_EQ(drawn.size(), 3u) << "no combination twice";
  std::set<std::string> seeds_differ;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    subset["seed"] = seed;
    seeds_differ.insert(planSweep(baseExperiment(), parseSweep(subset, "t"))[0].overrides.dump() +
                        planSweep(baseExperiment(), parseSweep(subset, "t"))[1].overrides.dump());
  }
  EXPECT_GT(seeds_differ.size(), 1u) << "the seed chooses the subset";
}

TEST(SweepPlan, ARandomSearchDrawsInsideItsRangesReproducibly) {
  const nlohmann::json doc = {{"name", "rnd"},
                              {"trials", 40},
                              {"seed", 3},
                              {"keys",
                               {{"optimizer.lr", {{"min", 1e-4}, {"max", 1e-1}, {"scale", "log"}}},
                                {"train.batch_size", {{"min", 16}, {"max", 64}}},
                                {"optimizer.name", {"adam", "sgd"}}}}};
  const std::vector<SweepTrial> trials = planSweep(baseExperiment(), parseSweep(doc, "t"));
  ASSERT_EQ(trials.size(), 40u);
  int below_1e3 = 0;
  std::set<std::string> names;
  for (const SweepTrial& t : trials) {
    const double lr = t.overrides["optimizer.lr"];
    EXPECT_GE(lr, 1e-4);
    EXPECT_LE(lr, 1e-1);
    below_1e3 += lr < 1e-3 ? 1 : 0;
    EXPECT_TRUE(t.overrides["train.batch_size"].is_number_integer()) << t.overrides.dump();
    const int64_t batch = t.overrides["train.batch_size"];
    EXPECT_GE(batch, 16);
    EXPECT_LE(batch, 64);
    names.insert(t.overrides["optimizer.name"].get<std::string>());
    EXPECT_EQ(t.experiment["train"]["batch_size"], batch);
  }
  // Log-uniform: a third of the draws below 1e-3 (uniform would put 1 % there).
  EXPECT_GE(below_1e3, 6);
  EXPECT_EQ(names.size(), 2u);
  EXPECT_EQ(planSweep(baseExperiment(), parseSweep(doc, "t"))[7].overrides, trials[7].overrides);
}

TEST(SweepPlan, KeysAndValuesAreCheckedBeforeAnyTrial) {
  const std::string unknown = planRefusal({{"name", "s"}, {"keys", {{"optimizer.lrr", {0.1}}}}});
  EXPECT_NE(unknown.find("optimizer.lrr"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("did you mean \"lr\""), std::string::npos) << unknown;
  const std::string value = planRefusal({{"name", "s"}, {"keys", {{"optimizer.name", {"adam", "sgdd"}}}}});
  EXPECT_NE(value.find("\"sgdd\""), std::string::npos) << value;
  const std::string range = planRefusal(
      {{"name", "s"}, {"trials", 2}, {"keys", {{"train.batch_size", {{"min", -4}, {"max", 64}}}}}});
  EXPECT_NE(range.find("train.batch_size = -4"), std::string::npos) << range;
}

TEST(SweepPlan, ACombinationTheEngineRefusesIsATrialWithItsProblem) {
  const nlohmann::json doc = {{"name", "s"}, {"keys", {{"train.batch_size", {32, 64}}}}};
  const std::vector<SweepTrial> trials =
      planSweep(baseExperiment(), parseSweep(doc, "t"), [](const Experiment& e) {
        std::vector<ValidationIssue> issues;
        if (e.train.batch_size == 64) issues.push_back({"train.batch_size", "too large for this test"});
        return issues;
      });
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_TRUE(trials[0].problem.empty());
  EXPECT_NE(trials[1].problem.find("too large for this test"), std::string::npos) << trials[1].problem;
}

TEST(SweepPlan, EarlyStoppingIsCheckedNamingTheField) {
  const nlohmann::json keys = {{"optimizer.lr", {0.1, 0.01}}};
  auto with = [&](const nlohmann::json& es) {
    return nlohmann::json{{"name", "s"}, {"keys", keys}, {"early_stopping", es}};
  };
  const SweepSpec spec = parseSweep(with({{"rule", "asha"}, {"eta", 2}, {"grace_epochs", 3}}), "test.json");
  EXPECT_EQ(spec.early_stopping.rule, "asha");
  EXPECT_EQ(spec.early_stopping.eta, 2);
  EXPECT_EQ(spec.early_stopping.grace_epochs, 3);
  EXPECT_EQ(SweepEarlyStopping::fromJson(spec.early_stopping.toJson()).grace_epochs, 3);
  EXPECT_FALSE(parseSweep({{"name", "s"}, {"keys", keys}}, "test.json").early_stopping.enabled());
  EXPECT_NE(refusal(with({{"rule", "hyperband"}})).find("early_stopping.rule"), std::string::npos);
  EXPECT_NE(refusal(with({{"rule", "asha"}, {"eta", 1}})).find("early_stopping.eta"), std::string::npos);
  EXPECT_NE(refusal(with({{"rule", "asha"}, {"grace_epochs", 0}})).find("early_stopping.grace_epochs"),
            std::string::npos);
  EXPECT_NE(refusal(with({{"rule", "asha"}, {"grace", 1}})).find("unknown field \"grace\""),
            std::string::npos);
  // Nothing to compare without validation: refused before any trial.
  nlohmann::json no_validation = baseExperiment();
  no_validation["data"]["val_fraction"] = 0;
  try {
    planSweep(no_validation, parseSweep(with({{"rule", "asha"}}), "test.json"));
    ADD_FAILURE() << "planned without validation";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("data.val_fraction"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wb
