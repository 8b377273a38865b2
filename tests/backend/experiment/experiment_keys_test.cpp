// The keys the front ends read (experiment_keys.h): the words a key takes are the ones the parser accepts,
// and "when a key matters" names real keys and real words, so a chooser or a hidden field cannot drift from
// the file.

#include "workbench/experiment_keys.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/experiment/experiment_test_support.h"
#include "workbench/experiment.h"

namespace wb {
namespace {

// A default experiment with `path` ("optimizer.name") set to `value`.
ParseResult parseWith(const std::string& path, const std::string& value) {
  nlohmann::json doc = nlohmann::json::object();
  nlohmann::json* node = &doc;
  for (size_t start = 0;;) {
    const size_t dot = path.find('.', start);
    node = &(*node)[path.substr(start, dot - start)];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  *node = value;
  return parseExperiment(doc);
}

TEST(ExperimentKeys, AChoosersWordsAreExactlyTheOnesTheFileAccepts) {
  int keys_with_choices = 0;
  for (const ExperimentKey& key : experimentKeys()) {
    if (key.choices.empty()) continue;
    ++keys_with_choices;
    EXPECT_EQ(key.kind, ExperimentKeyKind::String) << key.path;
    for (const std::string& word : key.choices) {
      const ParseResult result = parseWith(key.path, word);
      EXPECT_TRUE(test::issueAt(result.issues, key.path) == nullptr) << key.path << " = " << word;
    }
    const ParseResult wrong = parseWith(key.path, "no-such-word");
    EXPECT_NE(test::issueAt(wrong.issues, key.path), nullptr) << key.path;
    // The default is one of them.
    EXPECT_NE(std::find(key.choices.begin(), key.choices.end(), nlohmann::json::parse(key.default_value)),
              key.choices.end())
        << key.path << " defaults to " << key.default_value;
  }
  EXPECT_GE(keys_with_choices, 10);
}

TEST(ExperimentKeys, WhenAKeyMattersNamesAChooserAndItsWords) {
  int conditioned = 0;
  for (const ExperimentKey& key : experimentKeys()) {
    const ExperimentKeyCondition& when = key.applies_when;
    if (when.path.empty()) continue;
    ++conditioned;
    const ExperimentKey* decider = findExperimentKey(when.path);
    ASSERT_NE(decider, nullptr) << key.path << " depends on " << when.path;
    ASSERT_FALSE(decider->choices.empty()) << when.path;
    for (const std::string& value : when.values) {
      EXPECT_NE(std::find(decider->choices.begin(), decider->choices.end(), value), decider->choices.end())
          << key.path << ": " << when.path << " never holds " << value;
    }
  }
  EXPECT_GE(conditioned, 30);
}

TEST(ExperimentKeys, ConditionsReadAsTorchTakesItsArguments) {
  const ExperimentKey* betas = findExperimentKey("optimizer.betas[1]");
  ASSERT_NE(betas, nullptr);
  EXPECT_EQ(betas->path, "optimizer.betas");
  EXPECT_TRUE(betas->applies_when.heldBy("adam"));
  EXPECT_TRUE(betas->applies_when.heldBy("adamw"));
  EXPECT_FALSE(betas->applies_when.heldBy("sgd"));
  EXPECT_EQ(betas->applies_when.describe(), "optimizer.name is adam or adamw");

  const ExperimentKey* eps = findExperimentKey("optimizer.eps");
  ASSERT_NE(eps, nullptr);
  EXPECT_FALSE(eps->applies_when.heldBy("sgd"));
  EXPECT_TRUE(eps->applies_when.heldBy("rmsprop"));
  EXPECT_EQ(eps->applies_when.describe(), "optimizer.name is not sgd");

  // A section's condition holds for each of its keys.
  const ExperimentKey* shape = findExperimentKey("data.synthetic.shape");
  ASSERT_NE(shape, nullptr);
  EXPECT_TRUE(shape->applies_when.heldBy("synthetic"));
  EXPECT_FALSE(shape->applies_when.heldBy("fashion-mnist"));

  const ExperimentKey* gamma = findExperimentKey("schedule.gamma");
  ASSERT_NE(gamma, nullptr);
  EXPECT_EQ(gamma->applies_when.describe(), "schedule.name is step, multistep or exponential");

  const ExperimentKey* lr = findExperimentKey("optimizer.lr");
  ASSERT_NE(lr, nullptr);
  EXPECT_TRUE(lr->applies_when.path.empty());
  EXPECT_TRUE(lr->applies_when.heldBy("anything"));
  EXPECT_EQ(findExperimentKey("optimizer.learning_rate"), nullptr);
}

}  // namespace
}  // namespace wb
