#include <iostream>

#include "cli_commands.h"
#include "experiment_args.h"
#include "run_session.h"
#include "workbench/training_run.h"

namespace wb::cli {
namespace {

struct BenchOptions {
  ExperimentArgs experiment;
  int64_t steps = 50;
  int64_t warmup = 10;
  bool steps_given = false;
  bool json = false;
  bool loader_only = false;
};

int benchLoader(const Experiment& experiment, const BenchOptions& o,
                const std::function<void(const std::string&)>& log) {
  const LoaderBenchResult r = benchmarkLoader(experiment, o.steps_given ? o.steps : 50, log);
  if (o.json) {
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
        "%.1f samples/s from the loader alone (%lld samples in %lld batches of %lld, %.2f s, %lld workers; "
        "peak memory %.0f MiB)\n",
        r.samples_per_sec, static_cast<long long>(r.samples), static_cast<long long>(r.batches),
        static_cast<long long>(r.batch_size), r.seconds, static_cast<long long>(r.workers), r.peak_rss_mib);
  }
  return kExitOk;
}

int bench(const BenchOptions& o) {
  if (o.steps == 0 && !o.loader_only) {
    std::cerr << "error: --steps needs a positive integer (0, one epoch, only with --loader)\n";
    return kExitBadInput;
  }
  const std::optional<Experiment> experiment = resolveExperiment(o.experiment);
  if (!experiment) return kExitBadInput;
  const bool json = o.json;
  auto log = [json](const std::string& line) { (json ? std::cerr : std::cout) << line << "\n"; };
  if (o.loader_only) return benchLoader(*experiment, o, log);
  const BenchResult r = benchmarkTraining(*experiment, o.steps, o.warmup, log);
  if (json) {
    std::cout << nlohmann::json{{"samples_per_sec", r.samples_per_sec},
                                {"step_ms", r.step_ms},
                                {"data_ms", r.data_ms},
                                {"compute_ms", r.compute_ms},
                                {"optimizer_ms", r.optimizer_ms},
                                {"cuda_peak_bytes", r.cuda_peak_bytes},
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
}

}  // namespace

void addBenchCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "bench",
      "time training steps, print samples/s\n"
      "Times N training steps (default 50, after 10 warm-up steps) of the experiment's model, data and "
      "batch, "
      "without writing a run folder, and prints samples/s with the time split into data, forward+backward "
      "and "
      "optimizer.",
      "Examples:\n"
      "  workbench-cli bench --set model.preset=mlp --set train.batch_size=64 --steps 100\n"
      "  workbench-cli bench --example vit --set train.amp=bf16\n"
      "  workbench-cli bench --loader --steps 0 --set data.dataset=image_folder --set data.path=DIR --set "
      "data.workers=2\n");
  auto o = std::make_shared<BenchOptions>();
  addExperimentArgs(command, o->experiment);
  const CLI::Option* steps = command->add_option("--steps", o->steps, "timed steps (default 50)")
                                 ->type_name("N")
                                 ->check(takes("a positive integer", wholeNumberFrom(0)));
  command->add_option("--warmup", o->warmup, "untimed steps first (default 10)")
      ->type_name("N")
      ->check(takes("a positive integer", wholeNumberFrom(0)));
  command->add_flag(
      "--loader", o->loader_only,
      "time the data loader alone (its workers, transforms, augmentation), no model: N batches, or "
      "one epoch with --steps 0; prints images/s and the peak memory");
  command->add_flag("--json", o->json, "print the figures as one JSON object");
  setAction(command, [o, steps] {
    o->steps_given = steps->count() > 0;
    return bench(*o);
  });
}

}  // namespace wb::cli
