// CompressionRun (workbench/compression.h): the pipeline on its worker thread, its state in the run folder,
// compress.json.

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "compress/artifact_figures.h"
#include "compress/compression_pipeline.h"
#include "compress/distillation.h"
#include "data/dataset.h"
#include "distributed/device_selection.h"
#include "task/make_task.h"
#include "train/run_error_edge.h"
#include "util/atomic_file.h"
#include "util/host_allocator.h"
#include "workbench/compression.h"
#include "workbench/errors.h"
#include "workbench/event_json.h"
#include "workbench/run_state.h"
#include "workbench/system_info.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kReportFile = "compress.json";
const char* const kFolder = "compressed";
const char* const kOriginal = "00-original";

std::string twoDigits(int64_t n) {
  std::ostringstream out;
  out << std::setw(2) << std::setfill('0') << n;
  return out.str();
}

// The run folder's experiment, checked to be a finished run.
Experiment finishedRunExperiment(const std::string& run_dir) {
  checkRunModel(run_dir, "compress", /*allow_unfinished=*/false);
  const ParseResult parsed = loadExperimentFile(run_dir + "/experiment.json");
  if (!parsed.ok()) {
    throw UserError(run_dir + " is not a usable run folder: " + formatIssues(parsed.issues),
                    "Give the folder of a finished run (`workbench-cli runs` lists them).");
  }
  return parsed.experiment;
}

std::vector<ArtifactFigures> readReport(const std::string& run_dir) {
  std::ifstream in(run_dir + "/" + kReportFile);
  if (!in) return {};
  const json doc = json::parse(in, nullptr, false);
  std::vector<ArtifactFigures> out;
  if (!doc.is_object() || !doc.contains("artifacts") || !doc["artifacts"].is_array()) return out;
  for (const json& a : doc["artifacts"]) {
    if (a.is_object()) out.push_back(artifactFiguresFromJson(a));
  }
  return out;
}

// Adds or replaces (by name) one artifact's figures and rewrites compress.json whole.
void recordFigures(const std::string& run_dir, const ArtifactFigures& figures) {
  std::vector<ArtifactFigures> all = readReport(run_dir);
  auto it =
      std::find_if(all.begin(), all.end(), [&](const ArtifactFigures& a) { return a.name == figures.name; });
  if (it != all.end()) {
    *it = figures;
  } else {
    all.push_back(figures);
  }
  std::sort(all.begin(), all.end(),
            [](const ArtifactFigures& a, const ArtifactFigures& b) { return a.name < b.name; });
  json list = json::array();
  for (const ArtifactFigures& a : all) list.push_back(artifactFiguresToJson(a));
  writeFileAtomically(run_dir + "/" + kReportFile, json{{"format", 1}, {"artifacts", list}}.dump(2) + "\n");
}

// The next free artifact number in compressed/.
int64_t nextArtifactNumber(const std::string& folder) {
  int64_t highest = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 3 && std::isdigit(static_cast<unsigned char>(name[0])) &&
        std::isdigit(static_cast<unsigned char>(name[1])) && name[2] == '-') {
      highest = std::max<int64_t>(highest, std::stoll(name.substr(0, 2)));
    }
  }
  return highest + 1;
}

json passesJson(const CompressConfig& config) {
  json list = json::array();
  for (const CompressPassConfig& p : config.passes) list.push_back(compressPassToJson(p));
  return list;
}

RunError classify(std::exception_ptr error) {
  return classifyRunError(
      error, {"Lower train.batch_size for the fine-tuning passes, or use a smaller student.",
              "Close other programs, or lower train.batch_size.",
              "Lower the pass's lr (compress.passes[i].lr); the artifacts finished so far are kept.",
              "compressed/compress.log keeps what happened before."});
}

// Measures an artifact and records its figures (compress.json, an event, a log line). Latencies are timed in
// rounds interleaved with the original's (whose model stays loaded): a speedup compares two timings taken
// under the same conditions.
struct FigureRecorder {
  const std::string& run_dir;
  const Dataset& data;
  const Task& task;
  MeasureOptions measure;
  torch::Tensor timing_input;
  EventStream& events;

