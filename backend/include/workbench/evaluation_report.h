#pragma once
// A finished run's model on its test split, in detail, as its task reports it (EvaluationReport::task; the
// engine's reporter per task is backend/src/evaluation/split_reporter.h). Classification, the only task
// today: accuracy and loss, the confusion matrix, precision, recall and F1 per class, and the test images it
// got wrong. `workbench-cli eval` prints it; the window's Evaluation view draws it (each by the report's
// task). Plain C++: no Torch type crosses this header.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "workbench/task_words.h"

namespace wb {

struct ClassFigures {
  std::string name;       // "T-shirt/top"; the class index as text when the dataset does not name its classes
  int64_t support = 0;    // test samples of this class (the confusion matrix's row sum)
  int64_t predicted = 0;  // samples predicted as this class (its column sum)
  int64_t correct = 0;    // the diagonal entry
  // correct / predicted, correct / support and their harmonic mean; 0 where the denominator is 0 (as
  // scikit-learn's zero_division=0).
  double precision = 0;
  double recall = 0;
  double f1 = 0;
};

struct ClassificationFigures {
  int64_t samples = 0;
  int64_t correct = 0;
  double accuracy = 0;
  // confusion[t][p]: samples of true class t predicted as class p. Rows sum to the supports, the whole matrix
  // to `samples`, the diagonal to `correct`.
  std::vector<std::vector<int64_t>> confusion;
  std::vector<ClassFigures> classes;
  // Unweighted means over the classes (scikit-learn's "macro" average).
  double macro_precision = 0;
  double macro_recall = 0;
  double macro_f1 = 0;
};

// The figures of a set of predictions. `truth` and `predicted` hold class indices in [0, class_names.size());
// throws std::invalid_argument when their sizes differ or an index is out of range.
ClassificationFigures classificationFigures(const std::vector<int64_t>& truth,
                                            const std::vector<int64_t>& predicted,
                                            const std::vector<std::string>& class_names);

// A test sample the model got wrong, with the image as the model saw it: the test split's pixels after the
// same loading (and before normalization), so a thumbnail shows what was classified.
struct MisclassifiedSample {
  int64_t index = 0;  // position in the test split (the dataset's test file order)
  int64_t truth = 0;
  int64_t predicted = 0;
  double confidence = 0;         // softmax probability of the predicted class
  double truth_probability = 0;  // softmax probability the model gave the true class
  std::string file;  // the image file it was read from (image folders); empty for datasets held in memory
  // Interleaved 8-bit pixels, row by row: height x width x channels (1 gray, 3 RGB). Empty when the samples
  // are not images (csv features).
  int height = 0;
  int width = 0;
  int channels = 0;
  std::vector<uint8_t> pixels;
};

struct EvaluationReport {
  std::string run_dir;
  std::string model;  // "" for the run's model.pt; else the artifact ("compressed/02-quantize")
  std::string note;   // "" for a trained model; else which step a part-trained one is from (allow_unfinished)
  std::string dataset;  // "Fashion-MNIST"
  // What the run learned: which of the parts below its reporter filled (classification's, the only one
  // today).
  TaskKind task = TaskKind::Classification;
  int64_t samples = 0;  // test samples evaluated
  double loss = 0;      // the task's loss, the mean over the test split (classification: cross-entropy)
  // The task's figures on the split by name, as a run's test figures (taskFigureSpecs: classification's
  // accuracy).
  std::vector<TaskFigure> task_figures;
  // Classification's part.
  ClassificationFigures figures;  // figures.accuracy is the test accuracy
  std::vector<std::string> class_names;
  // The most confident mistakes first (highest softmax probability of the wrong class), at most
  // EvaluationOptions::max_misclassified of them.
  std::vector<MisclassifiedSample> misclassified;
  int64_t misclassified_total = 0;  // all mistakes on the split (= samples - correct)
};

struct EvaluationOptions {
  std::string model;  // "" for model.pt, or an artifact of the run ("compressed/02-quantize")
  int64_t max_misclassified = 48;
  // The run's own model of a run that did not finish: refused unless set (then EvaluationReport::note says
  // so).
  bool allow_unfinished = false;
  // Called on the evaluating thread after each batch with samples done and the total; keep it short.
  std::function<void(int64_t done, int64_t total)> progress;
  // Checked between batches: when it turns true the evaluation stops and throws EvaluationCancelled.
  const std::atomic<bool>* cancel = nullptr;
};

class EvaluationCancelled : public std::exception {
 public:
  const char* what() const noexcept override { return "evaluation cancelled"; }
};

// Loads the run's experiment, its test split and its model (or the artifact), and evaluates every test sample
// in eval mode on the run's first device when this machine has it, else the CPU. Throws wb::UserError for a
// folder that is not a finished run or a missing artifact, naming what to do. Blocks: call it off the UI
// thread.
EvaluationReport evaluateRunDetailed(const std::string& run_dir, const EvaluationOptions& options = {});

}  // namespace wb
