#include "profiling/step_profiler.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <sstream>

#include "profiling/profile_events.h"
#include "profiling/profile_trace.h"
#include "step/phase_range.h"
#include "torch_compat_profiler.h"
#include "util/atomic_file.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace tp = torch::profiler::impl;
namespace fs = std::filesystem;

// LibTorch's profiler has one state per thread and Kineto one per process: one recording at a time here,
// whichever run asks (the window may train several).
std::atomic<bool> g_recording{false};

std::string shapesText(const c10::ArrayRef<std::vector<int64_t>>& shapes) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < shapes.size(); ++i) {
    out << (i ? ", " : "") << "[";
    for (size_t d = 0; d < shapes[i].size(); ++d) out << (d ? ", " : "") << shapes[i][d];
    out << "]";
  }
  out << "]";
  return out.str();
}

ProfiledEvent copyEvent(const compat::torch_profiler::KinetoEvent& e, int64_t trace_start_ns) {
  ProfiledEvent p;
  p.name = e.name();
  p.start_ns = std::max<int64_t>(0, compat::profilerEventStartNs(e) - trace_start_ns);
  p.end_ns = p.start_ns + compat::profilerEventDurationNs(e);
  p.thread = e.startThreadId();
  if (p.name == "[memory]") {
    p.kind = ProfiledEvent::Kind::Memory;
    p.bytes = e.nBytes();
    p.cuda_memory = e.deviceType() == c10::DeviceType::CUDA;
  } else if (e.deviceType() == c10::DeviceType::CUDA) {
    p.kind = ProfiledEvent::Kind::Device;
    p.device_index = static_cast<int>(e.deviceIndex());
    p.linked_correlation = static_cast<int64_t>(e.linkedCorrelationId());
  } else {
    if (e.hasShapes()) p.input_shapes = shapesText(e.shapes());
    p.correlation = static_cast<int64_t>(e.correlationId());
    p.linked_correlation = static_cast<int64_t>(e.linkedCorrelationId());
    p.async = e.isAsync();
  }
  return p;
}

// RUN/profile/steps-<a>-<b>: the profiled steps, 1-based as the log counts them.
std::string profileStem(const std::string& run_dir, int64_t first_step, int64_t steps) {
  // Absolute: the report's paths must open from wherever it is read (a runs_dir given relative).
  return fs::absolute(fs::path(run_dir) / "profile" /
                      ("steps-" + std::to_string(first_step + 1) + "-" + std::to_string(first_step + steps)))
      .string();
}

// Kineto's own writer where the build has libkineto (the file PyTorch users know, CUDA kernels included);
// otherwise ours from the same events. Returns which profiler's trace it is.
ProfilerKind writeTrace(compat::torch_profiler::ProfilerResult& result,
                        const std::vector<ProfiledEvent>& events, const std::string& path,
                        const TraceProcess& process) {
  try {
    writeFileAtomically(path, [&result](const std::string& tmp) { result.save(tmp); });
    return ProfilerKind::Kineto;
  } catch (const c10::Error&) {
    // "Saving a trace requires using torch.profiler with Kineto support": a LibTorch without libkineto.
  }
  writeFileAtomically(path, chromeTraceJson(events, process));
  return ProfilerKind::LibTorch;
}

}  // namespace

struct StepProfiler::Recording {
  ProfileRequest request;
  int64_t first_step = 0;  // steps done before the first profiled one
  int64_t steps = 0;       // to record (the request's, or what the plan has left)
  int64_t done = 0;
  bool cuda = false;
  std::string step_name;
  std::optional<at::RecordFunction> step_range;
};

StepProfiler::StepProfiler(StepProfilerSetup setup) : m_setup(std::move(setup)) {}

StepProfiler::~StepProfiler() {
  if (!m_recording) return;
  m_recording->step_range.reset();
  t_phase_ranges = false;
  try {
    torch::autograd::profiler::disableProfiler();
  } catch (const std::exception&) {
    // The run is failing already; its own error says why.
  }
  g_recording = false;
}

