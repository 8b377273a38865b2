// workbench-cli find-batch: the batch-size finder (workbench/finders.h) on the experiment's model, data and
// device.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli_commands.h"
#include "experiment_args.h"
#include "finder_run.h"
#include "run_session.h"
#include "workbench/finders.h"

namespace wb::cli {
namespace {

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

struct FindBatchOptions {
  ExperimentArgs experiment;
  BatchFinderOptions finder;
  std::string max_memory;
  bool json = false;
};

int findBatch(FindBatchOptions o) {
  if (!o.max_memory.empty()) o.finder.max_memory_bytes = parseByteSize(o.max_memory);  // checked when parsed
  const std::optional<Experiment> experiment = resolveExperiment(o.experiment);
  if (!experiment) return kExitBadInput;
  const bool json = o.json;
  BatchFinderResult r;
  const int status = runFinder("The finder", [&](const FinderCallbacks& callbacks) {
    r = findBatchSize(*experiment, o.finder, callbacks);
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

}  // namespace

void addFindBatchCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "find-batch",
      "the largest batch that fits the device's memory\n"
      "Finds the largest train.batch_size whose training step (forward, backward, optimizer, AMP as "
      "configured) "
      "fits the memory of the experiment's first device, by trial: sizes double from --start until one does "
      "not "
      "fit, then the finder bisects between the last fit and the first failure. On a GPU a failed allocation "
      "(CUDA out of memory) is the verdict: it is caught, the memory released, and the search goes on. On "
      "the "
      "CPU nothing fails before the system's OOM killer, so each trial's peak resident memory is measured "
      "against "
      "a limit: --max-memory, or what the system has available. Prints each size's memory and samples/s, the "
      "largest that fits and a suggestion: the largest power of two within the headroom. Writes no run "
      "folder. "
      "Ctrl-C ends it early.",
      "Examples:\n"
      "  workbench-cli find-batch my-experiment.json --set train.devices=cuda:0\n"
      "  workbench-cli find-batch --set model.preset=cnn --max-memory 2GiB\n"
      "\n"
      "Exit status: 0 done, 2 bad input, 1 failure.\n");
  auto o = std::make_shared<FindBatchOptions>();
  addExperimentArgs(command, o->experiment);
  command
      ->add_option("--max-memory", o->max_memory,
                   "the limit: 4GiB, 512MiB, 2GB (default: what the device has free)")
      ->type_name("SIZE")
      ->check(takes("a size such as 4GiB, 512MiB or 2GB",
                    [](const std::string& text) { return parseByteSize(text) > 0; }));
  command->add_option("--start", o->finder.start_batch, "the first size tried (default 1)")
      ->type_name("N")
      ->check(takes("a whole number of at least 1", wholeNumberFrom(1)));
  command
      ->add_option("--max-batch", o->finder.max_batch,
                   "the largest size tried (default: the training split's size)")
      ->type_name("N")
      ->check(takes("a whole number of at least 1", wholeNumberFrom(1)));
  command->add_option("--headroom", o->finder.headroom, "the suggestion's share of the limit (default 0.9)")
      ->type_name("F")
      ->check(takes("a share in (0, 1], e.g. 0.9", numberWhere([](double x) { return x > 0 && x <= 1; })));
  command->add_flag("--json", o->json, "one JSON object on stdout");
  setAction(command, [o] { return findBatch(*o); });
}

}  // namespace wb::cli
