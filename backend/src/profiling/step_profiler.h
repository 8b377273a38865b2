#pragma once
// Records a few optimizer steps of a run with LibTorch's profiler when a ProfileRequest comes
// (TrainingRun::requestProfile, workbench-cli control RUN --profile N, train --profile START:N), on rank 0's
// training thread: each profiled step is a "ProfilerStep#N" range with its phases inside
// (step/phase_range.h), and when the last one is done the trace, the operator table and the report go to
// RUN/profile/ and a ProfileRecorded event to the front end. The other ranks train unprofiled. Between
// profiles it costs one atomic load per step (take_request: TrainingControl::takeProfileRequest) and the
// phase ranges stay closed.

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "run_folder/event_stream.h"
#include "workbench/profile_report.h"

namespace wb {

struct StepProfilerSetup {
  // The front end's next request, if one is waiting (the run's TrainingControl::takeProfileRequest); called
  // before every step, so it must be cheap when none is.
  std::function<std::optional<ProfileRequest>()> take_request;
  EventStream& events;
  bool lead = false;  // rank 0: the one that profiles
  torch::Device device;
  int64_t rank = 0;
  int64_t world_size = 1;
  int64_t total_steps = 0;  // the run's plan: a request beyond it is refused
  std::string run_dir;      // where profile/ goes; empty: the run has no folder and cannot be profiled
};

class StepProfiler {
 public:
  explicit StepProfiler(StepProfilerSetup setup);
  // A recording still open (the run failed) is switched off and dropped.
  ~StepProfiler();
  StepProfiler(const StepProfiler&) = delete;
  StepProfiler& operator=(const StepProfiler&) = delete;

  // Before optimizer step steps_done + 1 (its data wait included): takes a request, starts a recording
  // when its first step has come, opens the step's range.
  void atStepBoundary(int64_t steps_done);
  // After the optimizer step that made it steps_done: closes the step's range; after the last profiled
  // step, ends the recording and writes the profile (before any validation, which is no step's).
  void stepDone(int64_t steps_done);
  // Training is over (the plan done, a stop, an early stop): a recording ends with the steps it has; a
  // request still waiting is refused with the reason.
  void finish(int64_t steps_done);

 private:
  struct Recording;
  void takeRequest(int64_t steps_done);
  void start(int64_t steps_done);
  void stop();
  void refuse(const ProfileRequest& request, const std::string& why);

  StepProfilerSetup m_setup;
  std::optional<ProfileRequest> m_waiting;
  std::unique_ptr<Recording> m_recording;
};

// Whether this LibTorch has Kineto (its ProfilerResult can save Kineto's own trace): one small operator
// recorded and saved to a scratch file (milliseconds). True without asking while a profile is being recorded
// in this process (LibTorch's profiler is one per process).
bool kinetoTracesAvailable();

}  // namespace wb
