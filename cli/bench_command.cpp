#include <iostream>

#include "cli_commands.h"
#include "experiment_args.h"
#include "run_session.h"
#include "workbench/errors.h"
#include "workbench/training_run.h"

namespace wb::cli {

int benchCommand(const std::vector<std::string>& args) {
  const char* help =
      "usage: workbench-cli bench [EXPERIMENT.json] [--steps N] [--warmup N] [--loader] [--set "
      "key.path=value ...]\n"
      "                           [--json]\n"
      "\n"
      "Times N training steps (default 50, after 10 warm-up steps) of the experiment's model, data and "
      "batch,\n"
      "without writing a run folder, and prints samples/s with the time split into data, forward+backward "
      "and\n"
      "optimizer.\n"
      "\n"
      "  --steps N        timed steps (default 50)\n"
      "  --warmup N       untimed steps first (default 10)\n"
      "  --loader         time the data loader alone (its workers, transforms, augmentation), no model: N "
      "batches,\n"
      "                   or one epoch with --steps 0; prints images/s and the peak memory\n"
      "  --set key=value  override one key, as train does; --example NAME: an installed example\n"
      "  --json           print the figures as one JSON object\n"
      "\n"
      "Examples:\n"
      "  workbench-cli bench --set model.preset=mlp --set train.batch_size=64 --steps 100\n"
      "  workbench-cli bench --example vit --set train.amp=bf16\n"
      "  workbench-cli bench --loader --steps 0 --set data.dataset=image_folder --set data.path=DIR --set "
      "data.workers=2\n";
  ExperimentArgs exp_args;
  std::vector<std::string> rest;
  if (!parseExperimentArgs(args, exp_args, rest, {"--steps", "--warmup"})) return kExitBadInput;
  int64_t steps = 50, warmup = 10;
  bool json = false;
  bool loader_only = false;
  bool steps_given = false;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string& a = rest[i];
    auto number = [&](int64_t& target) {
      if (i + 1 >= rest.size()) return false;
      try {
        target = std::stoll(rest[++i]);
      } catch (const std::exception&) {
        return false;
      }
      return target >= 0;
    };
    if (a == "--help" || a == "-h") {
      std::cout << help;
      return kExitOk;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--loader") {
      loader_only = true;
    } else if (a == "--steps" || a == "--warmup") {
      steps_given = steps_given || a == "--steps";
      if (!number(a == "--steps" ? steps : warmup)) {
        std::cerr << "error: " << a << " needs a positive integer\n";
        return kExitBadInput;
      }
    } else {
      std::cerr << "error: unknown argument '" << a << "' for bench\n\n" << help;
      return kExitBadInput;
    }
  }
  if (steps == 0 && !loader_only) {
    std::cerr << "error: --steps needs a positive integer (0, one epoch, only with --loader)\n";
    return kExitBadInput;
  }
  const std::optional<Experiment> experiment = resolveExperiment(exp_args);
  if (!experiment) return kExitBadInput;
  try {
    auto log = [json](const std::string& line) { (json ? std::cerr : std::cout) << line << "\n"; };
    if (loader_only) {
      const LoaderBenchResult r = benchmarkLoader(*experiment, steps_given ? steps : 50, log);
      if (json) {
        std::cout << nlohmann::json{{"samples_per_sec", r.samples_per_sec},
                                    {"samples", r.samples},
                                    {"batches", r.batches},
                                    {"batch_size", r.batch_size},
                                    {"workers", r.workers},
                                    {"seconds", r.seconds},
                                    {"peak_rss_mib", r.peak_rss_mib}}
                         .dump(2)
                  << std::endl;
      } else {
        std::printf(
            "%.1f samples/s from the loader alone (%lld samples in %lld batches of %lld, %.2f s, %lld "
            "workers; "
            "peak memory %.0f MiB)\n",
            r.samples_per_sec, static_cast<long long>(r.samples), static_cast<long long>(r.batches),
            static_cast<long long>(r.batch_size), r.seconds, static_cast<long long>(r.workers),
            r.peak_rss_mib);
      }
      return kExitOk;
    }
    const BenchResult r = benchmarkTraining(*experiment, steps, warmup, log);
    if (json) {
      std::cout << nlohmann::json{{"samples_per_sec", r.samples_per_sec},
                                  {"step_ms", r.step_ms},
                                  {"data_ms", r.data_ms},
                                  {"compute_ms", r.compute_ms},
                                  {"optimizer_ms", r.optimizer_ms},
                                  {"batch_size", r.batch_size},
                                  {"steps", r.steps}}
                       .dump(2)
                << std::endl;
    } else {
      std::printf(
          "%.1f samples/s  (%.2f ms/step: data %.2f, forward+backward %.2f, optimizer %.2f; batch %lld, %lld "
          "steps)\n",
          r.samples_per_sec, r.step_ms, r.data_ms, r.compute_ms, r.optimizer_ms,
          static_cast<long long>(r.batch_size), static_cast<long long>(r.steps));
    }
    return kExitOk;
  } catch (const UserError& e) {
    printError(e.what(), e.hint());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace wb::cli
