#include "workbench/training_run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "data/dataset.h"
#include "model/model.h"
#include "optim/fused_adam.h"
#include "optim/grad_scaler.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer_factory.h"
#include "runs/run_index_db.h"
#include "torch_compat.h"
#include "train/checkpoint_store.h"
#include "train/device_selection.h"
#include "train/evaluation.h"
#include "train/event_stream.h"
#include "train/rank_trainer.h"
#include "train/run_folder.h"
#include "train/training_control.h"
#include "train/training_state.h"
#include "util/cuda_memory.h"
#include "util/fast_paths.h"
#include "util/host_allocator.h"
#include "util/rng_state.h"
#include "workbench/event_json.h"
#include "workbench/run_index.h"
#include "workbench/errors.h"
#include "workbench/system_info.h"

namespace wb {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

std::string describeOptimizer(const Experiment& e, const TrainingPlan& plan, bool fused) {
  std::ostringstream out;
  out << "Optimizer " << e.optimizer.name << " (lr " << e.optimizer.lr << ", weight decay "
      << e.optimizer.weight_decay << (fused ? ", fused CPU step" : "") << "), schedule " << e.schedule.name;
  if (e.schedule.warmup_steps > 0) out << " after " << e.schedule.warmup_steps << " warmup steps";
  out << "; " << plan.epochs << " epoch(s) of " << plan.steps_per_epoch << " steps, " << plan.total_steps
      << " steps in all, batch " << e.train.batch_size;
  if (e.train.grad_accum > 1) out << " x " << e.train.grad_accum << " accumulated";
  return out.str();
}

RunError classify(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const c10::OutOfMemoryError& e) {
    return {ErrorKind::OutOfMemory, std::string("Out of device memory: ") + e.what_without_backtrace(),
            "Lower train.batch_size (or use train.grad_accum to keep the effective batch), or a smaller model."};
  } catch (const NonFiniteLossError& e) {
    return {ErrorKind::NonFinite, e.what(),
            "Lower optimizer.lr, set train.clip_grad_norm (e.g. 1.0), or add warmup (schedule.warmup_steps); "
            "check the data for NaN or infinite values. The metrics up to this point are kept in the run folder."};
  } catch (const ExperimentChangedError& e) {
    return {ErrorKind::ExperimentChanged, e.what(), e.hint()};
  } catch (const UserError& e) {
    return {ErrorKind::BadInput, e.what(), e.hint()};
  } catch (const c10::Error& e) {
    const std::string text = e.what_without_backtrace();
    if (text.find("CUDA") != std::string::npos) {
      return {ErrorKind::Device, "CUDA error: " + text, "Check the GPU with nvidia-smi, or train on \"cpu\"."};
    }
    return {ErrorKind::Internal, "LibTorch error: " + text,
            "This is likely a bug in the workbench or an unsupported model; the run folder keeps the log."};
  } catch (const std::bad_alloc&) {
    return {ErrorKind::OutOfMemory, "Out of host memory.",
            "Lower train.batch_size or data.limit, or close other programs."};
  } catch (const std::exception& e) {
    return {ErrorKind::Internal, e.what(), "The run folder keeps the log of what happened before."};
  } catch (...) {
    return {ErrorKind::Internal, "Unknown error", "The run folder keeps the log of what happened before."};
  }
}

// The form the run index keys folders by: absolute, normalized, no trailing separator.
std::string absoluteFolder(const std::string& path) {
  fs::path p = fs::absolute(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.string();
}

std::string megabytes(int64_t bytes) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MiB";
  return out.str();
}

}  // namespace

struct TrainingRun::Impl {
  Experiment experiment;
  std::optional<ResumeRequest> resume;
  EventSink sink;
  TrainingControl control;
  std::thread worker;
  std::atomic<bool> running{false};
  mutable std::mutex summary_mutex;
  RunSummary summary;

  void run();
};

