#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_commands.h"
#include "experiment_args.h"
#include "run_session.h"
#include "workbench/compression.h"
#include "workbench/event_json.h"

namespace wb::cli {
namespace {

namespace fs = std::filesystem;

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", digits, value);
  return text;
}

std::string ratio(double value, double original) {
  return original > 0 && value > 0 ? fixed(original / value, 2) + "x" : "-";
}

// The original's latency from the artifact's own session when recorded, else the original's row.
double baselineOf(double own_baseline, double original_row) {
  return own_baseline > 0 ? own_baseline : original_row;
}

void printTable(const std::vector<ArtifactFigures>& artifacts) {
  if (artifacts.empty()) {
    std::cout << "No compressed artifacts yet.\n";
    return;
  }
  const ArtifactFigures& base = artifacts.front();
  std::printf("%-18s %-9s %9s %8s %12s %9s %11s %8s %10s %8s %10s %8s %s\n", "artifact", "pass", "test acc",
              "change", "non-zero", "size MiB", "smaller by", "MFLOPs", "b1 ms", "faster", "b64 ms", "faster",
              "weights");
  for (const ArtifactFigures& a : artifacts) {
    const double change = (a.test_accuracy - base.test_accuracy) * 100;
    std::printf(
        "%-18s %-9s %9s %8s %12lld %9s %11s %8s %10s %8s %10s %8s %s\n", a.name.c_str(),
        artifactPassWord(a.pass).c_str(), fixed(a.test_accuracy, 4).c_str(),
        ((change >= 0 ? "+" : "") + fixed(change, 2)).c_str(), static_cast<long long>(a.nonzero_parameters),
        fixed(a.size_bytes / 1048576.0, 2).c_str(),
        ratio(static_cast<double>(a.size_bytes), static_cast<double>(base.size_bytes)).c_str(),
        fixed(a.flops_per_sample / 1e6, 2).c_str(), fixed(a.latency_ms_batch1, 3).c_str(),
        ratio(a.latency_ms_batch1, baselineOf(a.baseline_latency_ms_batch1, base.latency_ms_batch1)).c_str(),
        fixed(a.latency_ms_batch64, 2).c_str(),
        ratio(a.latency_ms_batch64, baselineOf(a.baseline_latency_ms_batch64, base.latency_ms_batch64))
            .c_str(),
        a.weights_dtype.c_str());
    if (!a.float_layers.empty()) {
      std::string names;
      for (const std::string& l : a.float_layers) names += (names.empty() ? "" : "; ") + l;
      std::printf("%18s left in float: %s\n", "", names.c_str());
    }
  }
  std::printf(
      "(the original first; sizes are the weight files on disk; latency is the median CPU forward time;\n"
      " speedups against the original measured in the same session; --measure measures all again)\n");
}

nlohmann::json compressionJson(const std::string& run_dir, const std::vector<ArtifactFigures>& artifacts,
                               RunStatus status) {
  nlohmann::json list = nlohmann::json::array();
  for (const ArtifactFigures& a : artifacts) list.push_back(artifactFiguresToJson(a));
  return {{"run_dir", run_dir}, {"status", wordString(status)}, {"artifacts", list}};
}

// The compress section for an existing run: its experiment.json with compress.* overrides applied.
std::optional<CompressConfig> runCompressConfig(const std::string& run_dir,
                                                const std::vector<std::string>& overrides) {
  std::ifstream in(run_dir + "/experiment.json");
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (!in || doc.is_discarded()) {
    printError(run_dir + " is not a run folder: it has no readable experiment.json",
               "Give the folder of a finished run (`workbench-cli runs` lists them).");
    return std::nullopt;
  }
  std::vector<ValidationIssue> issues;
  for (const std::string& o : overrides) {
    if (o.rfind("compress", 0) != 0) {
      issues.push_back(
          {o.substr(0, o.find('=')),
           "only compress.* keys can be set when compressing a finished run (its training is done)"});
      continue;
    }
    const auto more = applyOverride(doc, o);
    issues.insert(issues.end(), more.begin(), more.end());
  }
  if (issues.empty()) {
    const ParseResult parsed = parseExperiment(doc);
    for (const ValidationIssue& i : parsed.issues) {
      if (i.path.rfind("compress", 0) == 0) issues.push_back(i);
    }
    if (issues.empty()) {
      if (parsed.experiment.compress.passes.empty()) {
        printError("the run's experiment has no compression passes (compress.passes is empty)",
                   "Give them with --set 'compress.passes=[{\"type\":\"prune\",\"amount\":0.5}]' "
                   "(docs/experiment.md lists the pass keys).");
        return std::nullopt;
      }
      return parsed.experiment.compress;
    }
  }
  std::cerr << "error: the compress section is not valid:\n" << formatIssues(issues) << "\n";
  return std::nullopt;
}

struct CompressOptions {
  ExperimentArgs experiment;
  bool json = false, quiet = false, list = false, measure = false;
};

// compress RUN_DIR: its compress section (with --set compress.* applied), checked against the run; nullopt
// with --measure, which runs no pass.
std::optional<CompressConfig> runConfig(const CompressOptions& o, const std::string& run_dir, bool& ok) {
  ok = false;
  std::optional<CompressConfig> config;
  if (o.measure) {
    if (!o.experiment.overrides.empty()) {
      printError("--measure takes no --set: it only measures what the run has", "Drop the --set options.");
      return config;
    }
  } else {
    config = runCompressConfig(run_dir, o.experiment.overrides);
    if (!config) return config;
  }
  const auto problems = config ? checkCompression(run_dir, *config) : std::vector<ValidationIssue>{};
  if (!problems.empty()) {
    std::cerr << "error: the compress section cannot run on " << run_dir << ":\n"
              << formatIssues(problems) << "\n";
    return config;
  }
  ok = true;
  return config;
}

// compress EXPERIMENT: trains it first (its compress section checked before the training is spent); the
// run's folder, or "" (the exit status in `status`).
std::string trainFirst(const CompressOptions& o, int& status) {
  const std::optional<Experiment> experiment = resolveExperiment(o.experiment);
  status = kExitBadInput;
  if (!experiment) return "";
  if (experiment->compress.passes.empty()) {
    printError("the experiment has no compression passes (compress.passes is empty)",
               "Add a compress section (docs/experiment.md), or --set 'compress.passes=[...]'.");
    return "";
  }
  const int64_t epochs = experiment->train.epochs > 0 ? experiment->train.epochs : 1;
  std::unique_ptr<TrainingRun> training;
  status = watchSession(
      [&](TrainingRun::EventSink sink) {
        training = std::make_unique<TrainingRun>(*experiment, std::move(sink));
        training->start();
        return SessionJob{[&] { training->requestStop(); }, [&] { training->wait(); },
                          /*request_checkpoint=*/{},
                          /*stop_after_epoch=*/{}};
      },
      SessionOptions{false, o.quiet || o.json, epochs, {}},
      [](const RunSummary& s) { return summaryToJson(s); });
  if (status != kExitOk) return "";
  const std::string run_dir = training->summary().run_dir;
  if (!o.quiet && !o.json) std::cout << "Trained " << run_dir << "; compressing it\n";
  return run_dir;
}

int compress(const CompressOptions& o) {
  std::string run_dir;
  std::optional<CompressConfig> config;
  const std::string& file = o.experiment.file;
  if (!file.empty() && fs::is_directory(file)) {
    run_dir = file;
    if (o.list) {
      const auto artifacts = readCompressionReport(run_dir);
      if (o.json) {
        std::cout << compressionJson(run_dir, artifacts, RunStatus::Completed).dump(2) << std::endl;
      } else {
        printTable(artifacts);
      }
      return kExitOk;
    }
    bool ok = false;
    config = runConfig(o, run_dir, ok);
    if (!ok) return kExitBadInput;
  } else {
    if (o.list || o.measure) {
      std::cerr << "error: " << (o.list ? "--list" : "--measure") << " needs a run folder\n";
      return kExitBadInput;
    }
    int status = kExitOk;
    run_dir = trainFirst(o, status);
    if (status != kExitOk) return status;
  }

  std::unique_ptr<CompressionRun> run;
  SessionOptions options{o.json, o.quiet, /*epochs=*/0, {}};  // each training pass has its own epochs
  const int status = watchSession(
      [&](TrainingRun::EventSink sink) {
        run = std::make_unique<CompressionRun>(CompressRequest{run_dir, config, o.measure}, std::move(sink));
        run->start();
        return SessionJob{[&] { run->requestStop(); }, [&] { run->wait(); }, /*request_checkpoint=*/{},
                          /*stop_after_epoch=*/{}};
      },
      options,
      [&](const RunSummary& s) {
        return compressionJson(run_dir, readCompressionReport(run_dir), s.status);
      });
  if (!o.json && !o.quiet && status == kExitOk) printTable(readCompressionReport(run_dir));
  return status;
}

}  // namespace

void addCompressCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "compress",
      "prune, distill, quantize; compare with the original\n"
      "Runs the passes of the experiment's `compress` section (prune, finetune, distill, quantize; see "
      "docs/experiment.md) in order on a finished run's model. Each pass writes a model artifact into "
      "RUN_DIR/compressed/NN-<pass>/ and its figures against the original (test accuracy, parameters, "
      "non-zero "
      "parameters, size on disk, FLOPs, CPU latency at batch 1 and 64) into RUN_DIR/compress.json; the table "
      "of "
      "all artifacts is printed at the end. Given an experiment instead of a run folder, it trains the "
      "experiment first. For a run folder only compress.* keys can be set, e.g.\n"
      "  --set "
      "'compress.passes=[{\"type\":\"prune\",\"method\":\"structured\",\"amount\":0.5,\"epochs\":2}]'\n"
      "  --set compress.passes[0].amount=0.7\n"
      "\n"
      "Ctrl-C stops the pass in flight with a checkpoint; running the same command again continues the "
      "pipeline "
      "(finished passes are reused). `workbench-cli eval RUN_DIR --model compressed/NN-<pass>` evaluates one "
      "artifact.",
      "Examples:\n"
      "  workbench-cli compress --example cnn-prune-quantize\n"
      "  workbench-cli compress RUN_DIR --set 'compress.passes=[{\"type\":\"quantize\"}]'\n"
      "  workbench-cli compress RUN_DIR --list\n"
      "\n"
      "Exit status: 0 done, 2 bad input, 1 failure, 130/143 interrupted.\n");
  auto o = std::make_shared<CompressOptions>();
  addExperimentArgs(
      command, o->experiment, "RUN_DIR|EXPERIMENT.json",
      "a finished run's folder, or an experiment to train first (default: the default experiment)");
  command->add_flag("--list", o->list,
                    "print the run's artifacts and their figures (compress.json), run nothing");
  command->add_flag("--measure", o->measure,
                    "measure the original and every artifact of the run again, one after the other, so all "
                    "figures come from the same conditions (a quiet machine), then print the table");
  command->add_flag("--json", o->json,
                    "print the report as one JSON object on stdout (progress goes to stderr)");
  command->add_flag("-q,--quiet", o->quiet, "no progress, only errors");
  setAction(command, [o] { return compress(*o); });
}

}  // namespace wb::cli
