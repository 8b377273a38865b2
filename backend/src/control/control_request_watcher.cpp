#include "control/control_request_watcher.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "util/atomic_file.h"
#include "workbench/run_control.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

constexpr auto kPollInterval = std::chrono::milliseconds(500);

// Complete request files only: a writer's temporary file ("….json.tmp.<pid>") does not end in .json.
std::vector<fs::path> requestFiles(const std::string& folder) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("request-", 0) == 0 && it->path().extension() == ".json") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());  // names begin with the time they were sent
  return files;
}

}  // namespace

ControlRequestWatcher::ControlRequestWatcher(std::string run_dir, TrainingControl& control)
    : m_folder(controlFolder(run_dir)), m_control(control) {
  std::error_code ec;
  for (const fs::path& stale : requestFiles(m_folder)) {
    if (fs::remove(stale, ec)) ++m_stale;
  }
  m_thread = std::thread([this] {
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_cv.wait_for(lock, kPollInterval, [this] { return m_stopping; })) {
      lock.unlock();
      poll();
      lock.lock();
    }
  });
}

ControlRequestWatcher::~ControlRequestWatcher() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = true;
  }
  m_cv.notify_all();
  if (m_thread.joinable()) m_thread.join();
}

void ControlRequestWatcher::poll() {
  for (const fs::path& file : requestFiles(m_folder)) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    std::string problem;
    const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    const std::optional<ControlRequest> request =
        j.is_discarded() ? std::nullopt : controlRequestFromJson(j, problem);
    if (j.is_discarded()) problem = "not valid JSON";
    std::error_code ec;
    if (!request) {
      // The sender (workbench-cli control) waits for its file to go and prints this reason.
      try {
        writeFileAtomically(file.string() + ".rejected", problem + "\n");
      } catch (const std::exception&) {
        // Nowhere to say it: the request is still dropped rather than read again every half second.
      }
      fs::remove(file, ec);
      continue;
    }
    switch (request->kind) {
      case ControlRequest::Kind::LrScale:
      case ControlRequest::Kind::LrConstant:
        m_control.requestLrChange(LrChange{
            request->kind == ControlRequest::Kind::LrScale ? LrChange::Kind::Scale : LrChange::Kind::Constant,
            request->value, request->at_step, request->source});
        break;
      case ControlRequest::Kind::StopAfterEpoch:
        m_control.requestStopAfterEpoch(request->source);
        break;
      case ControlRequest::Kind::Stop:
        m_control.requestStop();
        break;
      case ControlRequest::Kind::Checkpoint:
        m_control.requestCheckpoint();
        break;
      case ControlRequest::Kind::Profile: {
        ProfileRequest profile;
        profile.first_step = request->at_step;
        profile.steps = request->steps;
        profile.source = request->source;
        m_control.requestProfile(profile);
        break;
      }
    }
    fs::remove(file, ec);
  }
}

}  // namespace wb
