#include "run_folder/run_folder.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_folder/gpu_scalars.h"
#include "run_folder/metrics_csv.h"
#include "run_folder/stage_memory_scalars.h"
#include "util/atomic_file.h"
#include "workbench/errors.h"
#include "workbench/event_json.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

// A run writes its model and logs; below this much free space it would fail half-way, so refuse up front.
constexpr uint64_t kMinFreeBytes = 64ull << 20;

std::string timestamp() {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof(text), "%Y%m%d-%H%M%S", &local);
  return text;
}

std::string safeName(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    out += keep ? c : '_';
  }
  return out.empty() ? "run" : out;
}

void writeChecked(std::FILE* f, const std::string& path, const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size()) throw appendFailure(path, errno);
}

// stdio keeps the error of a buffered write until a flush: a full disk is usually seen here.
void flushChecked(std::FILE* f, const std::string& path) {
  if (std::fflush(f) != 0 || std::ferror(f)) throw appendFailure(path, errno);
}

std::FILE* openForAppend(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) {
    throw UserError("Could not open " + path + " for writing: " + std::strerror(errno),
                    "Check that output.runs_dir is writable.");
  }
  return f;
}

double wallTime() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// What TensorBoard shows: tags grouped by their prefix into sections.
void writeTensorBoard(TensorBoardWriter& tb, const Event& event) {
  constexpr double kMiB = 1024.0 * 1024.0;
  if (const auto* m = std::get_if<StepMetrics>(&event)) {
    std::vector<std::pair<std::string, double>> scalars = {
        {"loss/train", m->loss},
        {"learning_rate", m->lr},
        {"throughput/samples_per_sec", m->samples_per_sec},
        {"throughput/data_wait_fraction", m->data_wait_fraction},
        {"memory/cpu_rss_mib", static_cast<double>(m->cpu_rss_bytes) / kMiB}};
    if (m->grad_norm >= 0) scalars.emplace_back("grad_norm", m->grad_norm);
    if (m->loss_scale > 0) {
      scalars.emplace_back("amp/loss_scale", m->loss_scale);
      scalars.emplace_back("amp/skipped_steps", static_cast<double>(m->skipped_steps));
    }
    if (m->cuda_allocated_bytes >= 0) {
      scalars.emplace_back("memory/cuda_allocated_mib", static_cast<double>(m->cuda_allocated_bytes) / kMiB);
      scalars.emplace_back("memory/cuda_reserved_mib", static_cast<double>(m->cuda_reserved_bytes) / kMiB);
      scalars.emplace_back("memory/cuda_peak_mib", static_cast<double>(m->cuda_peak_bytes) / kMiB);
    }
    appendGpuScalars(scalars, *m);
    appendStageMemoryScalars(scalars, *m);
    tb.addScalars(m->step, wallTime(), scalars);
  } else if (const auto* e = std::get_if<EpochMetrics>(&event)) {
    // The task's figures under their names: classification's accuracy/train and accuracy/val.
    std::vector<std::pair<std::string, double>> scalars = {{"loss/train_epoch", e->train_loss}};
    for (const TaskFigure& f : e->train_figures) scalars.emplace_back(f.name + "/train", f.value);
    scalars.emplace_back("throughput/epoch_samples_per_sec", e->samples_per_sec);
    if (e->val_loss >= 0) {
      scalars.emplace_back("loss/val", e->val_loss);
      for (const TaskFigure& f : e->val_figures) scalars.emplace_back(f.name + "/val", f.value);
    }
    tb.addScalars(e->step, wallTime(), scalars);
  }
}

// The task of a run folder's experiment.json (a file from before the "task" key: classification).
TaskKind taskOfRun(const std::string& path) {
  std::ifstream in(path + "/experiment.json");
  const nlohmann::json experiment = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (experiment.is_object() && experiment.contains("task") && experiment["task"].is_string()) {
    if (auto task = fromWord<TaskKind>(experiment["task"].get<std::string>())) return *task;
  }
  return TaskKind::Classification;
}

}  // namespace