  std::vector<Latency> latencies(const std::vector<InferenceModel*>& models) const {
    return interleavedLatencies(models, timing_input, measure);
  }
  ArtifactFigures of(const ModelArtifact& a, InferenceModel& model, const std::string& artifact_folder,
                     std::optional<PassType> pass, const std::string& description, const Latency& latency,
                     const Latency& baseline) const {
    ArtifactFigures f = measureArtifact(a, model, artifact_folder, data, task);
    f.latency_ms_batch1 = latency.batch1_ms;
    f.latency_ms_batch64 = latency.batch64_ms;
    f.baseline_latency_ms_batch1 = baseline.batch1_ms;
    f.baseline_latency_ms_batch64 = baseline.batch64_ms;
    f.path = std::string(kFolder) + "/" + a.name;
    f.pass = pass;
    f.description = description;
    if (a.isQuantized() && !a.history.empty()) {
      f.float_layers = a.history.back().value("float_layers", std::vector<std::string>{});
    }
    return f;
  }
  void publish(const ArtifactFigures& f) const {
    recordFigures(run_dir, f);
    events.post(f);
    std::ostringstream line;
    line << std::fixed << std::setprecision(4) << f.name << ": test accuracy " << f.test_accuracy << ", "
         << f.nonzero_parameters << "/" << f.parameters << " parameters non-zero, " << std::setprecision(2)
         << f.size_bytes / 1048576.0 << " MiB, latency " << f.latency_ms_batch1 << " ms (batch 1), "
         << f.latency_ms_batch64 << " ms (batch 64)";
    events.log(LogLevel::Info, line.str());
  }
};

// What the pipeline's two ways (measure only, run the passes) share once the original is measured.
struct PipelineContext {
  const std::string& run_dir;
  const std::string& folder;  // compressed/
  const Experiment& experiment;
  const CompressConfig& config;
  const Dataset& data;
  torch::Device device;
  const ModelArtifact& original;
  InferenceModel& original_model;
  const std::string& original_folder;
  EventStream& events;
  RunFolder* recorder;
  TrainingControl& control;
  const FigureRecorder& figures;
};

// The original and every finished artifact, all timed in the same interleaved rounds.
RunStatus measureAll(const PipelineContext& c) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(c.folder)) {
    const std::string name = entry.path().filename().string();
    if (name != kOriginal && isCompleteArtifact(entry.path().string())) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  std::vector<ModelArtifact> artifacts;
  std::vector<std::unique_ptr<InferenceModel>> models;
  std::vector<InferenceModel*> timed = {&c.original_model};
  for (const std::string& name : names) {
    artifacts.push_back(loadArtifact(c.folder + "/" + name));
    models.push_back(makeInferenceModel(artifacts.back()));
    timed.push_back(models.back().get());
  }
  c.events.log(LogLevel::Info, "Timing " + std::to_string(timed.size()) + " models in interleaved rounds");
  const std::vector<Latency> latencies = c.figures.latencies(timed);
  c.figures.publish(c.figures.of(c.original, c.original_model, c.original_folder, std::nullopt,
                                 "the trained model", latencies[0], latencies[0]));
  const std::vector<ArtifactFigures> known = readReport(c.run_dir);
  for (size_t i = 0; i < artifacts.size(); ++i) {
    if (c.control.stopRequested()) return RunStatus::Interrupted;
    const ModelArtifact& a = artifacts[i];
    auto it =
        std::find_if(known.begin(), known.end(), [&](const ArtifactFigures& f) { return f.name == a.name; });
    const json last = a.history.empty() ? json::object() : a.history.back();
    const std::optional<PassType> pass =
        it != known.end()
            ? it->pass
            : fromWord<PassType>(last.value("pass", json::object()).value("type", std::string()));
    const std::string description = it != known.end() ? it->description : last.value("description", "");
    c.figures.publish(c.figures.of(a, *models[i], c.folder + "/" + names[i], pass, description,
                                   latencies[i + 1], latencies[0]));
  }
  return RunStatus::Completed;
}

