// The profile report's plain-C++ side: the request's checks, the report file (JSON) and the text table. No
// Torch: the window and the CLI read a run's profiles through these.
#include "workbench/profile_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;

json rowToJson(const ProfileOperatorRow& r) {
  return {{"name", r.name},
          {"input_shapes", r.input_shapes},
          {"calls", r.calls},
          {"self_cpu_ms", r.self_cpu_ms},
          {"cpu_total_ms", r.cpu_total_ms},
          {"self_cuda_ms", r.self_cuda_ms},
          {"cuda_total_ms", r.cuda_total_ms},
          {"cpu_memory_bytes", r.cpu_memory_bytes},
          {"self_cpu_memory_bytes", r.self_cpu_memory_bytes},
          {"cuda_memory_bytes", r.cuda_memory_bytes},
          {"self_cuda_memory_bytes", r.self_cuda_memory_bytes}};
}

// A report file is ours, but one damaged by hand must be refused with its key, not crash the reader.
template <typename T>
bool readKey(const json& j, const char* key, T& out, std::string& problem) {
  auto it = j.find(key);
  if (it == j.end()) return true;  // absent: the default stays (an older file)
  try {
    out = it->get<T>();
    return true;
  } catch (const json::exception&) {
    problem = std::string("\"") + key + "\" has the wrong type (" + it->type_name() + ")";
    return false;
  }
}

std::optional<ProfileOperatorRow> rowFromJson(const json& j, std::string& problem) {
  if (!j.is_object()) {
    problem = "an operator row is not an object";
    return std::nullopt;
  }
  ProfileOperatorRow r;
  const bool ok =
      readKey(j, "name", r.name, problem) && readKey(j, "input_shapes", r.input_shapes, problem) &&
      readKey(j, "calls", r.calls, problem) && readKey(j, "self_cpu_ms", r.self_cpu_ms, problem) &&
      readKey(j, "cpu_total_ms", r.cpu_total_ms, problem) &&
      readKey(j, "self_cuda_ms", r.self_cuda_ms, problem) &&
      readKey(j, "cuda_total_ms", r.cuda_total_ms, problem) &&
      readKey(j, "cpu_memory_bytes", r.cpu_memory_bytes, problem) &&
      readKey(j, "self_cpu_memory_bytes", r.self_cpu_memory_bytes, problem) &&
      readKey(j, "cuda_memory_bytes", r.cuda_memory_bytes, problem) &&
      readKey(j, "self_cuda_memory_bytes", r.self_cuda_memory_bytes, problem);
  if (!ok) return std::nullopt;
  return r;
}

template <typename E>
bool readWord(const json& j, const char* key, E& out, std::string& problem) {
  std::string word;
  if (!readKey(j, key, word, problem)) return false;
  if (word.empty()) return true;
  const std::optional<E> value = fromWord<E>(word);
  if (!value) {
    problem = std::string("\"") + key + "\" is \"" + word + "\", not a word this version knows";
    return false;
  }
  out = *value;
  return true;
}

bool readPhases(const json& j, std::vector<PhaseTime>& phases, std::string& problem) {
  auto it = j.find("phases");
  if (it == j.end()) return true;
  if (!it->is_object()) {
    problem = "\"phases\" must be an object of phase: ms";
    return false;
  }
  for (StepPhase phase : {StepPhase::Data, StepPhase::Forward, StepPhase::Backward, StepPhase::Optimizer,
                          StepPhase::Allreduce}) {
    auto p = it->find(wordString(phase));
    if (p == it->end()) continue;
    if (!p->is_number()) {
      problem = "\"phases\"." + wordString(phase) + " must be a number";
      return false;
    }
    phases.push_back({phase, p->get<double>()});
  }
  return true;
}

// PyTorch's _format_time: microseconds in, three decimals in the largest unit that fits.
std::string formatTime(double ms) {
  char text[64];
  const double us = ms * 1000.0;
  if (us >= 1e6) {
    std::snprintf(text, sizeof(text), "%.3fs", us / 1e6);
  } else if (us >= 1e3) {
    std::snprintf(text, sizeof(text), "%.3fms", us / 1e3);
  } else {
    std::snprintf(text, sizeof(text), "%.3fus", us);
  }
  return text;
}