void TrainingRun::Impl::run() {
  const auto started = Clock::now();
  EventStream events(sink);
  RunSummary result;
  std::unique_ptr<RunFolder> folder;
  std::unique_ptr<RunIndexDb> index;
  int64_t index_id = 0;
  std::unique_ptr<Model> model;
  std::optional<RunError> error;
  double wall_before = 0;  // earlier sessions of a resumed run
  // A resume refused before it takes the folder over (changed experiment, finished run) leaves it untouched.
  bool folder_owned = false;
  try {
    std::optional<LoadedCheckpoint> checkpoint;
    std::string runs_dir;
    if (resume) {
      folder = std::make_unique<RunFolder>(RunFolder::open(resume->run_dir));
      result.run_dir = folder->path();
      runs_dir = fs::path(absoluteFolder(folder->path())).parent_path().string();
      const ParseResult parsed = loadExperimentFile(folder->file("experiment.json"));
      if (!parsed.ok()) {
        throw UserError("The run's experiment.json cannot be used:\n" + formatIssues(parsed.issues),
                        "Fix the file in " + folder->path() + " or start a new run.");
      }
      experiment = parsed.experiment;
      if (fs::exists(folder->file("summary.json"))) {
        std::ifstream in(folder->file("summary.json"));
        const nlohmann::json previous = nlohmann::json::parse(in, nullptr, false);
        if (previous.is_object()) {
          const RunSummary before = summaryFromJson(previous);
          if (before.status == RunStatus::Completed || before.status == RunStatus::EarlyStopped) {
            throw UserError("Run " + folder->path() + " already finished (" + toString(before.status) + ").",
                            "Start a new run with `workbench-cli train`.");
          }
          wall_before = before.wall_s;
        }
      }
      if (const auto record = findRun(runs_dir, absoluteFolder(folder->path()))) {
        if (record->status == "running") {
          throw UserError("Run " + folder->path() + " is still running (process " + std::to_string(record->pid) +
                              (record->host.empty() ? "" : " on " + record->host) + ").",
                          "Stop it first (Ctrl-C or kill -TERM " + std::to_string(record->pid) +
                              "); it writes a checkpoint, then resume it.");
        }
      }
      const CheckpointStore store(folder->path(), experiment.train.keep_checkpoints,
                                  experiment.train.early_stopping.metric != "val_accuracy");
      checkpoint = store.loadLatestGood([&](const std::string& warning) { events.log(LogLevel::Warning, warning); });
      if (checkpoint) {
        // The compress section does not change training: editing it (the window's Compress dialogs do)
        // must not block resuming the training.
        auto changes = diffExperiments(checkpoint->contents.meta.value("experiment", nlohmann::json::object()),
                                       experimentToJson(experiment));
        changes.erase(std::remove_if(changes.begin(), changes.end(),
                                     [](const ExperimentChange& c) { return c.path.rfind("compress", 0) == 0; }),
                      changes.end());
        if (!changes.empty() && !resume->force) {
          throw ExperimentChangedError(
              "The run's experiment.json changed since its checkpoint was written: " + describeChanges(changes) +
                  ".",
              "Undo the change, or resume anyway (workbench-cli resume --force; in the window, Resume Anyway): "
              "training continues from the checkpoint's step with the new values.");
        }
        if (!changes.empty()) events.log(LogLevel::Warning, "Resuming with a changed experiment (forced): " +
                                                                describeChanges(changes));
        folder->truncateLogs(checkpoint->contents.meta.value("log_lengths", nlohmann::json::object()));
        wall_before = checkpoint->contents.meta.value("wall_s", 0.0);
      } else {
        // Killed before its first checkpoint: nothing to continue from, so it starts over in its folder.
        folder->truncateLogs(nlohmann::json::object());
        wall_before = 0;
      }
      std::error_code ec;
      fs::remove(folder->file("summary.json"), ec);
      folder_owned = true;
      events.setRecorder(folder.get());
      events.log(LogLevel::Info, checkpoint ? "Resuming " + folder->path() + " from " + checkpoint->path
                                            : "Resuming " + folder->path() +
                                                  ": it has no usable checkpoint, so training starts over");
    } else {
      folder = std::make_unique<RunFolder>(RunFolder::create(experiment.output.runs_dir, experiment.name));
      folder->writeExperiment(experimentToJson(experiment));
      folder_owned = true;
      events.setRecorder(folder.get());
      result.run_dir = folder->path();
      runs_dir = experiment.output.runs_dir;
      events.log(LogLevel::Info, "Run folder: " + folder->path());
    }
    const std::string hash = experimentHash(experimentToJson(experiment).dump());
    index = std::make_unique<RunIndexDb>(runs_dir);
    const std::string absolute_folder = absoluteFolder(folder->path());
    index_id = resume ? index->reopenRun(experiment.name, hash, absolute_folder)
                      : index->registerRun(experiment.name, hash, absolute_folder);

    const std::string threads = configureThreads(experiment.train.threads, experiment.train.blas_threads);
    torch::manual_seed(experiment.seed);
    const torch::Device device = resolveDevice(experiment.train.devices.at(0));
    events.log(LogLevel::Info, describe(querySystemInfo()));
    events.log(LogLevel::Info, threads);
    events.log(LogLevel::Info, keepFreedHostMemoryForReuse());
    if (device.is_cuda()) events.log(LogLevel::Info, applyCudaBackendSwitches(experiment.train));

    Dataset data = loadDataset(experiment.data, experiment.seed);
    events.log(LogLevel::Info, data.description);
    if (device.is_cuda()) {
      const DataPlacement placement = chooseDataPlacement(
          experiment.train, device, static_cast<int64_t>(data.train_x.nbytes() + data.train_y.nbytes()));
      if (placement.on_device) {
        data.train_x = data.train_x.to(device);
        data.train_y = data.train_y.to(device);
      }
      events.log(LogLevel::Info, placement.reason);
    }

    model = buildModel(experiment.model, data.sample_shape, data.num_classes);
    model->to(device);
    if (useChannelsLast(experiment.train, data.sample_shape)) {
      std::vector<torch::Tensor> tensors;
      for (const auto& p : model->namedParameters()) tensors.push_back(p.second);
      for (const auto& b : model->namedBuffers()) tensors.push_back(b.second);
      convertToChannelsLast(tensors);
    }
    const ModelInfo info = model->info();
    result.parameters = info.parameters;
    result.flops_per_sample = info.flops_per_sample;
    events.log(LogLevel::Info, "Model: " + std::to_string(info.parameters) + " parameters, " +
                                   std::to_string(info.flops_per_sample) + " FLOPs per sample\n" + info.summary);

    auto optimizer = makeOptimizer(experiment.optimizer, model->namedParameters());
    const TrainingPlan plan = planTraining(experiment.train, data.train_x.size(0));
    LrSchedule schedule(experiment.schedule, experiment.optimizer.lr, plan.total_steps);
    events.log(LogLevel::Info, describeOptimizer(experiment, plan, takesFusedStep(*optimizer)));
    if (device.is_cuda()) resetCudaPeakMemory(device.index() < 0 ? 0 : device.index());

    GradScalerOptions scaler_options;
    scaler_options.enabled = experiment.train.amp == "fp16";
    GradScaler scaler(scaler_options);
    if (experiment.train.amp != "off") {
      events.log(LogLevel::Info, "Mixed precision: " + experiment.train.amp + " autocast on " + device.str() +
                                     (scaler.enabled() ? ", dynamic loss scaling from 65536" : ""));
    }

    std::optional<RankProgress> resume_point;
    if (checkpoint) {
      restoreTrainingState(checkpoint->contents.payload, checkpoint->path, *model, *optimizer);
      schedule.loadState(checkpoint->contents.meta.value("schedule", nlohmann::json::object()));
      if (scaler.enabled() && checkpoint->contents.meta.contains("scaler")) {
        scaler.loadState(GradScalerState::fromJson(checkpoint->contents.meta["scaler"]));
      }
      resume_point = RankProgress::fromJson(checkpoint->contents.meta.at("progress"));
      events.log(LogLevel::Info, "Continuing at step " + std::to_string(resume_point->step) + ", epoch " +
                                     std::to_string(resume_point->epoch) + ", batch " +
                                     std::to_string(resume_point->next_batch));
    }

    CheckpointStore store(folder->path(), experiment.train.keep_checkpoints,
                          experiment.train.early_stopping.metric != "val_accuracy");
    const nlohmann::json experiment_json = experimentToJson(experiment);
    std::string payload;  // reused by every checkpoint of this run
    auto writeCheckpoint = [&](const RankProgress& progress) {
      const auto t0 = Clock::now();
      events.flush();  // the logs' lengths must include every event up to this step
      nlohmann::json meta = {{"format", 1},
                             {"experiment", experiment_json},
                             {"experiment_hash", hash},
                             {"progress", progress.toJson()},
                             {"schedule", schedule.state()},
                             {"scaler", scaler.state().toJson()},
                             {"log_lengths", folder->logLengths()},
                             {"wall_s", wall_before + std::chrono::duration<double>(Clock::now() - started).count()},
                             {"torch_version", compat::torchVersion()}};
      if (progress.val_metric) meta["val_metric"] = *progress.val_metric;
      serializeTrainingState(*model, *optimizer, payload);
      const std::string path = store.save(progress.step, std::move(meta), payload);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      std::ostringstream line;
      line << "Checkpoint (" << progress.reason << ") at step " << progress.step << ": "
           << fs::path(path).filename().string() << ", " << megabytes(static_cast<int64_t>(payload.size())) << " in "
           << static_cast<int64_t>(ms) << " ms";
      events.log(LogLevel::Info, line.str());
      try {
        index->updateProgress(index_id, progress.step, progress.epoch - (progress.next_batch == 0 ? 1 : 0),
                              progress.best_val_loss, progress.best_val_accuracy);
      } catch (const std::exception& e) {
        events.log(LogLevel::Warning, std::string("The run index was not updated: ") + e.what());
      }
    };

    RankSetup setup{experiment, data,    *model, *optimizer, schedule, plan, device, events, control, scaler,
                    resume_point ? &*resume_point : nullptr, writeCheckpoint, StepHooks{}};
    const RankOutcome outcome = trainRank(setup);
    result.status = outcome.status;
    result.steps = outcome.steps;
    result.epochs = outcome.epochs;
    result.best_val_loss = outcome.best_val_loss;
    result.best_val_accuracy = outcome.best_val_accuracy;
    result.samples_per_sec = outcome.train_seconds > 0 ? outcome.samples / outcome.train_seconds : 0;

    if (outcome.status == RunStatus::Interrupted) {
      model->save(folder->modelPath());  // the weights so far, for `eval`; the checkpoint is what resumes
      events.log(LogLevel::Info, "Stopped at step " + std::to_string(outcome.steps) +
                                     " with a checkpoint; continue with: workbench-cli resume " + folder->path());
    } else {
      const int64_t eval_batch = std::max<int64_t>(256, experiment.train.batch_size * 2);
      const EvalResult test = evaluateModel(*model, data.test_x, data.test_y, eval_batch, device);
      result.test_loss = test.loss;
      result.test_accuracy = test.accuracy;
      model->save(folder->modelPath());
      std::ostringstream done;
      done << "Test accuracy " << test.accuracy << ", test loss " << test.loss << " on " << test.samples
           << " samples; model saved to " << folder->modelPath();
      events.log(LogLevel::Info, done.str());
    }
  } catch (...) {
    error = classify(std::current_exception());
    result.status = RunStatus::Failed;
  }
  releaseFreedHostMemory();  // the run's tensors went with the scope above
  result.wall_s = wall_before + std::chrono::duration<double>(Clock::now() - started).count();
  if (error) events.post(*error);
  if (folder && folder_owned) {
    try {
      folder->writeSummary(result, error ? &*error : nullptr);
    } catch (const std::exception& e) {
      events.post(RunError{ErrorKind::BadInput, std::string("Could not write summary.json: ") + e.what(),
                           "Check the disk holding output.runs_dir."});
    }
  }
  if (index && index_id > 0) {
    try {
      index->finishRun(index_id, result);
    } catch (const std::exception& e) {
      events.log(LogLevel::Warning, std::string("The run index was not updated: ") + e.what());
    }
  }
  {
    std::lock_guard<std::mutex> lock(summary_mutex);
    summary = result;
  }
  running = false;
  events.post(RunFinished{result});
  events.flush();
}