// The passes, continuing the pipeline left unfinished with the same passes, or a new one after the artifacts
// so far.
RunStatus runPasses(const PipelineContext& c) {
  const std::string state_file = c.folder + "/pipeline.json";
  json state;
  {
    std::ifstream in(state_file);
    state = json::parse(in, nullptr, false);
  }
  const json passes = passesJson(c.config);
  const bool continuing = state.is_object() && state.value("status", "") != "completed" &&
                          state.value("passes", json()) == passes;
  const int64_t first = continuing ? state.value("first", int64_t{1}) : nextArtifactNumber(c.folder);
  if (!continuing) {
    state = {{"passes", passes}, {"first", first}, {"status", "running"}};
  } else {
    c.events.log(LogLevel::Info, "Continuing the unfinished pipeline in " + c.folder);
    state["status"] = "running";
  }
  writeFileAtomically(state_file, state.dump(2) + "\n");

  ModelArtifact current = c.original;
  const int64_t count = static_cast<int64_t>(c.config.passes.size());
  for (int64_t i = 0; i < count; ++i) {
    const CompressPassConfig& pass = c.config.passes[static_cast<size_t>(i)];
    const std::string name = twoDigits(first + i) + "-" + wordString(pass.type);
    const std::string pass_folder = c.folder + "/" + name;
    CompressionStage stage{i + 1, count, pass.type, StageState::Started, name};
    if (isCompleteArtifact(pass_folder)) {
      current = loadArtifact(pass_folder);
      stage.state = StageState::Reused;
      c.events.post(stage);
      c.events.log(LogLevel::Info, "Pass " + std::to_string(i + 1) + "/" + std::to_string(count) + " (" +
                                       name + ") finished before: reusing it");
      continue;
    }
    stage.state = fs::exists(pass_folder + "/checkpoints") ? StageState::Resumed : StageState::Started;
    c.events.post(stage);
    c.events.log(LogLevel::Info, "Pass " + std::to_string(i + 1) + "/" + std::to_string(count) + " (" + name +
                                     "): " + describePass(pass));
    PassContext context{c.experiment, c.run_dir, c.data,     c.original, c.device,
                        pass_folder,  c.events,  c.recorder, c.control};
    json record = json::object();
    bool stopped = false;
    ModelArtifact next = runPass(pass, current, context, record, stopped);
    if (stopped) {
      c.events.log(LogLevel::Info, "Stopped during " + name +
                                       " with a checkpoint; run `workbench-cli compress " + c.run_dir +
                                       "` again to continue.");
      state["status"] = "interrupted";
      writeFileAtomically(state_file, state.dump(2) + "\n");
      return RunStatus::Interrupted;
    }
    next.name = name;
    next.source = current.name;
    next.history = current.history;
    next.history.push_back(record);
    saveArtifact(next, pass_folder);
    std::error_code ec;
    fs::remove_all(pass_folder + "/checkpoints", ec);  // the artifact supersedes the pass's checkpoints
    {
      const std::unique_ptr<InferenceModel> model = makeInferenceModel(next);
      const std::vector<Latency> latencies = c.figures.latencies({&c.original_model, model.get()});
      c.figures.publish(
          c.figures.of(next, *model, pass_folder, pass.type, describePass(pass), latencies[1], latencies[0]));
    }
    stage.state = StageState::Finished;
    c.events.post(stage);
    current = std::move(next);
    if (c.control.stopRequested() && i + 1 < count) {
      state["status"] = "interrupted";
      writeFileAtomically(state_file, state.dump(2) + "\n");
      return RunStatus::Interrupted;
    }
  }
  state["status"] = "completed";
  writeFileAtomically(state_file, state.dump(2) + "\n");
  return RunStatus::Completed;
}

// The samples latency is timed on (its batches of 1 and 64): the test split's first, else the training
// split's.
torch::Tensor latencySamples(const Dataset& data) {
  const DataSplit& split = data.test.size() > 0 ? data.test : data.train;
  return split.inputs(0, std::min<int64_t>(64, split.size()));
}

}  // namespace

struct CompressionRun::Impl {
  CompressRequest request;
  EventSink sink;
  TrainingControl control;
  std::thread worker;
  std::atomic<bool> running{false};
  mutable std::mutex report_mutex;
  CompressionReport report;

  void run();
  RunStatus pipeline(EventStream& events, std::unique_ptr<RunFolder>& recorder);
};

RunStatus CompressionRun::Impl::pipeline(EventStream& events, std::unique_ptr<RunFolder>& recorder) {
  const std::string& run_dir = request.run_dir;
  const Experiment experiment = finishedRunExperiment(run_dir);
  const CompressConfig config = request.config ? *request.config : experiment.compress;
  if (config.passes.empty() && !request.measure_only) {
    throw UserError("No compression passes: the run's experiment has an empty compress.passes",
                    "Give passes, e.g. --set 'compress.passes=[{\"type\":\"prune\",\"amount\":0.5}]', or an "
                    "experiment file with a compress section (docs/experiment.md).");
  }
  const std::vector<ValidationIssue> issues = checkCompression(run_dir, config);
  if (!issues.empty()) throw UserError(formatIssues(issues), "Fix the compress section and run it again.");

  const std::string folder = run_dir + "/" + kFolder;
  fs::create_directories(folder);
  // compressed/ is the pipeline's own log folder: its experiment.json is what the pipeline ran.
  Experiment recorded = experiment;
  recorded.compress = config;
  writeFileAtomically(folder + "/experiment.json", experimentToJson(recorded).dump(2) + "\n");
  recorder = std::make_unique<RunFolder>(RunFolder::open(folder));
  events.setRecorder(recorder.get());

  events.log(LogLevel::Info, configureThreads(experiment.train.threads, experiment.train.blas_threads));
  events.log(LogLevel::Info, keepFreedHostMemoryForReuse());
  torch::manual_seed(experiment.seed);
  const torch::Device device = resolveDevice(experiment.train.devices.at(0));
  const Dataset data = loadDataset(experiment.data, experiment.seed);
  events.log(LogLevel::Info, data.description);

  const std::shared_ptr<const Task> task = makeTask(experiment);
  const FigureRecorder figures{
      run_dir, data, *task, {config.latency_runs, config.latency_threads}, latencySamples(data), events};

  // The original, saved as an artifact once so that it is measured (and exported) exactly like the others.
  const std::string original_folder = folder + "/" + kOriginal;
  ModelArtifact original;
  if (isCompleteArtifact(original_folder)) {
    original = loadArtifact(original_folder);
  } else {
    original = loadRunModel(run_dir, data.sample_shape, data.num_classes);
    original.name = kOriginal;
    saveArtifact(original, original_folder);
  }
  const std::unique_ptr<InferenceModel> original_model = makeInferenceModel(original);
  events.log(LogLevel::Info, "Measuring the original model (" + std::to_string(config.latency_runs) +
                                 " timed runs per batch size)");

  const PipelineContext context{run_dir,        folder,   experiment,      config,          data,
                                device,         original, *original_model, original_folder, events,
                                recorder.get(), control,  figures};
  if (request.measure_only) return measureAll(context);
  {
    const Latency alone = figures.latencies({original_model.get()})[0];
    figures.publish(figures.of(original, *original_model, original_folder, std::nullopt, "the trained model",
                               alone, alone));
  }
  return runPasses(context);
}