void StepProfiler::atStepBoundary(int64_t steps_done) {
  if (!m_setup.lead) return;
  if (!m_recording) {
    if (!m_waiting) takeRequest(steps_done);
    if (m_waiting && m_waiting->first_step <= steps_done) start(steps_done);
  }
  if (!m_recording) return;
  Recording& r = *m_recording;
  r.step_name = profilerStepName(steps_done + 1);
  r.step_range.emplace(at::RecordScope::USER_SCOPE);
  if (r.step_range->isActive()) r.step_range->before(r.step_name.c_str());
}

void StepProfiler::stepDone(int64_t /*steps_done*/) {
  if (!m_recording) return;
  m_recording->step_range.reset();
  if (++m_recording->done >= m_recording->steps) stop();
}

void StepProfiler::finish(int64_t steps_done) {
  if (m_recording) {
    m_recording->step_range.reset();
    if (m_recording->done > 0) {
      stop();
    } else {
      const ProfileRequest request = m_recording->request;
      m_recording.reset();
      t_phase_ranges = false;
      torch::autograd::profiler::disableProfiler();
      g_recording = false;
      refuse(request, "the run ended before its first profiled step");
    }
  }
  if (m_waiting) {
    refuse(*m_waiting, "the run ended after " + std::to_string(steps_done) + " steps, before step " +
                           std::to_string(m_waiting->first_step + 1));
    m_waiting.reset();
  }
}

void StepProfiler::takeRequest(int64_t steps_done) {
  std::optional<ProfileRequest> request = m_setup.take_request();
  if (!request) return;
  if (m_setup.run_dir.empty()) return refuse(*request, "this run has no folder to write a profile to");
  if (request->first_step < steps_done) request->first_step = steps_done;  // -1 or past: the next step
  if (request->first_step >= m_setup.total_steps) {
    return refuse(*request, "step " + std::to_string(request->first_step + 1) + " is beyond the run's " +
                                std::to_string(m_setup.total_steps) + " steps");
  }
  m_waiting = request;
}

void StepProfiler::start(int64_t steps_done) {
  const ProfileRequest request = *m_waiting;
  m_waiting.reset();
  bool expected = false;
  if (!g_recording.compare_exchange_strong(expected, true)) {
    return refuse(request, "another run in this process is recording a profile now");
  }
  auto r = std::make_unique<Recording>();
  r->request = request;
  r->first_step = steps_done;
  r->steps = std::min(request.steps, m_setup.total_steps - steps_done);
  r->cuda = m_setup.device.is_cuda();
  const tp::ProfilerConfig config(tp::ProfilerState::KINETO, request.record_shapes, request.profile_memory,
                                  /*with_stack=*/false, /*with_flops=*/false, /*with_modules=*/false);
  std::set<tp::ActivityType> activities{tp::ActivityType::CPU};
  if (r->cuda) activities.insert(tp::ActivityType::CUDA);
  try {
    torch::autograd::profiler::prepareProfiler(config, activities);
    torch::autograd::profiler::enableProfiler(config, activities);
  } catch (const c10::Error& e) {
    g_recording = false;
    return refuse(request, std::string("LibTorch's profiler did not start: ") + e.what_without_backtrace());
  }
  m_recording = std::move(r);
  t_phase_ranges = true;
  m_setup.events.log(LogLevel::Info, "Profiling steps " + std::to_string(steps_done + 1) + "–" +
                                         std::to_string(steps_done + m_recording->steps) + " (" +
                                         (request.source.empty() ? "asked" : request.source) + ")");
}