TrainingRun::TrainingRun(Experiment experiment, EventSink sink) : m_impl(std::make_unique<Impl>()) {
  m_impl->experiment = std::move(experiment);
  m_impl->sink = std::move(sink);
}

TrainingRun::TrainingRun(ResumeRequest request, EventSink sink) : m_impl(std::make_unique<Impl>()) {
  m_impl->resume = std::move(request);
  m_impl->sink = std::move(sink);
}

TrainingRun::~TrainingRun() {
  m_impl->control.requestStop();
  if (m_impl->worker.joinable()) m_impl->worker.join();
}

void TrainingRun::start() {
  if (m_impl->worker.joinable()) return;
  m_impl->running = true;
  m_impl->worker = std::thread([impl = m_impl.get()] {
    // GradMode, autocast and the CUDA device are per thread: everything the run sets up, it sets up here.
    impl->run();
  });
}

void TrainingRun::pause() { m_impl->control.pause(); }
void TrainingRun::resume() { m_impl->control.resume(); }
void TrainingRun::requestStop() { m_impl->control.requestStop(); }
void TrainingRun::requestCheckpoint() { m_impl->control.requestCheckpoint(); }
bool TrainingRun::isRunning() const { return m_impl->running.load(); }
bool TrainingRun::isPaused() const { return m_impl->control.paused(); }

void TrainingRun::wait() {
  if (m_impl->worker.joinable()) m_impl->worker.join();
}

RunSummary TrainingRun::summary() const {
  std::lock_guard<std::mutex> lock(m_impl->summary_mutex);
  return m_impl->summary;
}

RunSummary trainBlocking(const Experiment& experiment, const TrainingRun::EventSink& sink) {
  TrainingRun run(experiment, sink);
  run.start();
  run.wait();
  return run.summary();
}

RunSummary resumeBlocking(const ResumeRequest& request, const TrainingRun::EventSink& sink) {
  TrainingRun run(request, sink);
  run.start();
  run.wait();
  return run.summary();
}

}  // namespace wb
