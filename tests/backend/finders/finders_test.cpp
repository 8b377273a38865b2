// The finders (workbench/finders.h) on the CPU:
//   - the LR range test on a small MLP and a Fashion-MNIST subset: the curve descends then diverges, the
//   early
//     stop fires, the suggestion lies in the descending part, a second run gives the same curve, the user's
//     experiment is untouched and nothing is written to its runs folder; cancelling ends it with what it has;
//   - the suggestion rule on made-up curves;
//   - the batch-size finder: a small memory limit finds a batch whose measured peak fits under it, a bigger
//     limit a bigger batch; an injected out-of-memory is caught and the search goes on to the right largest.

#include "workbench/finders.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "support/test_experiments.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

Experiment lrExperiment(const std::string& runs_dir) {
  Experiment e = test::smallMlpExperiment(runs_dir);
  e.train.threads = 1;  // one thread: the same sums in the same order, so two runs give the same curve
  return e;
}

size_t argminSmoothed(const std::vector<LrFinderPoint>& points) {
  return static_cast<size_t>(
      std::min_element(points.begin(), points.end(),
                       [](const auto& a, const auto& b) { return a.smoothed < b.smoothed; }) -
      points.begin());
}

TEST(LrRangeTest, CurveDescendsThenDivergesAndTheSuggestionLiesInTheFall) {
  const std::string runs = test::freshDir("lr-finder");
  const Experiment experiment = lrExperiment(runs);
  const nlohmann::json before = experimentToJson(experiment);
  LrFinderOptions options;  // 1e-7 .. 10 over 100 steps, as fastai
  int progress_calls = 0;
  const LrFinderResult r =
      findLearningRate(experiment, options, {}, [&](const LrFinderPoint&, int64_t planned) {
        ++progress_calls;
        EXPECT_EQ(planned, 100);
      });
  ASSERT_GE(r.points.size(), 20u);
  EXPECT_EQ(progress_calls, static_cast<int>(r.points.size()));
  EXPECT_EQ(r.effective_batch, 64);
  // Adam at lr 10 diverges long before the end: the early stop ends the sweep.
  EXPECT_EQ(r.stop, LrFinderStop::Diverged) << r.stop_reason;
  EXPECT_LT(r.steps_run, 100);
  const auto& p = r.points;
  // Exponential: each step multiplies the rate by the same factor.
  EXPECT_NEAR(p[0].lr, 1e-7, 1e-20);
  EXPECT_NEAR(p[1].lr / p[0].lr, std::pow(1e8, 1.0 / 99), 1e-9);
  // Descends: the smoothed minimum is well below the start; then diverges past 4x that minimum.
  const size_t lowest = argminSmoothed(p);
  // (The smoothed curve lags: with EMA 0.98 its minimum is far above the raw loss's.)
  EXPECT_LT(p[lowest].smoothed, 0.9 * p[0].smoothed);
  const auto raw_lowest =
      std::min_element(p.begin(), p.end(), [](const auto& a, const auto& b) { return a.loss < b.loss; });
  EXPECT_LT(raw_lowest->loss, 0.5 * p[0].loss);
  EXPECT_GT(p.back().smoothed, 4 * p[lowest].smoothed);
  // The suggestion: inside the fall (after the start, not past the minimum), at a loss below the initial one.
  ASSERT_EQ(r.suggestion.rule, LrSuggestionRule::SteepestDescent) << r.suggestion.explanation;
  ASSERT_GE(r.suggestion.index, 0);
  EXPECT_LE(static_cast<size_t>(r.suggestion.index), lowest);
  EXPECT_LT(p[r.suggestion.index].smoothed, p[0].smoothed);
  EXPECT_DOUBLE_EQ(r.suggestion.lr, p[r.suggestion.index].lr);
  EXPECT_DOUBLE_EQ(r.suggestion.min_loss_lr, p[lowest].lr);
  EXPECT_GT(r.suggestion.lr,
            1e-5);  // an MLP with AdamW learns from about 1e-4: the fall is found where it is
  EXPECT_LT(r.suggestion.lr, 1e-1);

  // The user's experiment is as it was, and the finder wrote nothing (no run folder, no index).
  EXPECT_EQ(experimentToJson(experiment), before);
  EXPECT_TRUE(fs::is_empty(runs));

  // Deterministic: the same seed gives the same curve, step for step.
  const LrFinderResult again = findLearningRate(experiment, options);
  ASSERT_EQ(again.points.size(), r.points.size());
  for (size_t i = 0; i < p.size(); ++i) EXPECT_EQ(again.points[i].loss, p[i].loss) << "step " << i;
  EXPECT_EQ(again.suggestion.lr, r.suggestion.lr);
  fs::remove_all(runs);
}

