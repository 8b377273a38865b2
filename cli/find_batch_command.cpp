// workbench-cli find-batch: the batch-size finder (workbench/finders.h) on the experiment's model, data and
// device.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli_commands.h"
#include "experiment_args.h"
#include "finder_run.h"
#include "run_session.h"
#include "workbench/errors.h"
#include "workbench/finders.h"

namespace wb::cli {
namespace {

const char* kFindBatchHelp =
    "usage: workbench-cli find-batch [EXPERIMENT.json | --example NAME] [--set key.path=value ...]\n"
    "                                [--max-memory SIZE] [--start N] [--max-batch N] [--headroom F] "
    "[--json]\n"
    "\n"
    "Finds the largest train.batch_size whose training step (forward, backward, optimizer, AMP as "
    "configured) fits\n"
    "the memory of the experiment's first device, by trial: sizes double from --start until one does not "
    "fit, then\n"
    "the finder bisects between the last fit and the first failure. On a GPU a failed allocation (CUDA out "
    "of\n"
    "memory) is the verdict: it is caught, the memory released, and the search goes on. On the CPU nothing "
    "fails\n"
    "before the system's OOM killer, so each trial's peak resident memory is measured against a limit: "
    "--max-memory,\n"
    "or what the system has available. Prints each size's memory and samples/s, the largest that fits and a\n"
    "suggestion: the largest power of two within the headroom. Writes no run folder. Ctrl-C ends it early.\n"
    "\n"
    "  --max-memory SIZE  the limit: 4GiB, 512MiB, 2GB (default: what the device has free)\n"
    "  --start N          the first size tried (default 1)\n"
    "  --max-batch N      the largest size tried (default: the training split's size)\n"
    "  --headroom F       the suggestion's share of the limit (default 0.9)\n"
    "  --json             one JSON object on stdout\n"
    "\n"
    "Examples:\n"
    "  workbench-cli find-batch my-experiment.json --set train.devices=cuda:0\n"
    "  workbench-cli find-batch --set model.preset=cnn --max-memory 2GiB\n"
    "\n"
    "Exit status: 0 done, 2 bad input, 1 failure.\n";

bool parseWhole(const std::string& text, int64_t& out) {
  try {
    size_t used = 0;
    out = std::stoll(text, &used);
    return used == text.size();
  } catch (const std::exception&) {
    return false;
  }
}

nlohmann::json batchFinderJson(const BatchFinderResult& r) {
  nlohmann::json trials = nlohmann::json::array();
  for (const BatchTrial& t : r.trials) {
    trials.push_back({{"batch_size", t.batch_size},
                      {"outcome", toString(t.outcome)},
                      {"peak_bytes", t.peak_bytes},
                      {"samples_per_sec", t.samples_per_sec},
                      {"step_ms", t.step_ms},
                      {"note", t.note}});
  }
  return {{"trials", trials},
          {"largest", r.largest},
          {"suggested", r.suggested},
          {"suggestion_reason", r.suggestion_reason},
          {"limit_bytes", r.limit_bytes},
          {"limit_source", r.limit_source},
          {"memory_measure", r.memory_measure},
          {"device", r.device},
          {"stop_reason", r.stop_reason},
          {"cancelled", r.cancelled},
          {"seconds", r.seconds}};
}

}  // namespace

int findBatchCommand(const std::vector<std::string>& args) {
  ExperimentArgs exp_args;
  std::vector<std::string> rest;
  if (!parseExperimentArgs(args, exp_args, rest, {"--max-memory", "--start", "--max-batch", "--headroom"})) {
    return kExitBadInput;
  }
  BatchFinderOptions options;
  bool json = false;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string& a = rest[i];
    const bool has_value = i + 1 < rest.size();
    if (a == "--help" || a == "-h") {
      std::cout << kFindBatchHelp;
      return kExitOk;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--max-memory") {
      options.max_memory_bytes = has_value ? parseByteSize(rest[++i]) : -1;
      if (options.max_memory_bytes <= 0) {
        std::cerr << "error: --max-memory needs a size such as 4GiB, 512MiB or 2GB"
                  << (has_value ? " (got '" + rest[i] + "')" : std::string()) << "\n";
        return kExitBadInput;
      }
    } else if (a == "--start" || a == "--max-batch") {
      int64_t& target = a == "--start" ? options.start_batch : options.max_batch;
      if (!has_value || !parseWhole(rest[++i], target) || target < 1) {
        std::cerr << "error: " << a << " needs a whole number of at least 1\n";
        return kExitBadInput;
      }
    } else if (a == "--headroom") {
      try {
        options.headroom = has_value ? std::stod(rest[++i]) : -1;
      } catch (const std::exception&) {
        options.headroom = -1;
      }
      if (!(options.headroom > 0 && options.headroom <= 1)) {
        std::cerr << "error: --headroom needs a share in (0, 1], e.g. 0.9\n";
        return kExitBadInput;
      }
    } else {
      std::cerr << "error: unknown argument '" << a << "' for find-batch\n\n" << kFindBatchHelp;
      return kExitBadInput;
    }
  }
  const std::optional<Experiment> experiment = resolveExperiment(exp_args);
  if (!experiment) return kExitBadInput;

  BatchFinderResult r;
  const int status = runFinder("The finder", [&](const FinderCallbacks& callbacks) {
    r = findBatchSize(*experiment, options, callbacks);
  });
  if (status != kExitOk) return status;
  if (json) {
    std::cout << batchFinderJson(r).dump(2) << std::endl;
    return kExitOk;
  }
  std::printf("Batch-size finder on %s: limit %s (%s), measured as the %s\n", r.device.c_str(),
              r.limit_bytes > 0 ? formatBytes(r.limit_bytes).c_str() : "none", r.limit_source.c_str(),
              r.memory_measure.c_str());
  std::printf("%9s  %-15s  %11s  %11s\n", "batch", "outcome", "memory", "samples/s");
  for (const BatchTrial& t : r.trials) {
    std::printf("%9lld  %-15s  %11s  %11s%s%s\n", static_cast<long long>(t.batch_size), toString(t.outcome),
                t.peak_bytes > 0 ? formatBytes(t.peak_bytes).c_str() : "-",
                t.samples_per_sec > 0 ? std::to_string(std::llround(t.samples_per_sec)).c_str() : "-",
                t.note.empty() ? "" : "  ", t.note.c_str());
  }
  std::printf("Stopped (%.1f s): %s.\n", r.seconds, r.stop_reason.c_str());
  if (r.largest > 0) std::printf("Largest batch that fits: %lld\n", static_cast<long long>(r.largest));
  if (r.suggested > 0) {
    std::printf("Suggested train.batch_size: %lld (%s)\n  train with it: --set train.batch_size=%lld\n",
                static_cast<long long>(r.suggested), r.suggestion_reason.c_str(),
                static_cast<long long>(r.suggested));
  } else {
    std::printf("No suggestion: %s.\n", r.suggestion_reason.c_str());
  }
  return kExitOk;
}

}  // namespace wb::cli
