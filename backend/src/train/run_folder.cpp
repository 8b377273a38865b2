#include "train/run_folder.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

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
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.';
    out += keep ? c : '_';
  }
  return out.empty() ? "run" : out;
}

std::FILE* openForAppend(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) {
    throw UserError("Could not open " + path + " for writing: " + std::strerror(errno),
                    "Check that output.runs_dir is writable.");
  }
  return f;
}

}  // namespace

std::string checkRunsDirWritable(const std::string& runs_dir) {
  std::error_code ec;
  fs::create_directories(runs_dir, ec);
  if (ec) return "cannot create runs folder " + runs_dir + ": " + ec.message();
  const std::string probe = runs_dir + "/.write-test-" + std::to_string(::getpid());
  std::FILE* f = std::fopen(probe.c_str(), "w");
  if (!f) return "runs folder " + runs_dir + " is not writable: " + std::strerror(errno);
  const bool wrote = std::fputs("ok", f) >= 0 && std::fflush(f) == 0;
  std::fclose(f);
  std::remove(probe.c_str());
  if (!wrote) return "cannot write into runs folder " + runs_dir + ": " + std::strerror(errno);
  struct statvfs vfs {};
  if (::statvfs(runs_dir.c_str(), &vfs) == 0) {
    const uint64_t free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    if (free_bytes < kMinFreeBytes) {
      return "the disk holding " + runs_dir + " has only " + std::to_string(free_bytes >> 20) +
             " MiB free (a run needs at least " + std::to_string(kMinFreeBytes >> 20) + " MiB)";
    }
  }
  return {};
}

RunFolder RunFolder::create(const std::string& runs_dir, const std::string& name) {
  const std::string problem = checkRunsDirWritable(runs_dir);
  if (!problem.empty()) {
    throw UserError("Cannot start the run: " + problem + ".",
                    "Choose another output.runs_dir (--set output.runs_dir=PATH) or free some space.");
  }
  const std::string base = runs_dir + "/" + timestamp() + "-" + safeName(name);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const std::string path = attempt == 0 ? base : base + "-" + std::to_string(attempt + 1);
    if (::mkdir(path.c_str(), 0755) == 0) return RunFolder(path);
    if (errno != EEXIST) {
      throw UserError("Could not create run folder " + path + ": " + std::strerror(errno),
                      "Check that output.runs_dir is writable.");
    }
  }
  throw UserError("Could not find a free run folder name under " + runs_dir);
}

RunFolder::RunFolder(std::string path) : m_path(std::move(path)) {
  m_metrics = openForAppend(file("metrics.jsonl"));
  m_log = openForAppend(file("train.log"));
}

RunFolder::RunFolder(RunFolder&& other) noexcept
    : m_path(std::move(other.m_path)), m_metrics(other.m_metrics), m_log(other.m_log) {
  other.m_metrics = nullptr;
  other.m_log = nullptr;
}

RunFolder::~RunFolder() {
  if (m_metrics) std::fclose(m_metrics);
  if (m_log) std::fclose(m_log);
}

void RunFolder::writeExperiment(const nlohmann::json& experiment) {
  writeFileAtomically(file("experiment.json"), experiment.dump(2) + "\n");
}

void RunFolder::append(const EventBatch& batch) {
  for (const Event& event : batch) {
    const std::string line = eventToJson(event).dump() + "\n";
    std::fwrite(line.data(), 1, line.size(), m_metrics);
    if (const auto* log = std::get_if<LogLine>(&event)) {
      std::fprintf(m_log, "[%s] %s\n", toString(log->level), log->text.c_str());
    } else if (const auto* error = std::get_if<RunError>(&event)) {
      std::fprintf(m_log, "[error] %s\n", error->message.c_str());
      if (!error->hint.empty()) std::fprintf(m_log, "[error] %s\n", error->hint.c_str());
    }
  }
  // One flush per batch, not per line: the OS has every event of the batch if the process dies after this.
  std::fflush(m_metrics);
  std::fflush(m_log);
}

void RunFolder::writeSummary(const RunSummary& summary, const RunError* error) {
  nlohmann::json j = summaryToJson(summary);
  if (error) j["error"] = {{"kind", toString(error->kind)}, {"message", error->message}, {"hint", error->hint}};
  writeFileAtomically(file("summary.json"), j.dump(2) + "\n");
}

}  // namespace wb