TEST(LrRangeTest, CancelEndsWithThePointsSoFarAndBadOptionsAreRefused) {
  const std::string runs = test::freshDir("lr-finder-cancel");
  const Experiment experiment = lrExperiment(runs);
  int steps = 0;
  FinderCallbacks callbacks;
  callbacks.cancelled = [&] { return steps >= 5; };
  LrFinderOptions options;
  options.steps = 50;
  const LrFinderResult r =
      findLearningRate(experiment, options, callbacks, [&](const LrFinderPoint&, int64_t) { ++steps; });
  EXPECT_EQ(r.stop, LrFinderStop::Cancelled);
  EXPECT_EQ(r.points.size(), 5u);

  LrFinderOptions bad;
  bad.end_lr = bad.start_lr / 2;
  EXPECT_THROW(findLearningRate(experiment, bad), UserError);
  bad = {};
  bad.steps = 1;
  EXPECT_THROW(findLearningRate(experiment, bad), UserError);
  Experiment broken = experiment;
  broken.data.path = runs + "/no-such-folder";
  try {
    findLearningRate(broken, {});
    FAIL() << "a missing dataset folder must be refused";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("data.path"), std::string::npos) << e.what();
  }
  fs::remove_all(runs);
}

std::vector<LrFinderPoint> curve(const std::vector<double>& smoothed) {
  std::vector<LrFinderPoint> points;
  for (size_t i = 0; i < smoothed.size(); ++i) {
    LrFinderPoint p;
    p.step = static_cast<int64_t>(i);
    p.lr = 1e-6 * std::pow(10.0, static_cast<double>(i) / 10);
    p.loss = p.smoothed = smoothed[i];
    points.push_back(p);
  }
  return points;
}

TEST(LrSuggestion, SteepestFallBeforeTheMinimumElseAMinimumOverTenElseNone) {
  // Flat, then a fall that is steepest at index 25, a minimum at 35, then a rise steeper than any fall.
  std::vector<double> v;
  for (int i = 0; i < 50; ++i) {
    if (i < 15)
      v.push_back(2.3);
    else if (i <= 35)
      v.push_back(2.3 - 1.5 / (1 + std::exp(-(i - 25.0))));
    else
      v.push_back(0.8 + 0.5 * (i - 35));
  }
  LrSuggestion s = suggestLearningRate(curve(v));
  EXPECT_EQ(s.rule, LrSuggestionRule::SteepestDescent);
  EXPECT_EQ(s.index, 25);
  EXPECT_DOUBLE_EQ(s.min_loss_lr, curve(v)[35].lr);

  // The minimum 3 points after the skipped start: too few to read a slope, so a tenth of the minimum's rate.
  std::vector<double> short_fall(30, 2.0);
  short_fall[4] = 1.9;
  short_fall[5] = 1.8;
  short_fall[6] = 1.7;
  for (int i = 7; i < 30; ++i) short_fall[i] = 1.7 + 0.3 * (i - 6);
  s = suggestLearningRate(curve(short_fall));
  EXPECT_EQ(s.rule, LrSuggestionRule::MinimumOverTen);
  EXPECT_NEAR(s.lr, curve(short_fall)[6].lr / 10, 1e-15);

  // Rising from the start: no suggestion, and it says to lower the start.
  std::vector<double> rising;
  for (int i = 0; i < 30; ++i) rising.push_back(1.0 + 0.1 * i);
  s = suggestLearningRate(curve(rising));
  EXPECT_EQ(s.rule, LrSuggestionRule::None);
  EXPECT_EQ(s.lr, 0);
  EXPECT_NE(s.explanation.find("start"), std::string::npos);
  EXPECT_EQ(suggestLearningRate({}).rule, LrSuggestionRule::None);
}

