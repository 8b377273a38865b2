#include "train/training_plan.h"

#include <gtest/gtest.h>

namespace wb {
namespace {

TEST(TrainingPlan, EpochsTimesStepsPerEpoch) {
  TrainConfig t;
  t.epochs = 3;
  t.batch_size = 100;
  const TrainingPlan p = planTraining(t, 1050);
  EXPECT_EQ(p.batches_per_epoch, 11);  // the short last batch counts
  EXPECT_EQ(p.steps_per_epoch, 11);
  EXPECT_EQ(p.total_steps, 33);
  EXPECT_EQ(p.epochs, 3);
}

TEST(TrainingPlan, GradientAccumulationGroupsBatches) {
  TrainConfig t;
  t.epochs = 2;
  t.batch_size = 10;
  t.grad_accum = 4;
  const TrainingPlan p = planTraining(t, 100);  // 10 batches → steps of 4, 4, 2
  EXPECT_EQ(p.steps_per_epoch, 3);
  EXPECT_EQ(p.total_steps, 6);
}

TEST(TrainingPlan, MaxStepsCutsTheRunShort) {
  TrainConfig t;
  t.epochs = 10;
  t.max_steps = 25;
  t.batch_size = 10;
  const TrainingPlan p = planTraining(t, 100);
  EXPECT_EQ(p.total_steps, 25);
  EXPECT_EQ(p.epochs, 3);
}

TEST(TrainingPlan, MaxStepsAloneDecidesTheEpochs) {
  TrainConfig t;
  t.epochs = 0;
  t.max_steps = 31;
  t.batch_size = 10;
  const TrainingPlan p = planTraining(t, 100);
  EXPECT_EQ(p.total_steps, 31);
  EXPECT_EQ(p.epochs, 4);
}

}  // namespace
}  // namespace wb