void CompressionRun::Impl::run() {
  const auto started = std::chrono::steady_clock::now();
  EventStream events(sink);
  std::unique_ptr<RunFolder> recorder;
  CompressionReport result;
  result.run_dir = request.run_dir;
  std::optional<RunError> error;
  try {
    result.status = pipeline(events, recorder);
  } catch (...) {
    error = classify(std::current_exception());
    result.status = RunStatus::Failed;
  }
  releaseFreedHostMemory();
  if (error) events.post(*error);
  result.artifacts = readReport(request.run_dir);
  RunSummary summary;
  summary.status = result.status;
  summary.run_dir = request.run_dir;
  summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  events.post(RunFinished{summary});
  events.flush();
  events.setRecorder(nullptr);
  {
    std::lock_guard<std::mutex> lock(report_mutex);
    report = result;
  }
  running = false;
}

CompressionRun::CompressionRun(CompressRequest request, EventSink sink) : m_impl(std::make_unique<Impl>()) {
  m_impl->request = std::move(request);
  m_impl->sink = std::move(sink);
}

CompressionRun::~CompressionRun() {
  m_impl->control.requestStop();
  if (m_impl->worker.joinable()) m_impl->worker.join();
}

void CompressionRun::start() {
  if (m_impl->worker.joinable()) return;
  m_impl->running = true;
  m_impl->worker = std::thread([impl = m_impl.get()] { impl->run(); });
}

void CompressionRun::requestStop() {
  m_impl->control.requestStop();
}
bool CompressionRun::isRunning() const {
  return m_impl->running.load();
}

void CompressionRun::wait() {
  if (m_impl->worker.joinable()) m_impl->worker.join();
}

CompressionReport CompressionRun::report() const {
  std::lock_guard<std::mutex> lock(m_impl->report_mutex);
  return m_impl->report;
}

CompressionReport compressBlocking(const CompressRequest& request, const CompressionRun::EventSink& sink) {
  CompressionRun run(request, sink);
  run.start();
  run.wait();
  return run.report();
}

std::vector<ArtifactFigures> readCompressionReport(const std::string& run_dir) {
  return readReport(run_dir);
}

// evaluateArtifact: run_evaluation_report.cpp (the detailed evaluation, reduced to loss and accuracy).

std::vector<ValidationIssue> checkCompression(const std::string& run_dir, const CompressConfig& config) {
  std::vector<ValidationIssue> issues;
  const ParseResult parsed = loadExperimentFile(run_dir + "/experiment.json");
  const bool torchscript = parsed.ok() && !parsed.experiment.model.torchscript.empty();
  for (size_t i = 0; i < config.passes.size(); ++i) {
    const CompressPassConfig& p = config.passes[i];
    const std::string at = "compress.passes[" + std::to_string(i) + "]";
    if (p.type == PassType::Distill) {
      const std::string problem = teacherProblem(p.teacher, run_dir);
      if (!problem.empty()) issues.push_back({at + ".teacher", "teacher \"" + p.teacher + "\": " + problem});
    }
    if (torchscript && p.type == PassType::Prune && p.method == PruneMethod::Structured) {
      issues.push_back(
          {at + ".method",
           "the run's model is a TorchScript module: its layers are opaque, so channels cannot be "
           "removed and the layers that read them rewired; use method \"unstructured\" (it prunes a "
           "TorchScript model's conv and linear weights), or train a layer-list model"});
    }
    if (torchscript && p.type == PassType::Quantize) {
      issues.push_back(
          {at + ".mode",
           "the run's model is a TorchScript module: int8 quantization works on layer-list models, "
           "whose layers the workbench knows; train the model as a preset or model.layers"});
    }
  }
  return issues;
}

}  // namespace wb