void StepProfiler::stop() {
  std::unique_ptr<Recording> r = std::move(m_recording);
  t_phase_ranges = false;
  std::unique_ptr<compat::torch_profiler::ProfilerResult> result =
      torch::autograd::profiler::disableProfiler();
  g_recording = false;
  try {
    const int64_t trace_start = compat::profilerTraceStartNs(*result);
    std::vector<ProfiledEvent> events;
    events.reserve(result->events().size());
    for (const auto& e : result->events()) events.push_back(copyEvent(e, trace_start));
    ProfileReport report;
    report.device = m_setup.device.str();
    report.rank = m_setup.rank;
    report.world_size = m_setup.world_size;
    report.cuda_activities = r->cuda;
    report.record_shapes = r->request.record_shapes;
    report.profile_memory = r->request.profile_memory;
    report.first_step = r->first_step;
    report.source = r->request.source;
    const std::string stem = profileStem(m_setup.run_dir, r->first_step, r->done);
    fs::create_directories(fs::path(stem).parent_path());
    report.trace_path = stem + ".pt.trace.json";
    report.table_path = stem + ".txt";
    report.report_path = stem + ".json";
    report.profiler =
        writeTrace(*result, events, report.trace_path,
                   {static_cast<int64_t>(::getpid()),
                    "workbench rank " + std::to_string(m_setup.rank) + " (" + report.device + ")"});
    ProfileTable table = tabulateProfile(std::move(events), r->cuda);
    report.steps = r->done;
    report.step_ms = table.step_ms;
    report.phases = std::move(table.phases);
    report.operators = std::move(table.rows);
    writeFileAtomically(report.table_path, formatProfileTable(report, ProfileSort::SelfCpu, 0));
    writeFileAtomically(report.report_path, profileReportToJson(report).dump(1) + "\n");
    m_setup.events.log(LogLevel::Info,
                       "Profile of steps " + std::to_string(r->first_step + 1) + "–" +
                           std::to_string(r->first_step + r->done) + ": " + report.table_path +
                           "; trace (ui.perfetto.dev, chrome://tracing): " + report.trace_path);
    m_setup.events.post(ProfileRecorded{std::move(report), ""});
  } catch (const std::exception& e) {
    refuse(r->request, std::string("the profile could not be written: ") + e.what());
  }
}

void StepProfiler::refuse(const ProfileRequest& request, const std::string& why) {
  ProfileRecorded refused;
  refused.report.source = request.source;
  refused.report.first_step = request.first_step;
  refused.report.steps = 0;
  refused.report.device = m_setup.device.str();
  refused.error = "No profile: " + why + ".";
  if (request.required) {
    throw UserError(refused.error,
                    "Ask for a first step within the run's steps (its train.epochs and "
                    "train.max_steps decide how many it has).");
  }
  m_setup.events.log(LogLevel::Warning, refused.error);
  m_setup.events.post(std::move(refused));
}

bool kinetoTracesAvailable() {
  bool expected = false;
  if (!g_recording.compare_exchange_strong(expected, true)) return true;
  const tp::ProfilerConfig config(tp::ProfilerState::KINETO, /*report_input_shapes=*/false,
                                  /*profile_memory=*/false);
  const std::set<tp::ActivityType> activities{tp::ActivityType::CPU};
  bool available = false;
  try {
    torch::autograd::profiler::prepareProfiler(config, activities);
    torch::autograd::profiler::enableProfiler(config, activities);
    (void)(torch::ones({2}) + 1);
    std::unique_ptr<compat::torch_profiler::ProfilerResult> result =
        torch::autograd::profiler::disableProfiler();
    char scratch[] = "/tmp/wb-kineto-probe-XXXXXX";
    const int fd = mkstemp(scratch);
    if (fd >= 0) {
      close(fd);
      try {
        result->save(scratch);
        available = true;
      } catch (const c10::Error&) {
        // "Saving a trace requires using torch.profiler with Kineto support": no libkineto.
      }
      std::error_code ec;
      fs::remove(scratch, ec);
    }
  } catch (const c10::Error&) {
  }
  g_recording = false;
  return available;
}

}  // namespace wb