std::string checkRunsDirWritable(const std::string& runs_dir, bool create) {
  std::error_code ec;
  // Without create (a check, a finder, a benchmark: nothing will be written) the folder is not made: the
  // nearest folder that exists on its path must let it be made.
  fs::path existing = fs::absolute(runs_dir, ec);
  if (!create) {
    while (!existing.empty() && !fs::exists(existing, ec) && existing != existing.parent_path()) {
      existing = existing.parent_path();
    }
    if (!fs::is_directory(existing, ec)) {
      return "runs folder " + runs_dir + " cannot be made: " + existing.string() + " is not a folder";
    }
    if (::access(existing.c_str(), W_OK | X_OK) != 0) {
      const std::string why = std::strerror(errno);
      if (existing == fs::absolute(runs_dir, ec))
        return "runs folder " + runs_dir + " is not writable: " + why;
      return "runs folder " + runs_dir + " cannot be made: " + existing.string() + " is not writable: " + why;
    }
  } else {
    fs::create_directories(runs_dir, ec);
    if (ec) return "cannot create runs folder " + runs_dir + ": " + ec.message();
    const std::string probe = runs_dir + "/.write-test-" + std::to_string(::getpid());
    std::FILE* f = std::fopen(probe.c_str(), "w");
    if (!f) return "runs folder " + runs_dir + " is not writable: " + std::strerror(errno);
    const bool wrote = std::fputs("ok", f) >= 0 && std::fflush(f) == 0;
    std::fclose(f);
    std::remove(probe.c_str());
    if (!wrote) return "cannot write into runs folder " + runs_dir + ": " + std::strerror(errno);
  }
  struct statvfs vfs {};
  if (::statvfs(existing.c_str(), &vfs) == 0) {
    const uint64_t free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    if (free_bytes < kMinFreeBytes) {
      return "the disk holding " + runs_dir + " has only " + std::to_string(free_bytes >> 20) +
             " MiB free (a run needs at least " + std::to_string(kMinFreeBytes >> 20) + " MiB)";
    }
  }
  return {};
}

RunFolder RunFolder::create(const std::string& runs_dir, const std::string& name, TaskKind task) {
  const std::string problem = checkRunsDirWritable(runs_dir, /*create=*/true);
  if (!problem.empty()) {
    throw UserError("Cannot start the run: " + problem + ".",
                    "Choose another output.runs_dir (--set output.runs_dir=PATH) or free some space.");
  }
  const std::string base = runs_dir + "/" + timestamp() + "-" + safeName(name);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const std::string path = attempt == 0 ? base : base + "-" + std::to_string(attempt + 1);
    if (::mkdir(path.c_str(), 0755) == 0) return RunFolder(path, task);
    if (errno != EEXIST) {
      throw UserError("Could not create run folder " + path + ": " + std::strerror(errno),
                      "Check that output.runs_dir is writable.");
    }
  }
  throw UserError("Could not find a free run folder name under " + runs_dir);
}

RunFolder RunFolder::open(const std::string& path) {
  if (!fs::is_regular_file(fs::path(path) / "experiment.json")) {
    throw UserError(path + " is not a run folder: it has no experiment.json.",
                    "Give the folder of a run under output.runs_dir (`workbench-cli runs` lists them).");
  }
  const std::string problem = checkRunsDirWritable(path);
  if (!problem.empty()) {
    throw UserError("Cannot resume the run: " + problem + ".",
                    "Free some space or make the folder writable.");
  }
  // A kill during an atomic write (experiment.json, summary.json, model.pt) leaves its temporary file; the
  // checkpoints/ folder's are removed by CheckpointStore.
  removeStaleTempFiles(path);
  return RunFolder(path, taskOfRun(path));
}

RunFolder::RunFolder(std::string path, TaskKind task)
    : m_path(std::move(path)), m_csv_figures(metricsCsvFigures(task)) {
  // One TensorBoard file per run folder, kept across resumes (tensorboard needs "tfevents" in the name).
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(m_path, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("events.out.tfevents.", 0) == 0) m_tensorboard_name = name;
  }
  if (m_tensorboard_name.empty()) {
    char host[128] = {};
    ::gethostname(host, sizeof(host) - 1);
    m_tensorboard_name = "events.out.tfevents." + std::to_string(std::time(nullptr)) + "." + host;
  }
  openLogs();
}

