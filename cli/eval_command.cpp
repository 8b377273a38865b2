#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/evaluation_report.h"

namespace wb::cli {
namespace {

constexpr int64_t kDefaultMisclassified = 10;

// Classification's part of a report (EvaluationReport::task).
nlohmann::json classificationJson(const EvaluationReport& r) {
  nlohmann::json out{{"run_dir", r.run_dir},
                     {"test_loss", r.loss},
                     {"test_accuracy", r.figures.accuracy},
                     {"samples", r.figures.samples},
                     {"correct", r.figures.correct},
                     {"dataset", r.dataset},
                     {"class_names", r.class_names},
                     {"confusion_matrix", r.figures.confusion},
                     {"macro_avg",
                      {{"precision", r.figures.macro_precision},
                       {"recall", r.figures.macro_recall},
                       {"f1", r.figures.macro_f1}}},
                     {"misclassified_total", r.misclassified_total}};
  if (!r.model.empty()) out["model"] = r.model;
  nlohmann::json classes = nlohmann::json::array();
  for (const ClassFigures& c : r.figures.classes) {
    classes.push_back({{"name", c.name},
                       {"precision", c.precision},
                       {"recall", c.recall},
                       {"f1", c.f1},
                       {"support", c.support},
                       {"predicted", c.predicted},
                       {"correct", c.correct}});
  }
  out["classes"] = classes;
  nlohmann::json wrong = nlohmann::json::array();
  for (const MisclassifiedSample& m : r.misclassified) {
    wrong.push_back({{"index", m.index},
                     {"true", m.truth},
                     {"predicted", m.predicted},
                     {"confidence", m.confidence},
                     {"true_probability", m.truth_probability}});
    if (!m.file.empty()) wrong.back()["file"] = m.file;
  }
  out["misclassified"] = wrong;
  return out;
}

void printClassificationReport(const EvaluationReport& r, const std::string& what) {
  const ClassificationFigures& f = r.figures;
  std::printf("%s: test accuracy %.4f, test loss %.4f on %lld samples%s\n", what.c_str(), f.accuracy, r.loss,
              static_cast<long long>(f.samples), r.dataset.empty() ? "" : (" (" + r.dataset + ")").c_str());
  size_t width = 9;  // "macro avg"
  for (const std::string& name : r.class_names) width = std::max(width, name.size() + 5);
  std::printf("\n%-*s %9s %9s %9s %9s\n", static_cast<int>(width), "class", "precision", "recall", "f1",
              "support");
  for (size_t c = 0; c < f.classes.size(); ++c) {
    const ClassFigures& cf = f.classes[c];
    const std::string label = std::to_string(c) + "  " + cf.name;
    std::printf("%-*s %9.4f %9.4f %9.4f %9lld\n", static_cast<int>(width), label.c_str(), cf.precision,
                cf.recall, cf.f1, static_cast<long long>(cf.support));
  }
  std::printf("%-*s %9.4f %9.4f %9.4f %9lld\n", static_cast<int>(width), "macro avg", f.macro_precision,
              f.macro_recall, f.macro_f1, static_cast<long long>(f.samples));

  // Columns by class number (the names are in the table above) so ten classes fit a terminal.
  int cell = 5;
  for (const auto& row : f.confusion) {
    for (const int64_t count : row) cell = std::max(cell, static_cast<int>(std::to_string(count).size()) + 1);
  }
  std::printf("\nconfusion matrix (rows: true class, columns: predicted class)\n%-*s",
              static_cast<int>(width), "");
  for (size_t c = 0; c < f.confusion.size(); ++c) std::printf("%*zu", cell, c);
  std::printf("\n");
  for (size_t t = 0; t < f.confusion.size(); ++t) {
    const std::string label = std::to_string(t) + "  " + (t < r.class_names.size() ? r.class_names[t] : "");
    std::printf("%-*s", static_cast<int>(width), label.c_str());
    for (const int64_t count : f.confusion[t]) std::printf("%*lld", cell, static_cast<long long>(count));
    std::printf("\n");
  }

  std::printf("\n%lld misclassified", static_cast<long long>(r.misclassified_total));
  if (r.misclassified.empty()) {
    std::printf("\n");
    return;
  }
  std::printf("; the %zu most confident mistakes:\n", r.misclassified.size());
  for (const MisclassifiedSample& m : r.misclassified) {
    const auto name = [&r](int64_t c) {
      return c >= 0 && static_cast<size_t>(c) < r.class_names.size() ? r.class_names[static_cast<size_t>(c)]
                                                                     : std::to_string(c);
    };
    std::printf("  test #%-6lld predicted %-14s (%5.1f %%)  true %s (%.1f %%)\n",
                static_cast<long long>(m.index), name(m.predicted).c_str(), m.confidence * 100,
                name(m.truth).c_str(), m.truth_probability * 100);
    if (!m.file.empty()) std::printf("           %s\n", m.file.c_str());
  }
}

// A report as its task reports it: one case per TaskKind and no default, so a new task that is not printed
// yet is a compiler warning here (-Wswitch).
nlohmann::json evaluationJson(const EvaluationReport& r) {
  nlohmann::json out;
  switch (r.task) {
    case TaskKind::Classification:
      out = classificationJson(r);
      break;
  }
  out["task"] = wordString(r.task);
  return out;
}

void printReport(const EvaluationReport& r, const std::string& what) {
  switch (r.task) {
    case TaskKind::Classification:
      printClassificationReport(r, what);
      return;
  }
}

struct EvalOptions {
  std::string run_dir;
  bool json = false;
  EvaluationOptions evaluation;
};

int evaluate(const EvalOptions& o) {
  const EvaluationReport report = evaluateRunDetailed(o.run_dir, o.evaluation);
  if (!report.note.empty()) std::cerr << "warning: " << report.note << "\n";
  if (o.json) {
    nlohmann::json j = evaluationJson(report);
    if (!report.note.empty()) j["note"] = report.note;
    std::cout << j.dump(2) << std::endl;
  } else {
    printReport(report, o.evaluation.model.empty() ? o.run_dir : o.run_dir + " " + o.evaluation.model);
  }
  return kExitOk;
}

}  // namespace

void addEvalCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "eval",
      "evaluate a run's model (or an artifact) on its test split\n"
      "Evaluates the run's model.pt on the test split of its experiment: loss and accuracy, precision, "
      "recall "
      "and F1 per class, the confusion matrix (rows: true class), and the most confident mistakes.",
      "Examples:\n"
      "  workbench-cli eval runs/20261202-141500-cnn-fashion-mnist\n"
      "  workbench-cli eval runs/20261202-141500-cnn-fashion-mnist --model compressed/02-quantize --json\n");
  auto o = std::make_shared<EvalOptions>();
  o->evaluation.max_misclassified = kDefaultMisclassified;
  command->add_option("RUN_DIR", o->run_dir, "the run's folder (`workbench-cli runs` lists them)")
      ->required();
  command
      ->add_option("--model", o->evaluation.model,
                   "a compressed model of the run instead, e.g. compressed/02-quantize")
      ->type_name("ARTIFACT");
  command
      ->add_option("--misclassified", o->evaluation.max_misclassified,
                   "how many of the most confident mistakes to list (default 10; 0 for none)")
      ->type_name("N")
      ->check(takes("a count of 0 or more, e.g. --misclassified 20", wholeNumberFrom(0)));
  command->add_flag(
      "--allow-unfinished", o->evaluation.allow_unfinished,
      "evaluate the model of a run that did not finish (interrupted: its part-trained model of the "
      "step it stopped at); refused without it");
  command->add_flag("--json", o->json,
                    "one JSON object: test_loss, test_accuracy, samples, class_names, classes, macro_avg, "
                    "confusion_matrix, misclassified_total, misclassified");
  setAction(command, [o] { return evaluate(*o); });
}

}  // namespace wb::cli