// Large inputs (1x128x128, 64 KiB a sample) through a tiny linear model: the step's memory is mostly the
// batch (and the loader's prefetched batches), so it grows by megabytes per doubling, well above the noise.
Experiment memoryHungryExperiment(const std::string& runs_dir) {
  Experiment e;
  e.name = "batch-finder";
  e.seed = 5;
  e.data.dataset = DatasetName::Synthetic;
  e.data.synthetic_samples = 2048;
  e.data.synthetic_classes = 4;
  e.data.synthetic_shape = {1, 128, 128};
  e.data.val_fraction = 0;
  e.data.augment_enabled = false;
  e.model.preset = "";
  e.model.layers = nlohmann::json::array({{{"type", "flatten"}},
                                          {{"type", "linear"}, {"out_features", 8}},
                                          {{"type", "relu"}},
                                          {{"type", "linear"}, {"out_features", 4}}});
  e.train.threads = 2;
  e.output.runs_dir = runs_dir;
  return e;
}

// Every trial, for failure messages.
std::string describe(const BatchFinderResult& r) {
  std::string out = r.stop_reason + "\n";
  for (const auto& t : r.trials) {
    out += std::to_string(t.batch_size) + " " + toString(t.outcome) + " " + formatBytes(t.peak_bytes) + "\n";
  }
  return out;
}

const BatchTrial* trialOf(const BatchFinderResult& r, int64_t batch) {
  for (const auto& t : r.trials)
    if (t.batch_size == batch) return &t;
  return nullptr;
}

TEST(BatchSizeFinder, ASmallLimitFindsABatchThatFitsUnderItAndABiggerLimitABiggerBatch) {
  const std::string runs = test::freshDir("batch-finder");
  const Experiment experiment = memoryHungryExperiment(runs);
  const nlohmann::json before = experimentToJson(experiment);
  BatchFinderOptions options;
  options.max_batch = 1024;
  options.timed_steps = 1;
  options.max_memory_bytes = parseByteSize("64GiB");
  // A first search warms up what the process keeps for itself once it has run a step of every size (the math
  // library's buffers and code: pip torch's MKL kept 60 MiB more after it), so that the searches compared
  // below start from the same resident memory, which each trial's peak is counted over.
  findBatchSize(experiment, options);
  const BatchFinderResult all = findBatchSize(experiment, options);
  // Everything up to the cap fits; the search doubled 1, 2, ..., 1024.
  EXPECT_EQ(all.largest, 1024) << all.stop_reason;
  EXPECT_EQ(all.suggested, 1024);
  ASSERT_EQ(all.trials.size(), 11u);
  for (const auto& t : all.trials) {
    EXPECT_EQ(t.outcome, BatchTrialOutcome::Fits) << t.batch_size;
    EXPECT_GT(t.samples_per_sec, 0) << t.batch_size;
  }
  // What each trial allocates, from the sizes it really allocates: B samples of 1x128x128 float32 (64 KiB
  // each) in the batch the step trains on, plus up to the loader's prefetch (2) batches it prepares meanwhile
  // on its own thread (how many are ready at the step's peak is the threads' timing); an 8-unit linear
  // layer's activations and the labels are a few KiB. Gradients and Adam's state (1 MiB) are allocated by the
  // first trial and held by all, so against the first trial (batch 1) each trial's peak grows by 1 to 3
  // batches. The peaks count tensors, not resident pages: what the C library keeps of freed blocks does not
  // show.
  const int64_t p1 = trialOf(all, 1)->peak_bytes;
  constexpr int64_t kSample = int64_t{128} * 128 * 4;
  for (const auto& t : all.trials) {
    if (t.batch_size < 64) continue;
    const int64_t batch = t.batch_size * kSample;
    EXPECT_GE(t.peak_bytes - p1, batch - 3 * kSample) << describe(all);
    EXPECT_LE(t.peak_bytes - p1, 3 * batch + (1 << 20)) << describe(all);
  }

  // A limit that 128 (at most 3 x 8 MiB) always fits under and 1024 (at least 64 MiB) never does, half-way
  // (20 MiB from either, more than the resident memory the searches start from differs): the finder stops
  // below 1024, and what it reports fits under it.
  const int64_t p1024 = trialOf(all, 1024)->peak_bytes;
  options.max_memory_bytes = p1 + (3 * 128 * kSample + 1024 * kSample) / 2;
  const BatchFinderResult small = findBatchSize(experiment, options);
  EXPECT_GE(small.largest, 128) << describe(all) << "limit " << formatBytes(options.max_memory_bytes) << "\n"
                                << describe(small);
  EXPECT_LT(small.largest, 1024) << describe(small);
  const BatchTrial* chosen = trialOf(small, small.largest);
  ASSERT_NE(chosen, nullptr);
  EXPECT_LE(chosen->peak_bytes, options.max_memory_bytes);
  bool over = false;
  for (const auto& t : small.trials) {
    if (t.outcome == BatchTrialOutcome::OverLimit) {
      over = true;
      EXPECT_GT(t.peak_bytes, options.max_memory_bytes);
      EXPECT_GT(t.batch_size, small.largest);
    }
  }
  EXPECT_TRUE(over);
  // Bisection went on past the last power of two that fit.
  EXPECT_GT(small.trials.size(), 9u) << describe(small);
  EXPECT_LE(small.suggested, small.largest);
  // The suggestion keeps 10 % headroom under the limit: a power of two, or none when none has it.
  EXPECT_TRUE(small.suggested == 0 || (small.suggested & (small.suggested - 1)) == 0) << small.suggested;

  // A bigger limit, a bigger batch: room for 1024 with two more of its batches prefetched.
  options.max_memory_bytes = std::max(p1024, p1 + 3 * 1024 * kSample) + (16 << 20);
  const BatchFinderResult big = findBatchSize(experiment, options);
  EXPECT_EQ(big.largest, 1024) << describe(big);
  EXPECT_GT(big.largest, small.largest);
  EXPECT_LE(trialOf(big, big.largest)->peak_bytes, options.max_memory_bytes);
  EXPECT_EQ(experimentToJson(experiment), before);
  EXPECT_TRUE(fs::is_empty(runs));
  fs::remove_all(runs);
}