// PyTorch's _format_memory.
std::string formatMemory(int64_t bytes) {
  constexpr double kb = 1024.0, mb = kb * 1024.0, gb = mb * 1024.0;
  const double b = static_cast<double>(bytes);
  char text[64];
  if (std::abs(b) >= gb) {
    std::snprintf(text, sizeof(text), "%.2f Gb", b / gb);
  } else if (std::abs(b) >= mb) {
    std::snprintf(text, sizeof(text), "%.2f Mb", b / mb);
  } else if (std::abs(b) >= kb) {
    std::snprintf(text, sizeof(text), "%.2f Kb", b / kb);
  } else {
    std::snprintf(text, sizeof(text), "%lld b", static_cast<long long>(bytes));
  }
  return text;
}

std::string percent(double part, double whole) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return text;
}

std::string cut(const std::string& text, size_t width) {
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

struct Column {
  std::string header;
  size_t width;
  bool left = false;  // text columns (the input shapes) align left, as PyTorch's
};

class TextTable {
 public:
  explicit TextTable(std::vector<Column> columns) : m_columns(std::move(columns)) {}
  void line(std::ostringstream& out) const {
    for (const Column& c : m_columns) out << std::string(c.width, '-') << "  ";
    out << "\n";
  }
  void row(std::ostringstream& out, const std::vector<std::string>& cells) const {
    for (size_t i = 0; i < m_columns.size(); ++i) {
      const Column& c = m_columns[i];
      const std::string cell = cut(cells[i], c.width);
      const std::string pad(c.width - cell.size(), ' ');
      out << (c.left ? cell + pad : pad + cell) << "  ";
    }
    out << "\n";
  }
  std::vector<std::string> headers() const {
    std::vector<std::string> h;
    for (const Column& c : m_columns) h.push_back(c.header);
    return h;
  }

 private:
  std::vector<Column> m_columns;
};

double sortKey(const ProfileOperatorRow& r, ProfileSort sort) {
  switch (sort) {
    case ProfileSort::SelfCpu:
      return r.self_cpu_ms;
    case ProfileSort::CpuTotal:
      return r.cpu_total_ms;
    case ProfileSort::SelfCuda:
      return r.self_cuda_ms;
    case ProfileSort::CudaTotal:
      return r.cuda_total_ms;
    case ProfileSort::Calls:
      return static_cast<double>(r.calls);
    case ProfileSort::CpuMemory:
      return static_cast<double>(r.cpu_memory_bytes);
  }
  return r.self_cpu_ms;
}

std::vector<std::string> rowCells(const ProfileOperatorRow& r, const ProfileReport& report, double self_cpu,
                                  double self_cuda) {
  const double calls = static_cast<double>(std::max<int64_t>(1, r.calls));
  std::vector<std::string> cells = {r.name,
                                    percent(r.self_cpu_ms, self_cpu),
                                    formatTime(r.self_cpu_ms),
                                    percent(r.cpu_total_ms, self_cpu),
                                    formatTime(r.cpu_total_ms),
                                    formatTime(r.cpu_total_ms / calls)};
  if (report.cuda_activities) {
    cells.push_back(formatTime(std::max(0.0, r.self_cuda_ms)));
    cells.push_back(percent(std::max(0.0, r.self_cuda_ms), self_cuda));
    cells.push_back(formatTime(std::max(0.0, r.cuda_total_ms)));
    cells.push_back(formatTime(std::max(0.0, r.cuda_total_ms) / calls));
  }
  if (report.profile_memory) {
    cells.push_back(formatMemory(r.cpu_memory_bytes));
    cells.push_back(formatMemory(r.self_cpu_memory_bytes));
    if (report.cuda_activities) {
      cells.push_back(formatMemory(std::max<int64_t>(0, r.cuda_memory_bytes)));
      cells.push_back(formatMemory(std::max<int64_t>(0, r.self_cuda_memory_bytes)));
    }
  }
  cells.push_back(std::to_string(r.calls));
  if (report.record_shapes) cells.push_back(r.input_shapes);
  return cells;
}

std::vector<Column> tableColumns(const ProfileReport& report, size_t name_width, size_t shapes_width) {
  std::vector<Column> columns = {{"Name", name_width}, {"Self CPU %", 12}, {"Self CPU", 12},
                                 {"CPU total %", 12},  {"CPU total", 12},  {"CPU time avg", 12}};
  if (report.cuda_activities) {
    for (const char* h : {"Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"})
      columns.push_back({h, 12});
  }
  if (report.profile_memory) {
    for (const char* h : {"CPU Mem", "Self CPU Mem"}) columns.push_back({h, 12});
    if (report.cuda_activities) {
      for (const char* h : {"CUDA Mem", "Self CUDA Mem"}) columns.push_back({h, 12});
    }
  }
  columns.push_back({"# of Calls", 12});
  if (report.record_shapes) columns.push_back({"Input Shapes", shapes_width, true});
  return columns;
}

void writePhases(std::ostringstream& out, const ProfileReport& report) {
  char line[160];
  std::snprintf(line, sizeof(line), "Step phases (mean of %lld steps, %s a step):\n",
                static_cast<long long>(report.steps), formatTime(report.step_ms).c_str());
  out << line;
  for (const PhaseTime& p : report.phases) {
    std::snprintf(line, sizeof(line), "  %-10s %12s %8s\n", wordString(p.phase).c_str(),
                  formatTime(p.ms).c_str(), percent(p.ms, report.step_ms).c_str());
    out << line;
  }
}

}  // namespace

