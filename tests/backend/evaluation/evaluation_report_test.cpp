// The detailed evaluation: figures computed right (by hand, and against numpy on the same predictions), and
// on a trained run consistent with the plain evaluation, with mistakes that really are mistakes.
#include "workbench/evaluation_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "data/dataset.h"
#include "data/dataset_catalog.h"
#include "data/dataset_readers.h"
#include "model/model.h"
#include "support/test_experiments.h"
#include "workbench/errors.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

TEST(ClassificationFigures, SmallSetByHand) {
  // true  0 0 0 1 1 2 2 2 2, predicted 0 1 0 1 1 2 0 2 1; class 3 never occurs nor is predicted.
  const std::vector<int64_t> truth = {0, 0, 0, 1, 1, 2, 2, 2, 2};
  const std::vector<int64_t> predicted = {0, 1, 0, 1, 1, 2, 0, 2, 1};
  const ClassificationFigures f = classificationFigures(truth, predicted, {"a", "b", "c", "d"});
  const std::vector<std::vector<int64_t>> confusion = {
      {2, 1, 0, 0}, {0, 2, 0, 0}, {1, 1, 2, 0}, {0, 0, 0, 0}};
  EXPECT_EQ(f.confusion, confusion);
  EXPECT_EQ(f.samples, 9);
  EXPECT_EQ(f.correct, 6);
  EXPECT_DOUBLE_EQ(f.accuracy, 6.0 / 9.0);
  ASSERT_EQ(f.classes.size(), 4u);
  EXPECT_EQ(f.classes[2].name, "c");
  EXPECT_DOUBLE_EQ(f.classes[0].precision, 2.0 / 3.0);  // predicted 0: samples 0, 2 (right), 6 (a 2)
  EXPECT_DOUBLE_EQ(f.classes[0].recall, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(f.classes[1].precision, 0.5);  // predicted 1 four times, two of them 1s
  EXPECT_DOUBLE_EQ(f.classes[1].recall, 1.0);
  EXPECT_NEAR(f.classes[1].f1, 2 * 0.5 * 1.0 / 1.5, 1e-15);
  EXPECT_DOUBLE_EQ(f.classes[2].precision, 1.0);
  EXPECT_DOUBLE_EQ(f.classes[2].recall, 0.5);
  EXPECT_EQ(f.classes[2].support, 4);
  EXPECT_EQ(f.classes[1].predicted, 4);
  // No support and no predictions: 0, as scikit-learn's zero_division=0.
  EXPECT_EQ(f.classes[3].precision, 0.0);
  EXPECT_EQ(f.classes[3].recall, 0.0);
  EXPECT_EQ(f.classes[3].f1, 0.0);
  EXPECT_NEAR(f.macro_precision, (2.0 / 3.0 + 0.5 + 1.0 + 0.0) / 4, 1e-15);

  EXPECT_THROW(classificationFigures({0, 1}, {0}, {"a", "b"}), std::invalid_argument);
  EXPECT_THROW(classificationFigures({0, 2}, {0, 1}, {"a", "b"}), std::invalid_argument);
}

// Random predictions with a bias (so classes differ), figures recomputed by numpy in another process.
TEST(ClassificationFigures, AgreeWithNumpyOnRandomPredictions) {
  const std::string dir = test::freshDir("figures-numpy");
  std::mt19937 rng(11);
  std::uniform_int_distribution<int64_t> cls(0, 6);
  std::uniform_real_distribution<double> coin(0, 1);
  std::vector<int64_t> truth, predicted;
  std::ofstream out(dir + "/pred.txt");
  for (int i = 0; i < 3000; ++i) {
    const int64_t t = cls(rng);
    const int64_t p = coin(rng) < 0.3 + 0.08 * static_cast<double>(t) ? t : cls(rng);
    truth.push_back(t);
    predicted.push_back(p);
    out << t << " " << p << "\n";
  }
  out.close();
  const std::vector<std::string> names = {"0", "1", "2", "3", "4", "5", "6"};
  const ClassificationFigures f = classificationFigures(truth, predicted, names);

  const std::string script = dir + "/figures.py";
  std::ofstream(script)
      << "import numpy as np, sys\n"
         "d = np.loadtxt(sys.argv[1], dtype=np.int64)\n"
         "k = 7\n"
         "m = np.zeros((k, k), dtype=np.int64)\n"
         "np.add.at(m, (d[:, 0], d[:, 1]), 1)\n"
         "tp = np.diag(m).astype(float)\n"
         "prec = np.divide(tp, m.sum(0), out=np.zeros(k), where=m.sum(0) > 0)\n"
         "rec = np.divide(tp, m.sum(1), out=np.zeros(k), where=m.sum(1) > 0)\n"
         "f1 = np.divide(2 * prec * rec, prec + rec, out=np.zeros(k), where=prec + rec > 0)\n"
         "print(' '.join(str(v) for v in m.flatten()))\n"
         "for a in (prec, rec, f1): print(' '.join(repr(float(v)) for v in a))\n";
  const std::string cmd = std::string(WB_PYTHON) + " " + script + " " + dir + "/pred.txt";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::vector<double> numbers;
  double v = 0;
  while (std::fscanf(pipe, "%lf", &v) == 1) numbers.push_back(v);
  ASSERT_EQ(::pclose(pipe), 0);
  ASSERT_EQ(numbers.size(), 49u + 3 * 7u);
  for (size_t t = 0; t < 7; ++t) {
    for (size_t p = 0; p < 7; ++p) EXPECT_EQ(f.confusion[t][p], static_cast<int64_t>(numbers[t * 7 + p]));
  }
  for (size_t c = 0; c < 7; ++c) {
    EXPECT_NEAR(f.classes[c].precision, numbers[49 + c], 1e-12) << c;
    EXPECT_NEAR(f.classes[c].recall, numbers[56 + c], 1e-12) << c;
    EXPECT_NEAR(f.classes[c].f1, numbers[63 + c], 1e-12) << c;
  }
  fs::remove_all(dir);
}

class TrainedRunEvaluation : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_runs = test::freshDir("eval-report");
    Experiment e = test::smallMlpExperiment(s_runs);
    e.train.epochs = 1;
    s_summary = trainBlocking(e, [](EventBatch&&) {});
  }
  static void TearDownTestSuite() { fs::remove_all(s_runs); }
  static std::string s_runs;
  static RunSummary s_summary;
};
std::string TrainedRunEvaluation::s_runs;
RunSummary TrainedRunEvaluation::s_summary;

