// The finders' probe trainer and a run build their step one way (train/rank_step.h): a finder starts from the
// weights the run starts from and takes the run's first step, bit for bit.

#include "finders/probe_trainer.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/model_weights.h"
#include "support/test_experiments.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

TEST(ProbeTrainer, StartsFromTheRunsWeightsAndTakesTheRunsFirstStep) {
  const std::string runs = test::freshDir("probe-vs-run");
  Experiment e = test::smallMlpExperiment(runs);
  e.train.threads = 1;  // the same sums in the same order
  e.train.max_steps = 1;
  e.train.clip_grad_norm = 1.0;  // a configured part of the step, on both sides
  const RunSummary run = trainBlocking(e, [](EventBatch&&) {});
  ASSERT_EQ(run.status, RunStatus::Completed);
  ASSERT_EQ(run.steps, 1);

  ProbeTrainer probe(e, {});
  const std::string before = runs + "/probe-before.pt";
  probe.model().save(before);
  EndlessBatches batches(probe.data().train, probe.loaderOptions(e.train.batch_size));
  probe.step(batches, probe.microBatchesPerStep(), e.optimizer.lr);
  const std::string after = runs + "/probe-after.pt";
  probe.model().save(after);

  // The step moved the weights, and to where the run's first step moved them.
  EXPECT_GT(test::maxWeightDifference(before, after), 0.0);
  test::expectBitIdentical(run.run_dir + "/model.pt", after);
  fs::remove_all(runs);
}

}  // namespace
}  // namespace wb