TEST(BatchSizeFinder, AnInjectedOutOfMemoryIsCaughtAndTheSearchGoesOn) {
  const std::string runs = test::freshDir("batch-finder-oom");
  Experiment experiment = memoryHungryExperiment(runs);
  experiment.data.synthetic_shape = {1, 16, 16};
  BatchFinderOptions options;
  options.timed_steps = 1;
  options.max_memory_bytes = parseByteSize("64GiB");
  int thrown = 0;
  // What CUDA's caching allocator throws when a step does not fit: above 100 samples, every step fails.
  options.inside_step = [&](int64_t batch) {
    if (batch > 100) {
      ++thrown;
      TORCH_CHECK_WITH(OutOfMemoryError, false, "CUDA out of memory. Tried to allocate 2.00 GiB (injected)");
    }
  };
  std::vector<int64_t> order;
  const BatchFinderResult r =
      findBatchSize(experiment, options, {}, [&](const BatchTrial& t) { order.push_back(t.batch_size); });
  // 1, 2, ..., 64 fit, 128 fails; then bisection: 96 fits, 112 and 104 fail, 100 fits; 100..104 is close
  // enough.
  const std::vector<int64_t> expected = {1, 2, 4, 8, 16, 32, 64, 128, 96, 112, 104, 100};
  EXPECT_EQ(order, expected);
  EXPECT_EQ(r.largest, 100);
  EXPECT_EQ(r.suggested, 64);
  EXPECT_EQ(thrown, 3);
  int failures = 0;
  for (const auto& t : r.trials) {
    if (t.batch_size > 100) {
      EXPECT_EQ(t.outcome, BatchTrialOutcome::OutOfMemory);
      EXPECT_NE(t.note.find("injected"), std::string::npos) << t.note;
      ++failures;
    } else {
      EXPECT_EQ(t.outcome, BatchTrialOutcome::Fits) << t.batch_size;
    }
  }
  EXPECT_EQ(failures, 3);
  fs::remove_all(runs);
}

TEST(ByteSize, ParsesWhatUsersTypeAndRefusesTheRest) {
  EXPECT_EQ(parseByteSize("4GiB"), int64_t{4} << 30);
  EXPECT_EQ(parseByteSize("4G"), int64_t{4} << 30);
  EXPECT_EQ(parseByteSize("512 MiB"), int64_t{512} << 20);
  EXPECT_EQ(parseByteSize("1.5g"), int64_t{3} << 29);
  EXPECT_EQ(parseByteSize("2GB"), int64_t{2000000000});
  EXPECT_EQ(parseByteSize("12345"), 12345);
  EXPECT_EQ(parseByteSize("lots"), -1);
  EXPECT_EQ(parseByteSize("4 potatoes"), -1);
  EXPECT_EQ(parseByteSize(""), -1);
  EXPECT_EQ(formatBytes(int64_t{3} << 29), "1.50 GiB");
  EXPECT_EQ(formatBytes(512), "512 B");
}

}  // namespace
}  // namespace wb
