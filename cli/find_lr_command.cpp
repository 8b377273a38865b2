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
#include "workbench/errors.h"
#include "workbench/finders.h"

namespace wb::cli {
namespace {

const char* kFindLrHelp =
    "usage: workbench-cli find-lr [EXPERIMENT.json | --example NAME] [--set key.path=value ...]\n"
    "                             [--steps N] [--start LR] [--end LR] [--plot FILE.csv] [--apply FILE.json] "
    "[--json]\n"
    "\n"
    "The learning-rate range test (Leslie Smith; as fastai's lr_find): trains a fresh copy of the "
    "experiment's\n"
    "model (same seed, data, optimizer, device, AMP and effective batch) for N steps while the learning rate "
    "grows\n"
    "exponentially from --start to --end, and stops early once the smoothed loss passes 4x its best. Writes "
    "no run\n"
    "folder and leaves the experiment file alone. Prints the curve (every few steps), why it stopped and "
    "the\n"
    "suggested optimizer.lr: where the smoothed loss falls fastest against log(lr), or a tenth of the rate "
    "at its\n"
    "minimum when the fall is too short to read a slope. Ctrl-C ends it early with what it has.\n"
    "\n"
    "  --steps N        steps of the sweep (default 100)\n"
    "  --start LR       first learning rate (default 1e-7)\n"
    "  --end LR         last learning rate (default 10)\n"
    "  --plot FILE.csv  the whole curve: step, lr, loss, smoothed_loss\n"
    "  --apply FILE     a copy of the experiment with optimizer.lr set to the suggestion (never the input "
    "file)\n"
    "  --json           one JSON object on stdout (the curve, the suggestion and its rule)\n"
    "\n"
    "Examples:\n"
    "  workbench-cli find-lr my-experiment.json\n"
    "  workbench-cli find-lr --set model.preset=mlp --set data.limit=10000 --plot lr.csv --apply tuned.json\n"
    "\n"
    "Exit status: 0 done (also when no rate could be suggested: the text says why), 2 bad input, 1 "
    "failure.\n";

bool parseDouble(const std::string& text, double& out) {
  try {
    size_t used = 0;
    out = std::stod(text, &used);
    return used == text.size() && std::isfinite(out);
  } catch (const std::exception&) {
    return false;
  }
}

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

}  // namespace

int findLrCommand(const std::vector<std::string>& args) {
  ExperimentArgs exp_args;
  std::vector<std::string> rest;
  if (!parseExperimentArgs(args, exp_args, rest, {"--steps", "--start", "--end", "--plot", "--apply"})) {
    return kExitBadInput;
  }
  LrFinderOptions options;
  std::string plot_file, apply_file;
  bool json = false;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string& a = rest[i];
    const bool has_value = i + 1 < rest.size();
    if (a == "--help" || a == "-h") {
      std::cout << kFindLrHelp;
      return kExitOk;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--steps") {
      double steps = 0;
      if (!has_value || !parseDouble(rest[++i], steps) || steps < 2 || steps != std::floor(steps)) {
        std::cerr << "error: --steps needs a whole number of at least 2, e.g. --steps 100\n";
        return kExitBadInput;
      }
      options.steps = static_cast<int64_t>(steps);
    } else if (a == "--start" || a == "--end") {
      double& target = a == "--start" ? options.start_lr : options.end_lr;
      if (!has_value || !parseDouble(rest[++i], target) || target <= 0) {
        std::cerr << "error: " << a << " needs a positive learning rate, e.g. " << a
                  << (a == "--start" ? " 1e-7" : " 10") << "\n";
        return kExitBadInput;
      }
    } else if (a == "--plot" || a == "--apply") {
      if (!has_value) {
        std::cerr << "error: " << a << " needs a file name, e.g. " << a
                  << (a == "--plot" ? " lr.csv" : " tuned.json") << "\n";
        return kExitBadInput;
      }
      (a == "--plot" ? plot_file : apply_file) = rest[++i];
    } else {
      std::cerr << "error: unknown argument '" << a << "' for find-lr\n\n" << kFindLrHelp;
      return kExitBadInput;
    }
  }
  if (!apply_file.empty() && !exp_args.file.empty()) {
    std::error_code ec;
    if (std::filesystem::equivalent(apply_file, exp_args.file, ec)) {
      std::cerr << "error: --apply " << apply_file << " is the experiment file itself\n"
                << "  what to do: give another name; find-lr never overwrites the experiment it read\n";
      return kExitBadInput;
    }
  }
  const std::optional<Experiment> experiment = resolveExperiment(exp_args);
  if (!experiment) return kExitBadInput;

  LrFinderResult r;
  const int status = runFinder("The range test", [&](const FinderCallbacks& callbacks) {
    int64_t shown = -1;
    auto progress = [&](const LrFinderPoint& p, int64_t planned) {
      // A terminal gets a line every tenth of the sweep on stderr; --json keeps stdout for the object.
      const int64_t tenth = std::max<int64_t>(1, planned / 10);
      if (p.step / tenth == shown) return;
      shown = p.step / tenth;
      std::fprintf(stderr, "step %lld/%lld: lr %.2e, loss %.4f\n", static_cast<long long>(p.step + 1),
                   static_cast<long long>(planned), p.lr, p.loss);
    };
    r = findLearningRate(*experiment, options, callbacks, progress);
  });
  if (status != kExitOk) return status;

  if (!plot_file.empty()) {
    std::ofstream out(plot_file);
    out << "step,lr,loss,smoothed_loss\n";
    out.precision(10);
    for (const LrFinderPoint& p : r.points)
      out << p.step << "," << p.lr << "," << p.loss << "," << p.smoothed << "\n";
    out.close();
    if (!out) {
      printError("Cannot write " + plot_file + ".", "Check the folder exists and is writable.");
      return kExitFailure;
    }
  }
  const bool suggested = r.suggestion.rule != LrSuggestionRule::None;
  if (!apply_file.empty() && suggested) {
    Experiment tuned = *experiment;
    tuned.optimizer.lr = r.suggestion.lr;
    std::ofstream out(apply_file);
    out << experimentToJson(tuned).dump(2) << "\n";
    out.close();
    if (!out) {
      printError("Cannot write " + apply_file + ".", "Check the folder exists and is writable.");
      return kExitFailure;
    }
  }
  if (json) {
    nlohmann::json j = lrFinderJson(r);
    if (!apply_file.empty() && suggested) j["applied_to"] = apply_file;
    std::cout << j.dump(2) << std::endl;
    return kExitOk;
  }
  std::printf("LR range test: %s to %s over %lld steps on %s, batch %lld per step\n",
              number(options.start_lr).c_str(), number(options.end_lr).c_str(),
              static_cast<long long>(options.steps), r.device.c_str(),
              static_cast<long long>(r.effective_batch));
  printCurve(r);
  std::printf("Stopped after %lld steps (%.1f s): %s.\n", static_cast<long long>(r.steps_run), r.seconds,
              r.stop_reason.c_str());
  if (!suggested) {
    std::printf("No suggestion: %s\n", r.suggestion.explanation.c_str());
    return kExitOk;
  }
  std::printf("Suggested learning rate: %s\n  rule: %s\n", number(r.suggestion.lr).c_str(),
              r.suggestion.explanation.c_str());
  if (!apply_file.empty()) {
    std::printf("  written to %s (the experiment with optimizer.lr = %s)\n", apply_file.c_str(),
                number(r.suggestion.lr).c_str());
  } else {
    std::printf("  train with it: --set optimizer.lr=%s\n", number(r.suggestion.lr).c_str());
  }
  return kExitOk;
}

}  // namespace wb::cli
