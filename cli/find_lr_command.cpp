// workbench-cli find-lr: the learning-rate range test (workbench/finders.h) on the experiment's model and
// data.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli_commands.h"
#include "experiment_args.h"
#include "finder_run.h"
#include "run_session.h"
#include "workbench/finders.h"

namespace wb::cli {
namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

nlohmann::json lrFinderJson(const LrFinderResult& r) {
  nlohmann::json points = nlohmann::json::array();
  for (const LrFinderPoint& p : r.points) {
    points.push_back({{"step", p.step}, {"lr", p.lr}, {"loss", p.loss}, {"smoothed_loss", p.smoothed}});
  }
  nlohmann::json j = {{"points", points},
                      {"steps_run", r.steps_run},
                      {"stop", toString(r.stop)},
                      {"stop_reason", r.stop_reason},
                      {"rule", toString(r.suggestion.rule)},
                      {"explanation", r.suggestion.explanation},
                      {"min_loss_lr", r.suggestion.min_loss_lr},
                      {"effective_batch", r.effective_batch},
                      {"device", r.device},
                      {"seconds", r.seconds}};
  j["suggested_lr"] =
      r.suggestion.rule == LrSuggestionRule::None ? nlohmann::json() : nlohmann::json(r.suggestion.lr);
  return j;
}

// About 15 rows: every k-th step, the suggestion's and the last.
void printCurve(const LrFinderResult& r) {
  const size_t n = r.points.size();
  const size_t every = std::max<size_t>(1, (n + 14) / 15);
  std::printf("%6s  %10s  %9s  %9s\n", "step", "lr", "loss", "smoothed");
  for (size_t i = 0; i < n; ++i) {
    const bool marked = static_cast<int64_t>(i) == r.suggestion.index;
    if (i % every != 0 && i + 1 != n && !marked) continue;
    const LrFinderPoint& p = r.points[i];
    std::printf("%6lld  %10.3e  %9.4f  %9.4f%s\n", static_cast<long long>(p.step), p.lr, p.loss, p.smoothed,
                marked ? "  <- suggested" : "");
  }
}

struct FindLrOptions {
  ExperimentArgs experiment;
  LrFinderOptions finder;
  double steps = 100;  // a whole number; read as a number, so 1e3 is taken too
  std::string plot_file, apply_file;
  bool json = false;
};

LrFinderResult runRangeTest(const Experiment& experiment, const LrFinderOptions& options, int& status) {
  LrFinderResult r;
  status = runFinder("The range test", [&](const FinderCallbacks& callbacks) {
    int64_t shown = -1;
    auto progress = [&](const LrFinderPoint& p, int64_t planned) {
      // A terminal gets a line every tenth of the sweep on stderr; --json keeps stdout for the object.
      const int64_t tenth = std::max<int64_t>(1, planned / 10);
      if (p.step / tenth == shown) return;
      shown = p.step / tenth;
      std::fprintf(stderr, "step %lld/%lld: lr %.2e, loss %.4f\n", static_cast<long long>(p.step + 1),
                   static_cast<long long>(planned), p.lr, p.loss);
    };
    r = findLearningRate(experiment, options, callbacks, progress);
  });
  return r;
}

// --plot's CSV and --apply's experiment; false (said) when one cannot be written.
bool writeOutputs(const FindLrOptions& o, const Experiment& experiment, const LrFinderResult& r) {
  if (!o.plot_file.empty()) {
    std::ofstream out(o.plot_file);
    out << "step,lr,loss,smoothed_loss\n";
    out.precision(10);
    for (const LrFinderPoint& p : r.points)
      out << p.step << "," << p.lr << "," << p.loss << "," << p.smoothed << "\n";
    out.close();
    if (!out) {
      printError("Cannot write " + o.plot_file + ".", "Check the folder exists and is writable.");
      return false;
    }
  }
  if (!o.apply_file.empty() && r.suggestion.rule != LrSuggestionRule::None) {
    Experiment tuned = experiment;
    tuned.optimizer.lr = r.suggestion.lr;
    std::ofstream out(o.apply_file);
    out << experimentToJson(tuned).dump(2) << "\n";
    out.close();
    if (!out) {
      printError("Cannot write " + o.apply_file + ".", "Check the folder exists and is writable.");
      return false;
    }
  }
  return true;
}

void printResult(const FindLrOptions& o, const LrFinderResult& r) {
  const LrFinderOptions& options = o.finder;
  std::printf("LR range test: %s to %s over %lld steps on %s, batch %lld per step\n",
              number(options.start_lr).c_str(), number(options.end_lr).c_str(),
              static_cast<long long>(options.steps), r.device.c_str(),
              static_cast<long long>(r.effective_batch));
  printCurve(r);
  std::printf("Stopped after %lld steps (%.1f s): %s.\n", static_cast<long long>(r.steps_run), r.seconds,
              r.stop_reason.c_str());
  if (r.suggestion.rule == LrSuggestionRule::None) {
    std::printf("No suggestion: %s\n", r.suggestion.explanation.c_str());
    return;
  }
  std::printf("Suggested learning rate: %s\n  rule: %s\n", number(r.suggestion.lr).c_str(),
              r.suggestion.explanation.c_str());
  if (!o.apply_file.empty()) {
    std::printf("  written to %s (the experiment with optimizer.lr = %s)\n", o.apply_file.c_str(),
                number(r.suggestion.lr).c_str());
  } else {
    std::printf("  train with it: --set optimizer.lr=%s\n", number(r.suggestion.lr).c_str());
  }
}

int findLr(FindLrOptions o) {
  o.finder.steps = static_cast<int64_t>(o.steps);
  if (!o.apply_file.empty() && !o.experiment.file.empty()) {
    std::error_code ec;
    if (std::filesystem::equivalent(o.apply_file, o.experiment.file, ec)) {
      std::cerr << "error: --apply " << o.apply_file << " is the experiment file itself\n"
                << "  what to do: give another name; find-lr never overwrites the experiment it read\n";
      return kExitBadInput;
    }
  }
  const std::optional<Experiment> experiment = resolveExperiment(o.experiment);
  if (!experiment) return kExitBadInput;
  int status = kExitOk;
  const LrFinderResult r = runRangeTest(*experiment, o.finder, status);
  if (status != kExitOk) return status;
  if (!writeOutputs(o, *experiment, r)) return kExitFailure;
  if (o.json) {
    nlohmann::json j = lrFinderJson(r);
    if (!o.apply_file.empty() && r.suggestion.rule != LrSuggestionRule::None) j["applied_to"] = o.apply_file;
    std::cout << j.dump(2) << std::endl;
    return kExitOk;
  }
  printResult(o, r);
  return kExitOk;
}

}  // namespace

void addFindLrCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "find-lr",
      "learning-rate range test: loss against lr, a suggested lr\n"
      "The learning-rate range test (Leslie Smith; as fastai's lr_find): trains a fresh copy of the "
      "experiment's "
      "model (same seed, data, optimizer, device, AMP and effective batch) for N steps while the learning "
      "rate "
      "grows exponentially from --start to --end, and stops early once the smoothed loss passes 4x its best. "
      "Writes no run folder and leaves the experiment file alone. Prints the curve (every few steps), why it "
      "stopped and the suggested optimizer.lr: where the smoothed loss falls fastest against log(lr), or a "
      "tenth "
      "of the rate at its minimum when the fall is too short to read a slope. Ctrl-C ends it early with what "
      "it "
      "has.",
      "Examples:\n"
      "  workbench-cli find-lr my-experiment.json\n"
      "  workbench-cli find-lr --set model.preset=mlp --set data.limit=10000 --plot lr.csv --apply "
      "tuned.json\n"
      "\n"
      "Exit status: 0 done (also when no rate could be suggested: the text says why), 2 bad input, 1 "
      "failure.\n");
  auto o = std::make_shared<FindLrOptions>();
  addExperimentArgs(command, o->experiment);
  command->add_option("--steps", o->steps, "steps of the sweep (default 100)")
      ->type_name("N")
      ->check(takes("a whole number of at least 2, e.g. --steps 100",
                    numberWhere([](double x) { return x >= 2 && x == std::floor(x); })));
  command->add_option("--start", o->finder.start_lr, "first learning rate (default 1e-7)")
      ->type_name("LR")
      ->check(
          takes("a positive learning rate, e.g. --start 1e-7", numberWhere([](double x) { return x > 0; })));
  command->add_option("--end", o->finder.end_lr, "last learning rate (default 10)")
      ->type_name("LR")
      ->check(takes("a positive learning rate, e.g. --end 10", numberWhere([](double x) { return x > 0; })));
  command->add_option("--plot", o->plot_file, "the whole curve: step, lr, loss, smoothed_loss")
      ->type_name("FILE.csv");
  command
      ->add_option("--apply", o->apply_file,
                   "a copy of the experiment with optimizer.lr set to the suggestion (never the input file)")
      ->type_name("FILE.json");
  command->add_flag("--json", o->json, "one JSON object on stdout (the curve, the suggestion and its rule)");
  setAction(command, [o] { return findLr(*o); });
}

}  // namespace wb::cli
