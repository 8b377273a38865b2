// Fixed word sets as types (workbench/word_set.h): each value has its one word, each word its value, and the
// experiment file reads and writes the words while the engine holds the values.
#include "workbench/word_set.h"

#include <gtest/gtest.h>

#include "workbench/experiment.h"

namespace wb {
namespace {

TEST(WordSet, EveryPrecisionHasOneWordAndBack) {
  EXPECT_EQ(allWords<Precision>(), (std::vector<std::string>{"off", "bf16", "fp16"}));
  for (const Precision value : {Precision::Off, Precision::Bf16, Precision::Fp16}) {
    EXPECT_EQ(fromWord<Precision>(wordOf(value)), value) << wordString(value);
  }
  EXPECT_FALSE(
      fromWord<Precision>("FP16").has_value());  // exact words only: the file's checks say "did you mean"
  EXPECT_FALSE(fromWord<Precision>("").has_value());
}

TEST(WordSet, TheExperimentFileHoldsTheWordAndTheExperimentTheValue) {
  Experiment e;
  e.train.amp = Precision::Fp16;
  const nlohmann::json file = experimentToJson(e);
  EXPECT_EQ(file["train"]["amp"], "fp16");
  const ParseResult back = parseExperiment(file);
  ASSERT_TRUE(back.ok()) << back.issues.front().message;
  EXPECT_EQ(back.experiment.train.amp, Precision::Fp16);
}

}  // namespace
}  // namespace wb