std::string checkProfileRequest(const ProfileRequest& request) {
  if (request.steps < 1) {
    return "the number of steps to profile must be 1 or more; got " + std::to_string(request.steps);
  }
  if (request.first_step < -1) {
    return "the first profiled step must come after 0 or more steps (or -1: the next step); got " +
           std::to_string(request.first_step);
  }
  return {};
}

std::string phaseRangeName(StepPhase phase) {
  return "## " + wordString(phase) + " ##";
}

nlohmann::json profileReportToJson(const ProfileReport& report) {
  json phases = json::object();
  for (const PhaseTime& p : report.phases) phases[wordString(p.phase)] = p.ms;
  json operators = json::array();
  for (const ProfileOperatorRow& r : report.operators) operators.push_back(rowToJson(r));
  return {{"device", report.device},
          {"rank", report.rank},
          {"world_size", report.world_size},
          {"profiler", wordString(report.profiler)},
          {"cuda_activities", report.cuda_activities},
          {"record_shapes", report.record_shapes},
          {"profile_memory", report.profile_memory},
          {"first_step", report.first_step},
          {"steps", report.steps},
          {"step_ms", report.step_ms},
          {"phases", std::move(phases)},
          {"operators", std::move(operators)},
          {"trace_path", report.trace_path},
          {"table_path", report.table_path},
          {"report_path", report.report_path},
          {"source", report.source}};
}

std::optional<ProfileReport> profileReportFromJson(const nlohmann::json& j, std::string& problem) {
  if (!j.is_object() || !j.contains("steps") || !j.contains("operators")) {
    problem = "not a profile report: it needs \"steps\" and \"operators\"";
    return std::nullopt;
  }
  ProfileReport r;
  const bool ok =
      readKey(j, "device", r.device, problem) && readKey(j, "rank", r.rank, problem) &&
      readKey(j, "world_size", r.world_size, problem) && readWord(j, "profiler", r.profiler, problem) &&
      readKey(j, "cuda_activities", r.cuda_activities, problem) &&
      readKey(j, "record_shapes", r.record_shapes, problem) &&
      readKey(j, "profile_memory", r.profile_memory, problem) &&
      readKey(j, "first_step", r.first_step, problem) && readKey(j, "steps", r.steps, problem) &&
      readKey(j, "step_ms", r.step_ms, problem) && readPhases(j, r.phases, problem) &&
      readKey(j, "trace_path", r.trace_path, problem) && readKey(j, "table_path", r.table_path, problem) &&
      readKey(j, "report_path", r.report_path, problem) && readKey(j, "source", r.source, problem);
  if (!ok) return std::nullopt;
  const json& operators = j["operators"];
  if (!operators.is_array()) {
    problem = "\"operators\" must be an array";
    return std::nullopt;
  }
  for (const json& row : operators) {
    std::optional<ProfileOperatorRow> read = rowFromJson(row, problem);
    if (!read) return std::nullopt;
    r.operators.push_back(std::move(*read));
  }
  return r;
}

