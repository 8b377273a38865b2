#include "workbench/event_json.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

#include "gpu_figures_json.h"  // wb_events sees backend/include only: beside this file

namespace wb {
namespace {

using nlohmann::json;

template <typename Enum, size_t N>
Enum enumFromString(const std::string& text, const Enum (&values)[N], Enum fallback) {
  for (Enum value : values) {
    if (text == toString(value)) return value;
  }
  return fallback;
}

constexpr LogLevel kLevels[] = {LogLevel::Debug, LogLevel::Info, LogLevel::Warning, LogLevel::Error};
constexpr ControlKind kControlKinds[] = {ControlKind::LrScale, ControlKind::LrConstant,
                                         ControlKind::StopAfterEpoch};
constexpr ErrorKind kKinds[] = {ErrorKind::BadInput,    ErrorKind::ExperimentChanged,
                                ErrorKind::OutOfMemory, ErrorKind::NonFinite,
                                ErrorKind::Device,      ErrorKind::Internal};

json toJson(const StepMetrics& m) {
  json j = {{"event", "step"},
            {"step", m.step},
            {"epoch", m.epoch},
            {"epoch_fraction", m.epoch_fraction},
            {"total_steps", m.total_steps},
            {"loss", m.loss},
            {"lr", m.lr},
            {"samples_per_sec", m.samples_per_sec},
            {"data_ms", m.data_ms},
            {"compute_ms", m.compute_ms},
            {"optimizer_ms", m.optimizer_ms},
            {"data_wait_fraction", m.data_wait_fraction},
            {"cpu_rss_bytes", m.cpu_rss_bytes},
            {"elapsed_s", m.elapsed_s},
            {"eta_s", m.eta_s}};
  if (m.grad_norm >= 0) j["grad_norm"] = m.grad_norm;
  if (m.loss_scale > 0) {
    j["loss_scale"] = m.loss_scale;
    j["skipped_steps"] = m.skipped_steps;
    j["nonfinite_steps_in_window"] = m.nonfinite_steps_in_window;
  }
  if (m.cuda_allocated_bytes >= 0) {
    j["cuda_allocated_bytes"] = m.cuda_allocated_bytes;
    j["cuda_reserved_bytes"] = m.cuda_reserved_bytes;
    j["cuda_peak_bytes"] = m.cuda_peak_bytes;
  }
  if (!m.devices.empty()) {
    json devices = json::array();
    for (const auto& d : m.devices) {
      json entry = {{"rank", d.rank},
                    {"device", d.device},
                    {"samples_per_sec", d.samples_per_sec},
                    {"cpu_rss_bytes", d.cpu_rss_bytes}};
      if (d.cuda_allocated_bytes >= 0) {
        entry["cuda_allocated_bytes"] = d.cuda_allocated_bytes;
        entry["cuda_reserved_bytes"] = d.cuda_reserved_bytes;
        entry["cuda_peak_bytes"] = d.cuda_peak_bytes;
      }
      entry["gpu"] = gpuFiguresToJson(d.gpu);
      if (!d.stages.empty()) entry["stages"] = d.stages;
      devices.push_back(std::move(entry));
    }
    j["devices"] = std::move(devices);
  }
  if (m.allreduce_hidden_fraction >= 0) j["allreduce_hidden_fraction"] = m.allreduce_hidden_fraction;
  if (m.allreduce_ms >= 0) j["allreduce_ms"] = m.allreduce_ms;
  j["gpu"] = gpuFiguresToJson(m.gpu);
  return j;
}

json toJson(const EpochMetrics& m) {
  json j = {{"event", "epoch"},
            {"epoch", m.epoch},
            {"step", m.step},
            {"train_loss", m.train_loss},
            {"lr", m.lr},
            {"epoch_s", m.epoch_s},
            {"samples_per_sec", m.samples_per_sec}};
  // The task's figures by their names: classification's "train_accuracy" and "val_accuracy", as always.
  for (const TaskFigure& f : m.train_figures) j["train_" + f.name] = f.value;
  if (m.val_loss >= 0) {
    j["val_loss"] = m.val_loss;
    for (const TaskFigure& f : m.val_figures) j["val_" + f.name] = f.value;
  }
  return j;
}

json toJson(const LogLine& l) {
  return {{"event", "log"}, {"level", toString(l.level)}, {"text", l.text}};
}

json toJson(const RunError& e) {
  return {{"event", "error"}, {"kind", toString(e.kind)}, {"message", e.message}, {"hint", e.hint}};
}

json toJson(const ArtifactFigures& a) {
  json j = artifactFiguresToJson(a);
  j["event"] = "artifact";
  return j;
}

json toJson(const CompressionStage& c) {
  return {{"event", "compression_stage"}, {"pass_index", c.pass_index},   {"pass_count", c.pass_count},
          {"pass", wordString(c.pass)},   {"state", wordString(c.state)}, {"artifact", c.artifact}};
}

json toJson(const ControlApplied& c) {
  json j = {{"event", "control"}, {"step", c.step},     {"kind", toString(c.kind)},
            {"value", c.value},   {"source", c.source}, {"message", c.message}};
  if (c.lr >= 0) j["lr"] = c.lr;
  return j;
}

// The operator rows stay in the report's own file (report.report_path): a metrics.jsonl line stays short.
json toJson(const ProfileRecorded& p) {
  ProfileReport brief = p.report;
  brief.operators.clear();
  json j = profileReportToJson(brief);
  j.erase("operators");
  j["event"] = "profile";
  if (!p.error.empty()) j["error"] = p.error;
  return j;
}

json toJson(const RunFinished& f) {
  json j = summaryToJson(f.summary);
  j["event"] = "finished";
  return j;
}

// nlohmann's value() throws on a null of the wrong type; metrics files are ours, but a damaged line must not
// take the reader down.
template <typename T>
T get(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if constexpr (std::is_integral_v<T>) {
    // nlohmann converts a floating-point value to an integer with a plain cast, undefined behaviour out of
    // T's range (1e300 as int64_t; found by tests/fuzz/fuzz_run_history.cpp under UBSan). NaN fails both
    // tests.
    if (it->is_number_float()) {
      const double value = it->get<double>();
      if (!(value >= static_cast<double>(std::numeric_limits<T>::min()) &&
            value < std::ldexp(1.0, std::numeric_limits<T>::digits))) {
        return fallback;
      }
    }
  }
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

std::vector<DeviceMetrics> devicesFromJson(const json& j) {
  std::vector<DeviceMetrics> devices;
  if (!j.contains("devices") || !j["devices"].is_array()) return devices;
  for (const auto& entry : j["devices"]) {
    if (!entry.is_object()) continue;
    DeviceMetrics d;
    d.rank = get<int64_t>(entry, "rank", 0);
    d.device = get<std::string>(entry, "device", "");
    d.samples_per_sec = get<double>(entry, "samples_per_sec", 0);
    d.cpu_rss_bytes = get<int64_t>(entry, "cpu_rss_bytes", 0);
    d.cuda_allocated_bytes = get<int64_t>(entry, "cuda_allocated_bytes", -1);
    d.cuda_reserved_bytes = get<int64_t>(entry, "cuda_reserved_bytes", -1);
    d.cuda_peak_bytes = get<int64_t>(entry, "cuda_peak_bytes", -1);
    d.gpu = gpuFiguresFromJson(entry);
    d.stages = get<std::vector<int64_t>>(entry, "stages", {});
    devices.push_back(std::move(d));
  }
  return devices;
}

StepMetrics stepFromJson(const json& j) {
  StepMetrics m;
  m.step = get<int64_t>(j, "step", 0);
  m.epoch = get<int64_t>(j, "epoch", 0);
  m.epoch_fraction = get<double>(j, "epoch_fraction", 0);
  m.total_steps = get<int64_t>(j, "total_steps", 0);
  m.loss = get<double>(j, "loss", 0);
  m.lr = get<double>(j, "lr", 0);
  m.samples_per_sec = get<double>(j, "samples_per_sec", 0);
  m.data_ms = get<double>(j, "data_ms", 0);
  m.compute_ms = get<double>(j, "compute_ms", 0);
  m.optimizer_ms = get<double>(j, "optimizer_ms", 0);
  m.data_wait_fraction = get<double>(j, "data_wait_fraction", 0);
  m.grad_norm = get<double>(j, "grad_norm", -1);
  m.loss_scale = get<double>(j, "loss_scale", -1);
  m.skipped_steps = get<int64_t>(j, "skipped_steps", 0);
  m.nonfinite_steps_in_window = get<int64_t>(j, "nonfinite_steps_in_window", 0);
  m.cpu_rss_bytes = get<int64_t>(j, "cpu_rss_bytes", 0);
  m.cuda_allocated_bytes = get<int64_t>(j, "cuda_allocated_bytes", -1);
  m.cuda_reserved_bytes = get<int64_t>(j, "cuda_reserved_bytes", -1);
  m.cuda_peak_bytes = get<int64_t>(j, "cuda_peak_bytes", -1);
  m.elapsed_s = get<double>(j, "elapsed_s", 0);
  m.eta_s = get<double>(j, "eta_s", -1);
  m.devices = devicesFromJson(j);
  m.allreduce_hidden_fraction = get<double>(j, "allreduce_hidden_fraction", -1);
  m.allreduce_ms = get<double>(j, "allreduce_ms", -1);
  m.gpu = gpuFiguresFromJson(j);
  return m;
}

// An epoch's figures are its numbers named "<prefix><figure>" other than the loss: whatever the run's task
// reported, read without knowing the task (a past run's file names its own).
std::vector<TaskFigure> epochFigures(const json& j, const std::string& prefix) {
  std::vector<TaskFigure> figures;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    if (key.rfind(prefix, 0) != 0 || key == prefix + "loss" || !it->is_number()) continue;
    figures.push_back({key.substr(prefix.size()), it->get<double>()});
  }
  return figures;
}

EpochMetrics epochFromJson(const json& j) {
  EpochMetrics m;
  m.epoch = get<int64_t>(j, "epoch", 0);
  m.step = get<int64_t>(j, "step", 0);
  m.train_loss = get<double>(j, "train_loss", 0);
  m.val_loss = get<double>(j, "val_loss", -1);
  m.train_figures = epochFigures(j, "train_");
  // Read whatever val_ figures the line has, the loss aside: a validation whose loss was inf is written with
  // "val_loss": null (read back as -1) beside its figures, which the run showed live and shows reopened.
  m.val_figures = epochFigures(j, "val_");
  m.lr = get<double>(j, "lr", 0);
  m.epoch_s = get<double>(j, "epoch_s", 0);
  m.samples_per_sec = get<double>(j, "samples_per_sec", 0);
  return m;
}

}  // namespace

json summaryToJson(const RunSummary& s) {
  return {{"status", wordString(s.status)},
          {"run_dir", s.run_dir},
          {"steps", s.steps},
          {"epochs", s.epochs},
          {"test_loss", s.test_loss},
          {"test_accuracy", s.test_accuracy},
          {"best_val_loss", s.best_val_loss},
          {"best_val_accuracy", s.best_val_accuracy},
          {"samples_per_sec", s.samples_per_sec},
          {"wall_s", s.wall_s},
          {"parameters", s.parameters},
          {"flops_per_sample", s.flops_per_sample}};
}

RunSummary summaryFromJson(const json& j) {
  RunSummary s;
  s.status = fromWord<RunStatus>(get<std::string>(j, "status", "")).value_or(RunStatus::Failed);
  s.run_dir = get<std::string>(j, "run_dir", "");
  s.steps = get<int64_t>(j, "steps", 0);
  s.epochs = get<int64_t>(j, "epochs", 0);
  s.test_loss = get<double>(j, "test_loss", -1);
  s.test_accuracy = get<double>(j, "test_accuracy", -1);
  s.best_val_loss = get<double>(j, "best_val_loss", -1);
  s.best_val_accuracy = get<double>(j, "best_val_accuracy", -1);
  s.samples_per_sec = get<double>(j, "samples_per_sec", 0);
  s.wall_s = get<double>(j, "wall_s", 0);
  s.parameters = get<int64_t>(j, "parameters", 0);
  s.flops_per_sample = get<int64_t>(j, "flops_per_sample", 0);
  return s;
}

json artifactFiguresToJson(const ArtifactFigures& a) {
  return {{"name", a.name},
          {"path", a.path},
          {"source", a.source},
          {"pass", artifactPassWord(a.pass)},
          {"description", a.description},
          {"test_accuracy", a.test_accuracy},
          {"test_loss", a.test_loss},
          {"parameters", a.parameters},
          {"nonzero_parameters", a.nonzero_parameters},
          {"size_bytes", a.size_bytes},
          {"flops_per_sample", a.flops_per_sample},
          {"latency_ms_batch1", a.latency_ms_batch1},
          {"latency_ms_batch64", a.latency_ms_batch64},
          {"baseline_latency_ms_batch1", a.baseline_latency_ms_batch1},
          {"baseline_latency_ms_batch64", a.baseline_latency_ms_batch64},
          {"weights_dtype", a.weights_dtype},
          {"float_layers", a.float_layers}};
}

ArtifactFigures artifactFiguresFromJson(const json& j) {
  ArtifactFigures a;
  a.name = get<std::string>(j, "name", "");
  a.path = get<std::string>(j, "path", "");
  a.source = get<std::string>(j, "source", "");
  // "original" (and a pass this version does not know) reads as none
  a.pass = fromWord<PassType>(get<std::string>(j, "pass", ""));
  a.description = get<std::string>(j, "description", "");
  a.test_accuracy = get<double>(j, "test_accuracy", -1);
  a.test_loss = get<double>(j, "test_loss", -1);
  a.parameters = get<int64_t>(j, "parameters", 0);
  a.nonzero_parameters = get<int64_t>(j, "nonzero_parameters", 0);
  a.size_bytes = get<int64_t>(j, "size_bytes", 0);
  a.flops_per_sample = get<int64_t>(j, "flops_per_sample", 0);
  a.latency_ms_batch1 = get<double>(j, "latency_ms_batch1", -1);
  a.latency_ms_batch64 = get<double>(j, "latency_ms_batch64", -1);
  a.baseline_latency_ms_batch1 = get<double>(j, "baseline_latency_ms_batch1", -1);
  a.baseline_latency_ms_batch64 = get<double>(j, "baseline_latency_ms_batch64", -1);
  a.weights_dtype = get<std::string>(j, "weights_dtype", "");
  a.float_layers = get<std::vector<std::string>>(j, "float_layers", {});
  return a;
}

json eventToJson(const Event& event) {
  return std::visit([](const auto& e) { return toJson(e); }, event);
}

std::optional<Event> eventFromJson(const json& j) {
  if (!j.is_object()) return std::nullopt;
  const std::string type = get<std::string>(j, "event", "");
  if (type == "step") return stepFromJson(j);
  if (type == "epoch") return epochFromJson(j);
  if (type == "log") {
    return LogLine{enumFromString(get<std::string>(j, "level", ""), kLevels, LogLevel::Info),
                   get<std::string>(j, "text", "")};
  }
  if (type == "error") {
    return RunError{enumFromString(get<std::string>(j, "kind", ""), kKinds, ErrorKind::Internal),
                    get<std::string>(j, "message", ""), get<std::string>(j, "hint", "")};
  }
  if (type == "finished") return RunFinished{summaryFromJson(j)};
  if (type == "artifact") return artifactFiguresFromJson(j);
  if (type == "control") {
    ControlApplied c;
    c.step = get<int64_t>(j, "step", 0);
    c.kind = enumFromString(get<std::string>(j, "kind", ""), kControlKinds, ControlKind::LrScale);
    c.value = get<double>(j, "value", 0);
    c.lr = get<double>(j, "lr", -1);
    c.source = get<std::string>(j, "source", "");
    c.message = get<std::string>(j, "message", "");
    return c;
  }
  if (type == "profile") {
    ProfileRecorded p;
    p.error = get<std::string>(j, "error", "");
    std::string problem;
    json report = j;
    report.erase("event");
    report.erase("error");
    if (!report.contains("operators")) report["operators"] = json::array();
    std::optional<ProfileReport> read = profileReportFromJson(report, problem);
    if (!read) return std::nullopt;
    p.report = std::move(*read);
    return p;
  }
  if (type == "compression_stage") {
    const std::optional<PassType> pass = fromWord<PassType>(get<std::string>(j, "pass", ""));
    const std::optional<StageState> state = fromWord<StageState>(get<std::string>(j, "state", ""));
    if (!pass || !state) return std::nullopt;
    CompressionStage c;
    c.pass_index = get<int64_t>(j, "pass_index", 0);
    c.pass_count = get<int64_t>(j, "pass_count", 0);
    c.pass = *pass;
    c.state = *state;
    c.artifact = get<std::string>(j, "artifact", "");
    return c;
  }
  return std::nullopt;
}

}  // namespace wb
