// Fixed word sets as types (workbench/word_set.h): each value has its one word, each word its value, and the
// experiment file reads and writes the words while the engine holds the values.
#include "workbench/word_set.h"

#include <gtest/gtest.h>

#include "workbench/experiment.h"
#include "workbench/experiment_keys.h"

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

// The words are the experiment file's format: files written before the enums (and by other tools) hold
// exactly these, so a table that spells one differently would stop them loading.
TEST(WordSet, TheFileKeepsItsWordsAndTheSchemaOffersThem) {
  const auto expectWords = [](const char* key, const std::vector<std::string>& tableWords,
                              const std::vector<std::string>& fileWords) {
    EXPECT_EQ(tableWords, fileWords) << key;
    const ExperimentKey* schemaKey = findExperimentKey(key);
    ASSERT_NE(schemaKey, nullptr) << key;
    EXPECT_EQ(schemaKey->choices, fileWords) << key;
  };
  expectWords("data.dataset", allWords<DatasetName>(),
              {"fashion-mnist", "mnist", "cifar10", "csv", "image_folder", "text", "synthetic"});
  expectWords("data.augment_on", allWords<AugmentPlace>(), {"workers", "device"});
  expectWords("data.images.bad_files", allWords<BadFilePolicy>(), {"error", "skip"});
  expectWords("data.text.bad_rows", allWords<BadFilePolicy>(), {"error", "skip"});
  expectWords("model.weights_mismatch", allWords<WeightsMismatch>(), {"refuse", "skip"});
  expectWords("optimizer.name", allWords<OptimizerName>(), {"sgd", "adam", "adamw", "rmsprop", "adagrad"});
  expectWords("schedule.name", allWords<ScheduleName>(),
              {"constant", "step", "multistep", "exponential", "cosine", "onecycle", "plateau", "linear"});
  expectWords("schedule.anneal_strategy", allWords<AnnealStrategy>(), {"cos", "linear"});
  expectWords("schedule.mode", allWords<PlateauMode>(), {"min", "max"});
  expectWords("schedule.threshold_mode", allWords<ThresholdMode>(), {"rel", "abs"});
  expectWords("train.early_stopping.metric", allWords<ValidationMetric>(), {"val_loss", "val_accuracy"});
  expectWords("train.data_on_device", allWords<AutoSwitch>(), {"auto", "on", "off"});
  expectWords("train.cuda_graphs", allWords<AutoSwitch>(), {"auto", "on", "off"});
  expectWords("train.amp", allWords<Precision>(), {"off", "bf16", "fp16"});
}

// Every value of a word set, set on an experiment, is written as its word and read back as itself.
template <typename E, typename Set>
void expectEveryValueRoundTrips(const std::string& section, const std::string& key, Set set) {
  for (const Word<E>& entry : Words<E>::table) {
    Experiment e;
    e.data.path = "data.csv";    // csv and image_folder need one
    e.data.images.resize = 256;  // augment_on device needs both
    e.data.images.crop = 224;
    e.schedule.milestones = {10};  // multistep needs one
    set(e, entry.value);
    if (e.data.dataset == DatasetName::Text) {  // texts need a text model
      e.model.preset.clear();
      e.model.huggingface = "models/bert";
    }
    const nlohmann::json file = experimentToJson(e);
    EXPECT_EQ(file[section][key], entry.word);
    const ParseResult back = parseExperiment(file);
    ASSERT_TRUE(back.ok()) << entry.word << ": " << back.issues.front().path << ": "
                           << back.issues.front().message;
    EXPECT_EQ(experimentToJson(back.experiment), file) << entry.word;
  }
}

TEST(WordSet, EveryValueIsWrittenAsItsWordAndReadBack) {
  expectEveryValueRoundTrips<DatasetName>("data", "dataset",
                                          [](Experiment& e, DatasetName v) { e.data.dataset = v; });
  expectEveryValueRoundTrips<AugmentPlace>("data", "augment_on", [](Experiment& e, AugmentPlace v) {
    e.data.dataset = DatasetName::ImageFolder;
    e.data.augment_on = v;
  });
  expectEveryValueRoundTrips<OptimizerName>("optimizer", "name",
                                            [](Experiment& e, OptimizerName v) { e.optimizer.name = v; });
  expectEveryValueRoundTrips<ScheduleName>("schedule", "name",
                                           [](Experiment& e, ScheduleName v) { e.schedule.name = v; });
  expectEveryValueRoundTrips<PlateauMode>("schedule", "mode",
                                          [](Experiment& e, PlateauMode v) { e.schedule.plateau_mode = v; });
  expectEveryValueRoundTrips<AutoSwitch>("train", "data_on_device",
                                         [](Experiment& e, AutoSwitch v) { e.train.data_on_device = v; });
  expectEveryValueRoundTrips<AutoSwitch>("train", "cuda_graphs",
                                         [](Experiment& e, AutoSwitch v) { e.train.cuda_graphs = v; });
}

// Test-only word sets for the completeness check: a whole table, one missing its last enumerator, one missing
// an enumerator between others, and one whose values leave a gap (which the check requires not to happen).
enum class WholeShade { Light, Dark, Dim };
enum class ShadeMissingLast { Light, Dark, Dim };
enum class ShadeMissingMiddle { Light, Dark, Dim };
enum class ShadeWithGap { Light = 0, Dark = 2 };

}  // namespace

template <>
struct Words<WholeShade> {
  static constexpr std::array<Word<WholeShade>, 3> table{
      {{WholeShade::Dim, "dim"}, {WholeShade::Light, "light"}, {WholeShade::Dark, "dark"}}};
};
template <>
struct Words<ShadeMissingLast> {
  static constexpr std::array<Word<ShadeMissingLast>, 2> table{
      {{ShadeMissingLast::Light, "light"}, {ShadeMissingLast::Dark, "dark"}}};
};
template <>
struct Words<ShadeMissingMiddle> {
  static constexpr std::array<Word<ShadeMissingMiddle>, 2> table{
      {{ShadeMissingMiddle::Light, "light"}, {ShadeMissingMiddle::Dim, "dim"}}};
};
template <>
struct Words<ShadeWithGap> {
  static constexpr std::array<Word<ShadeWithGap>, 2> table{
      {{ShadeWithGap::Light, "light"}, {ShadeWithGap::Dark, "dark"}}};
};

namespace {

// The check the static_assert beside every table (and inside wordOf, fromWord and allWords) makes: a table
// missing a row must not compile, so the check itself must say no to these (at compile time, and again below
// where the test's report lists it).
static_assert(isWholeWordTable<WholeShade>());
static_assert(!isWholeWordTable<ShadeMissingLast>());
static_assert(!isWholeWordTable<ShadeMissingMiddle>());
static_assert(!isWholeWordTable<ShadeWithGap>());

TEST(WordSet, ATableMissingARowIsNotWhole) {
  EXPECT_TRUE(isWholeWordTable<WholeShade>());
  EXPECT_FALSE(isWholeWordTable<ShadeMissingLast>());
  EXPECT_FALSE(isWholeWordTable<ShadeMissingMiddle>());
  EXPECT_FALSE(isWholeWordTable<ShadeWithGap>());
  EXPECT_EQ(wordOf(WholeShade::Dark), "dark");  // a whole table in any order is used as before
}

}  // namespace
}  // namespace wb