ProfileReport readProfileReport(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw UserError("Cannot read the profile report " + path,
                    "Profile the run again (Run ▸ Profile Steps… or workbench-cli profile).");
  }
  const json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  std::string problem = "not valid JSON";
  std::optional<ProfileReport> report = j.is_discarded() ? std::nullopt : profileReportFromJson(j, problem);
  if (!report) {
    throw UserError("The profile report " + path + " is damaged: " + problem,
                    "Profile the run again; the trace beside it may still open in Perfetto.");
  }
  return *report;
}

std::vector<std::string> profileReportPaths(const std::string& run_dir) {
  namespace fs = std::filesystem;
  struct Found {
    long long first = 0, last = 0;
    std::string path;
  };
  std::vector<Found> found;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(run_dir) / "profile", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    Found f;
    int used = 0;
    // steps-<a>-<b>.json: numbers compared as numbers (steps-90 before steps-100).
    if (std::sscanf(name.c_str(), "steps-%lld-%lld.json%n", &f.first, &f.last, &used) == 2 &&
        static_cast<size_t>(used) == name.size()) {
      f.path = it->path().string();
      found.push_back(std::move(f));
    }
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return std::tie(a.first, a.last) < std::tie(b.first, b.last);
  });
  std::vector<std::string> paths;
  for (Found& f : found) paths.push_back(std::move(f.path));
  return paths;
}

std::vector<ProfileOperatorRow> sortedOperators(const ProfileReport& report, ProfileSort sort) {
  // A CPU profile has no CUDA times to order by: its own order, self CPU time.
  if (!report.cuda_activities && (sort == ProfileSort::SelfCuda || sort == ProfileSort::CudaTotal)) {
    sort = ProfileSort::SelfCpu;
  }
  std::vector<ProfileOperatorRow> rows = report.operators;
  std::stable_sort(rows.begin(), rows.end(),
                   [sort](const ProfileOperatorRow& a, const ProfileOperatorRow& b) {
                     const double ka = sortKey(a, sort), kb = sortKey(b, sort);
                     if (ka != kb) return ka > kb;
                     return std::tie(a.name, a.input_shapes) < std::tie(b.name, b.input_shapes);
                   });
  return rows;
}

std::string formatProfileTable(const ProfileReport& report, ProfileSort sort, int64_t rows) {
  std::vector<ProfileOperatorRow> sorted = sortedOperators(report, sort);
  if (rows > 0 && static_cast<size_t>(rows) < sorted.size()) sorted.resize(static_cast<size_t>(rows));
  size_t name_width = 4, shapes_width = 12;
  for (const ProfileOperatorRow& r : sorted) {
    name_width = std::max(name_width, std::min<size_t>(r.name.size(), 55));
    shapes_width = std::max(shapes_width, std::min<size_t>(r.input_shapes.size(), 80));
  }
  double self_cpu = 0, self_cuda = 0;
  for (const ProfileOperatorRow& r : report.operators) {
    self_cpu += r.self_cpu_ms;
    self_cuda += std::max(0.0, r.self_cuda_ms);
  }
  const TextTable table(tableColumns(report, name_width, shapes_width));
  std::ostringstream out;
  table.line(out);
  table.row(out, table.headers());
  table.line(out);
  for (const ProfileOperatorRow& r : sorted) table.row(out, rowCells(r, report, self_cpu, self_cuda));
  table.line(out);
  out << "Self CPU time total: " << formatTime(self_cpu) << "\n";
  if (report.cuda_activities) out << "Self CUDA time total: " << formatTime(self_cuda) << "\n";
  out << "\n";
  writePhases(out, report);
  return out.str();
}

}  // namespace wb
