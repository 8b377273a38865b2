#pragma once
// A training run on its own worker thread: start, pause, resume, stop, and batches of events out.
// The run owns its folder under output.runs_dir and the event stream. Several train.devices train data
// parallel: one rank per device, each on its own thread, one run (rank 0 writes the folder and checkpoints).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "workbench/events.h"
#include "workbench/experiment.h"
#include "workbench/process_launch.h"
#include "workbench/profile_report.h"
#include "workbench/run_control.h"

namespace wb {

struct ResumeRequest {
  std::string run_dir;
  // A run whose experiment.json no longer matches the experiment its checkpoints were trained with is
  // refused, naming what changed; force continues anyway with the file's current contents.
  bool force = false;
};

// What a validation judge answers: train on or stop, and what the run's log says of it (nothing when empty).
struct ValidationVerdict {
  bool stop = false;
  std::string note;
};
// Asked on the run's worker (rank 0) after each validation, with that epoch's metrics; a stop ends the run
// after this epoch (status EarlyStopped). A sweep's early stopping of poor trials is one
// (workbench/sweep_rungs.h). A judge that throws is reported in the log and the run trains on.
using ValidationJudge = std::function<ValidationVerdict(const EpochMetrics& epoch)>;

class TrainingRun {
 public:
  // Called on the run's worker thread with each batch of events. Keep it short: copy or enqueue, then return.
  using EventSink = std::function<void(EventBatch&& batch)>;

  TrainingRun(Experiment experiment, EventSink sink);
  // Continues an interrupted run in its own folder from its latest good checkpoint (see ResumeRequest).
  TrainingRun(ResumeRequest request, EventSink sink);
  ~TrainingRun();  // requests a stop and joins the worker
  TrainingRun(const TrainingRun&) = delete;
  TrainingRun& operator=(const TrainingRun&) = delete;

  // This process is one rank of a job started by torchrun or Slurm (see processLaunchFromEnvironment): it
  // trains that rank on its device and meets the others through the launcher's store. Call before start().
  void setProcessLaunch(const ProcessLaunch& launch);
  void setValidationJudge(ValidationJudge judge);  // before start()
  // The tags a new run starts with in its run.json and the index (a sweep's trials carry the sweep's name);
  // before start(). A resumed run keeps the tags it has.
  void setRunTags(std::vector<std::string> tags);
  void start();  // returns at once; the worker loads data, builds the model and trains
  void pause();  // after the step in flight
  void resume();
  void requestStop();        // finishes the step in flight, writes a checkpoint; the run ends Interrupted
  void requestCheckpoint();  // a checkpoint after the step in flight, in addition to the scheduled ones
  // Changes the learning rate from the next step on (or change.from_step), on every rank alike; a paused
  // run takes it at once and stays paused. A ControlApplied event confirms it; checkpoints keep it. Throws
  // wb::UserError for a value that is not finite and > 0. Any thread.
  void setLearningRate(const LrChange& change);
  // Ends the run at the end of the epoch in progress, after its validation and checkpoint: the run is then
  // Interrupted (its plan is not done: resume continues with the next epoch). Cannot be taken back.
  void stopAfterEpoch(const std::string& source = "");
  // Records request.steps optimizer steps with LibTorch's profiler from request.first_step on (rank 0 with
  // several ranks), writes the trace, the table and the report into the run folder's profile/ and sends a
  // ProfileRecorded event (with its error when the run cannot: the step is beyond the run's steps, another
  // profile is in progress). Taken at a step boundary; a paused run profiles after Resume. Throws
  // wb::UserError for a request that checkProfileRequest refuses. Any thread; before start() too.
  void requestProfile(const ProfileRequest& request);
  bool isRunning() const;
  bool isPaused() const;
  void wait();                 // blocks until the worker is done (never call from a UI thread)
  RunSummary summary() const;  // valid after RunFinished

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// Runs the experiment to the end on the calling thread's behalf (start + wait); the sink still gets batches.
RunSummary trainBlocking(const Experiment& experiment, const TrainingRun::EventSink& sink);
RunSummary resumeBlocking(const ResumeRequest& request, const TrainingRun::EventSink& sink);

struct EvalResult {
  double loss = 0;
  double accuracy = 0;              // the figure called "accuracy" (classification's); 0 for a task without
  std::vector<TaskFigure> figures;  // the task's figures (taskFigureSpecs), empty without samples
  int64_t samples = 0;
};

// Evaluates a finished run's final model on its experiment's test split. Throws wb::UserError when the
// folder is not a run or its files are missing or damaged.
EvalResult evaluateRunDir(const std::string& run_dir);

struct BenchResult {
  int64_t steps = 0;
  int64_t batch_size = 0;
  double samples_per_sec = 0;
  double step_ms = 0;
  double data_ms = 0;
  double compute_ms = 0;
  double optimizer_ms = 0;
  // CUDA: the most memory the caching allocator held for tensors from the end of the first warm-up step on
  // (the steady state's peak, a CUDA graph's pool included), as torch.cuda.max_memory_allocated; 0 elsewhere.
  int64_t cuda_peak_bytes = 0;
};

// Times `steps` training steps (after a warm-up) of the experiment's model on its data, without a run folder.
BenchResult benchmarkTraining(const Experiment& experiment, int64_t steps, int64_t warmup_steps,
                              const std::function<void(const std::string&)>& log);

struct LoaderBenchResult {
  int64_t batches = 0;
  int64_t samples = 0;
  int64_t batch_size = 0;
  int64_t workers = 0;
  double seconds = 0;
  double samples_per_sec = 0;
  double peak_rss_mib = 0;  // the process's peak resident memory, dataset and queue included
};

// Takes `batches` training batches (0: one epoch) from the loader a run would build — its workers, prefetch,
// transforms and augmentation — without a model: the loader's throughput alone.
LoaderBenchResult benchmarkLoader(const Experiment& experiment, int64_t batches,
                                  const std::function<void(const std::string&)>& log);

}  // namespace wb
