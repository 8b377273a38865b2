// Classification as a task: cross-entropy (mean for the step, summed for a split), the samples whose largest
// logit is their class (ties to the first, as torch.argmax), accuracy from those sums — worked by hand here.

#include "task/classification_task.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "task/make_task.h"

namespace wb {
namespace {

// Three samples of three classes: the second predicts class 2 for class 1 (wrong); the third ties classes 0
// and 1, and argmax takes the first (right).
torch::Tensor logits() {
  return torch::tensor({2.0F, 1.0F, 0.0F, 0.0F, 0.0F, 5.0F, 1.0F, 1.0F, 0.0F}).reshape({3, 3});
}
torch::Tensor targets() {
  return torch::tensor({0, 1, 0}, torch::kInt64);
}

// -log softmax(row)[target], written out.
double crossEntropy(const std::vector<double>& row, int64_t target) {
  double sum = 0;
  for (double v : row) sum += std::exp(v);
  return std::log(sum) - row[static_cast<size_t>(target)];
}

TEST(ClassificationTask, LossIsTheMeanCrossEntropyAndLossSumItsSum) {
  const ClassificationTask task;
  const double expected =
      crossEntropy({2, 1, 0}, 0) + crossEntropy({0, 0, 5}, 1) + crossEntropy({1, 1, 0}, 0);
  EXPECT_NEAR(task.loss(logits(), targets()).item<double>(), expected / 3, 1e-6);
  const torch::Tensor sum = task.lossSum(logits(), targets());
  EXPECT_EQ(sum.scalar_type(), torch::kFloat64);
  EXPECT_NEAR(sum.item<double>(), expected, 1e-5);
}

TEST(ClassificationTask, CountsTheSamplesPredictedRightWithTiesToTheFirstClass) {
  const ClassificationTask task;
  ASSERT_EQ(task.sumNames(), std::vector<std::string>{"correct"});
  const torch::Tensor sums = task.figureSums(logits(), targets());
  EXPECT_EQ(sums.scalar_type(), torch::kFloat64);
  ASSERT_EQ(sums.numel(), 1);
  EXPECT_EQ(sums[0].item<double>(), 2.0);
  const std::vector<TaskFigure> figures = task.figures({2.0}, 3);
  ASSERT_EQ(figures.size(), 1U);
  EXPECT_EQ(figures[0].name, "accuracy");
  EXPECT_DOUBLE_EQ(figures[0].value, 2.0 / 3.0);
  EXPECT_EQ(task.figures({0.0}, 0)[0].value, 0.0);  // no samples: 0, never a division by zero
}

TEST(ClassificationTask, EveryExperimentClassifiesToday) {
  EXPECT_EQ(makeTask(Experiment{})->name(), "classification");
  EXPECT_EQ(figureNamed({{"accuracy", 0.5}}, "accuracy", -1), 0.5);
  EXPECT_EQ(figureNamed({{"accuracy", 0.5}}, "perplexity", -1), -1);
}

}  // namespace
}  // namespace wb
