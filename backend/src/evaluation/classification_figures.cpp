// classificationFigures (declared in workbench/evaluation_report.h): the confusion matrix and the per-class
// figures of a set of predictions, with scikit-learn's conventions (zero_division=0, macro = unweighted
// mean).
#include <stdexcept>

#include "workbench/evaluation_report.h"

namespace wb {
namespace {

double ratio(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

}  // namespace

ClassificationFigures classificationFigures(const std::vector<int64_t>& truth,
                                            const std::vector<int64_t>& predicted,
                                            const std::vector<std::string>& class_names) {
  if (truth.size() != predicted.size()) {
    throw std::invalid_argument("classificationFigures: " + std::to_string(truth.size()) + " labels but " +
                                std::to_string(predicted.size()) + " predictions");
  }
  const auto k = static_cast<int64_t>(class_names.size());
  ClassificationFigures f;
  f.samples = static_cast<int64_t>(truth.size());
  f.confusion.assign(static_cast<size_t>(k), std::vector<int64_t>(static_cast<size_t>(k), 0));
  for (size_t i = 0; i < truth.size(); ++i) {
    const int64_t t = truth[i];
    const int64_t p = predicted[i];
    if (t < 0 || t >= k || p < 0 || p >= k) {
      throw std::invalid_argument("classificationFigures: sample " + std::to_string(i) + " has class " +
                                  std::to_string(t < 0 || t >= k ? t : p) + ", outside 0.." +
                                  std::to_string(k - 1));
    }
    ++f.confusion[static_cast<size_t>(t)][static_cast<size_t>(p)];
  }
  f.classes.resize(static_cast<size_t>(k));
  for (int64_t c = 0; c < k; ++c) {
    ClassFigures& cf = f.classes[static_cast<size_t>(c)];
    cf.name = class_names[static_cast<size_t>(c)];
    cf.correct = f.confusion[static_cast<size_t>(c)][static_cast<size_t>(c)];
    for (int64_t o = 0; o < k; ++o) {
      cf.support += f.confusion[static_cast<size_t>(c)][static_cast<size_t>(o)];
      cf.predicted += f.confusion[static_cast<size_t>(o)][static_cast<size_t>(c)];
    }
    cf.precision = ratio(cf.correct, cf.predicted);
    cf.recall = ratio(cf.correct, cf.support);
    cf.f1 = cf.precision + cf.recall > 0 ? 2 * cf.precision * cf.recall / (cf.precision + cf.recall) : 0.0;
    f.correct += cf.correct;
    f.macro_precision += cf.precision;
    f.macro_recall += cf.recall;
    f.macro_f1 += cf.f1;
  }
  if (k > 0) {
    f.macro_precision /= static_cast<double>(k);
    f.macro_recall /= static_cast<double>(k);
    f.macro_f1 /= static_cast<double>(k);
  }
  f.accuracy = ratio(f.correct, f.samples);
  return f;
}

}  // namespace wb
