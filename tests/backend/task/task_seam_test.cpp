// The seam: what a run learns is its task's, not the trainer's. A task of the test's own — its loss times
// zero (nothing learns), every sample "seen" — trains through the rank's loop, and the weights, the epoch's
// and the validation's figures and a checkpoint's sums are that task's; the same run with classification
// learns and reports accuracy. Nothing in the step, the metrics or the checkpoint may take the loss or the
// figures from anywhere else.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "support/one_rank.h"
#include "support/test_experiments.h"
#include "task/classification_task.h"

namespace wb {
namespace {

// Learns nothing (its loss is cross-entropy times zero: gradients of zero) and counts every sample as seen,
// reported as "accuracy" 1.
class SeeingTask final : public Task {
 public:
  // Reports its figure by classification's name, so what reads an epoch finds it where accuracy would be.
  TaskKind kind() const override { return TaskKind::Classification; }
  torch::Tensor loss(const torch::Tensor& outputs, const torch::Tensor& targets) const override {
    return m_classes.loss(outputs, targets) * 0.0;
  }
  torch::Tensor lossSum(const torch::Tensor& outputs, const torch::Tensor& targets) const override {
    return m_classes.lossSum(outputs, targets);
  }
  std::vector<std::string> sumNames() const override { return {"seen"}; }
  torch::Tensor figureSums(const torch::Tensor& outputs, const torch::Tensor& /*targets*/) const override {
    return torch::full({1}, static_cast<double>(outputs.size(0)),
                       torch::TensorOptions().dtype(torch::kFloat64).device(outputs.device()));
  }
  std::vector<TaskFigure> figures(const std::vector<double>& sums, int64_t samples) const override {
    return {{"accuracy", samples > 0 ? sums.at(0) / static_cast<double>(samples) : 0.0}};
  }

 private:
  ClassificationTask m_classes;
};

Experiment seamExperiment() {
  Experiment e = test::smallMlpExperiment(test::freshDir("task-seam"));
  test::useSyntheticImages(e, 200, {8}, 4);
  e.data.val_fraction = 0.2;
  e.model.layers = nlohmann::json::parse(R"([{"type": "linear", "out_features": 4}])");
  e.optimizer.name = OptimizerName::Sgd;
  e.optimizer.lr = 0.5;
  e.optimizer.momentum = 0;
  e.optimizer.weight_decay = 0;
  e.train.epochs = 2;
  e.train.max_steps = 0;
  e.train.batch_size = 40;
  e.train.log_every_steps = 1;
  e.train.devices = {"cpu"};
  e.train.checkpoint_every_minutes = 0;
  return e;
}

// The largest change of any parameter from its value before training.
double largestChange(const test::RankRun& run,
                     const std::vector<std::pair<std::string, torch::Tensor>>& before) {
  double change = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    change = std::max(change, (run.parameters[i].second - before[i].second).abs().max().item<double>());
  }
  return change;
}

struct Trained {
  test::RankRun run;
  double change = 0;
};

Trained train(std::shared_ptr<const Task> task) {
  std::vector<std::pair<std::string, torch::Tensor>> before;
  Trained t;
  t.run = test::trainOneRank(
      seamExperiment(),
      [&before](const test::RankRun& run) {
        for (const auto& [name, p] : run.parameters) before.emplace_back(name, p.detach().clone());
        return StepParts();
      },
      std::move(task));
  t.change = largestChange(t.run, before);
  return t;
}

TEST(TaskSeam, TheStepTrainsOnTheTasksLossAndTheMetricsAreItsFigures) {
  const Trained seeing = train(std::make_shared<SeeingTask>());
  EXPECT_EQ(seeing.change, 0.0) << "a loss of zero moved the weights: the step took its loss elsewhere";
  ASSERT_EQ(seeing.run.epochs.size(), 2U);
  for (const EpochMetrics& epoch : seeing.run.epochs) {
    EXPECT_EQ(figureNamed(epoch.train_figures, "accuracy", -1), 1.0) << "epoch " << epoch.epoch;
    EXPECT_EQ(figureNamed(epoch.val_figures, "accuracy", -1), 1.0) << "epoch " << epoch.epoch;
  }
  // The same run classifying learns, and its accuracy is a share of its samples, not all of them.
  const Trained classifying = train(std::make_shared<ClassificationTask>());
  EXPECT_GT(classifying.change, 1e-3);
  ASSERT_EQ(classifying.run.epochs.size(), 2U);
  EXPECT_LT(figureNamed(classifying.run.epochs.back().train_figures, "accuracy", -1), 1.0);
  EXPECT_GT(figureNamed(classifying.run.epochs.back().train_figures, "accuracy", -1), 0.0);
}

TEST(TaskSeam, ACheckpointKeepsTheTasksSumsByTheirNames) {
  const SeeingTask seeing;
  RankProgress progress;
  progress.epoch_samples = 120;
  progress.epoch_figure_sums = {{"seen", 120.0}};
  const nlohmann::json j = progress.toJson();
  ASSERT_TRUE(j.contains("epoch_seen")) << j.dump();
  EXPECT_TRUE(j["epoch_seen"].is_number_integer()) << "a count is written as the integer it is";
  EXPECT_FALSE(j.contains("epoch_correct"));
  EXPECT_EQ(RankProgress::fromJson(j, seeing).figureSums(seeing), std::vector<double>{120.0});
  // Classification's sum is the file's "epoch_correct", as before the task seam; a file without the sum
  // starts it at 0.
  const ClassificationTask classes;
  progress.epoch_figure_sums = {{"correct", 37.0}};
  EXPECT_EQ(progress.toJson().at("epoch_correct"), 37);
  EXPECT_EQ(RankProgress::fromJson(progress.toJson(), classes).figureSums(classes),
            std::vector<double>{37.0});
  EXPECT_EQ(RankProgress::fromJson(j, classes).figureSums(classes), std::vector<double>{0.0});
}

}  // namespace
}  // namespace wb