TEST_F(TrainedRunEvaluation, MatrixAgreesWithThePlainEvaluationAndTheMistakesAreReal) {
  ASSERT_EQ(s_summary.status, RunStatus::Completed);
  std::atomic<int64_t> last_done{0}, total{0};
  EvaluationOptions options;
  options.progress = [&](int64_t done, int64_t all) {
    EXPECT_GT(done, last_done.load());  // progress only moves forward
    last_done = done;
    total = all;
  };
  const EvaluationReport r = evaluateRunDetailed(s_summary.run_dir, options);
  const EvalResult plain = evaluateRunDir(s_summary.run_dir);
  const ClassificationFigures& f = r.figures;

  EXPECT_EQ(total.load(), 10000);
  EXPECT_EQ(last_done.load(), 10000);
  EXPECT_EQ(f.samples, 10000);  // the whole Fashion-MNIST test split
  int64_t sum = 0, diagonal = 0;
  ASSERT_EQ(f.confusion.size(), 10u);
  for (size_t t = 0; t < 10; ++t) {
    for (size_t p = 0; p < 10; ++p) sum += f.confusion[t][p];
    diagonal += f.confusion[t][t];
    EXPECT_EQ(f.classes[t].support, 1000);  // Fashion-MNIST's test split is balanced
  }
  EXPECT_EQ(sum, f.samples);
  EXPECT_DOUBLE_EQ(static_cast<double>(diagonal) / static_cast<double>(sum), plain.accuracy);
  EXPECT_DOUBLE_EQ(f.accuracy, s_summary.test_accuracy);
  EXPECT_NEAR(r.loss, plain.loss, 1e-9);
  EXPECT_EQ(r.misclassified_total, sum - diagonal);
  EXPECT_EQ(r.class_names.front(), "T-shirt/top");
  EXPECT_EQ(r.class_names.back(), "Ankle boot");
  EXPECT_EQ(r.dataset, "Fashion-MNIST");
  // Made by the run's task's reporter, its figures by name as a run's test figures are.
  EXPECT_EQ(r.task, TaskKind::Classification);
  EXPECT_EQ(r.samples, 10000);
  ASSERT_EQ(r.task_figures.size(), 1u);
  EXPECT_EQ(r.task_figures[0].name, "accuracy");
  EXPECT_DOUBLE_EQ(r.task_figures[0].value, plain.accuracy);

  // The 48 most confident mistakes, most confident first, each really wrong under the saved model, with the
  // test file's own pixels.
  ASSERT_EQ(r.misclassified.size(), 48u);
  const ParseResult parsed = loadExperimentFile(s_summary.run_dir + "/experiment.json");
  ASSERT_TRUE(parsed.ok());
  auto model = buildModel(parsed.experiment.model, {1, 28, 28}, 10);
  model->load(s_summary.run_dir + "/model.pt");
  model->train(false);
  const IdxFiles files = findIdxFiles(parsed.experiment.data);
  const RawSplit raw = readIdx(files.test_images, files.test_labels);
  for (size_t k = 0; k < r.misclassified.size(); ++k) {
    const MisclassifiedSample& m = r.misclassified[k];
    if (k > 0) {
      EXPECT_GE(r.misclassified[k - 1].confidence, m.confidence);
    }
    EXPECT_NE(m.predicted, m.truth);
    EXPECT_EQ(m.truth, raw.labels[m.index].item<int64_t>());
    EXPECT_GT(m.confidence, m.truth_probability);
    ASSERT_EQ(m.height, 28);
    ASSERT_EQ(m.width, 28);
    ASSERT_EQ(m.channels, 1);
    const torch::Tensor file_pixels = raw.inputs[m.index].flatten().contiguous();
    ASSERT_EQ(m.pixels.size(), 784u);
    EXPECT_EQ(std::vector<uint8_t>(file_pixels.data_ptr<uint8_t>(), file_pixels.data_ptr<uint8_t>() + 784),
              m.pixels)
        << "test sample " << m.index;
  }
  // The model's own answer on one of them, normalized as the run normalized it.
  torch::NoGradGuard no_grad;
  const Dataset data = loadDataset(parsed.experiment.data, parsed.experiment.seed);
  for (const MisclassifiedSample& m : r.misclassified) {
    const torch::Tensor probabilities = model->forward(data.test.x[m.index].unsqueeze(0)).softmax(1)[0];
    EXPECT_EQ(probabilities.argmax().item<int64_t>(), m.predicted);
    EXPECT_NEAR(probabilities[m.predicted].item<double>(), m.confidence, 1e-5);
    EXPECT_NEAR(probabilities[m.truth].item<double>(), m.truth_probability, 1e-5);
  }
}

TEST_F(TrainedRunEvaluation, CancelStopsAndMissingArtifactsAreNamed) {
  ASSERT_EQ(s_summary.status, RunStatus::Completed);
  std::atomic<bool> cancel{false};
  EvaluationOptions options;
  options.cancel = &cancel;
  options.progress = [&cancel](int64_t, int64_t) { cancel = true; };
  EXPECT_THROW(evaluateRunDetailed(s_summary.run_dir, options), EvaluationCancelled);

  EvaluationOptions artifact;
  artifact.model = "compressed/09-nothing";
  try {
    evaluateRunDetailed(s_summary.run_dir, artifact);
    ADD_FAILURE() << "a missing artifact was evaluated";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("09-nothing"), std::string::npos) << e.what();
  }
  EvaluationOptions few;
  few.max_misclassified = 3;
  EXPECT_EQ(evaluateRunDetailed(s_summary.run_dir, few).misclassified.size(), 3u);
  EXPECT_THROW(evaluateRunDetailed(s_runs + "/not-a-run"), UserError);
}

}  // namespace
}  // namespace wb