void RunFolder::openLogs() {
  const bool new_csv = !fs::exists(file("metrics.csv")) || fs::file_size(file("metrics.csv")) == 0;
  m_metrics = openForAppend(file("metrics.jsonl"));
  m_csv = openForAppend(file("metrics.csv"));
  if (new_csv) writeChecked(m_csv, file("metrics.csv"), metricsCsvHeader(m_csv_figures));
  m_log = openForAppend(file("train.log"));
  m_tensorboard = std::make_unique<TensorBoardWriter>(file(m_tensorboard_name));
}

void RunFolder::closeLogs() {
  for (std::FILE** f : {&m_metrics, &m_csv, &m_log}) {
    if (*f) std::fclose(*f);
    *f = nullptr;
  }
  m_tensorboard.reset();
}

RunFolder::RunFolder(RunFolder&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_tensorboard_name(std::move(other.m_tensorboard_name)),
      m_csv_figures(std::move(other.m_csv_figures)),
      m_metrics(other.m_metrics),
      m_csv(other.m_csv),
      m_log(other.m_log),
      m_tensorboard(std::move(other.m_tensorboard)) {
  other.m_metrics = nullptr;
  other.m_csv = nullptr;
  other.m_log = nullptr;
}

RunFolder::~RunFolder() {
  closeLogs();
}

nlohmann::json RunFolder::logLengths() {
  flushLogs();  // the lengths a checkpoint records are of what is on disk, or the checkpoint is not written
  nlohmann::json lengths = nlohmann::json::object();
  for (const std::string& name : {std::string("metrics.jsonl"), std::string("metrics.csv"),
                                  std::string("train.log"), m_tensorboard_name}) {
    std::error_code ec;
    const auto size = fs::file_size(file(name), ec);
    if (!ec) lengths[name] = static_cast<int64_t>(size);
  }
  return lengths;
}

void RunFolder::truncateLogs(const nlohmann::json& lengths) {
  closeLogs();
  for (const std::string& name : {std::string("metrics.jsonl"), std::string("metrics.csv"),
                                  std::string("train.log"), m_tensorboard_name}) {
    const int64_t keep = lengths.is_object() && lengths.contains(name) ? lengths[name].get<int64_t>() : 0;
    std::error_code ec;
    const auto size = fs::file_size(file(name), ec);
    if (ec || static_cast<int64_t>(size) <= keep) continue;
    if (::truncate(file(name).c_str(), keep) != 0) {
      throw UserError("Could not cut " + file(name) + " back to the checkpoint: " + std::strerror(errno),
                      "Check that the run folder is writable.");
    }
  }
  openLogs();
}

void RunFolder::writeExperiment(const nlohmann::json& experiment) {
  writeFileAtomically(file("experiment.json"), experiment.dump(2) + "\n");
}

void RunFolder::append(const EventBatch& batch) {
  for (const Event& event : batch) {
    writeChecked(m_metrics, file("metrics.jsonl"), eventToJson(event).dump() + "\n");
    const std::string row = metricsCsvRow(event, m_csv_figures);
    if (!row.empty()) writeChecked(m_csv, file("metrics.csv"), row);
    writeTensorBoard(*m_tensorboard, event);
    if (const auto* log = std::get_if<LogLine>(&event)) {
      writeChecked(m_log, file("train.log"),
                   "[" + std::string(toString(log->level)) + "] " + log->text + "\n");
    } else if (const auto* control = std::get_if<ControlApplied>(&event)) {
      writeChecked(m_log, file("train.log"), "[info] " + control->message + "\n");
    } else if (const auto* error = std::get_if<RunError>(&event)) {
      std::string lines = "[error] " + error->message + "\n";
      if (!error->hint.empty()) lines += "[error] " + error->hint + "\n";
      writeChecked(m_log, file("train.log"), lines);
    }
  }
  // One flush per batch, not per line: the OS has every event of the batch if the process dies after this.
  flushLogs();
}

void RunFolder::flushLogs() {
  flushChecked(m_metrics, file("metrics.jsonl"));
  flushChecked(m_csv, file("metrics.csv"));
  flushChecked(m_log, file("train.log"));
  m_tensorboard->flush();
}

void RunFolder::writeSummary(const RunSummary& summary, const RunError* error) {
  nlohmann::json j = summaryToJson(summary);
  if (error)
    j["error"] = {{"kind", toString(error->kind)}, {"message", error->message}, {"hint", error->hint}};
  writeFileAtomically(file("summary.json"), j.dump(2) + "\n");
}

}  // namespace wb
