#include "workbench/training_run.h"

#include <chrono>
#include <optional>
#include <sstream>
#include <thread>

#include "data/dataset.h"
#include "model/model.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer_factory.h"
#include "train/device_selection.h"
#include "train/evaluation.h"
#include "train/event_stream.h"
#include "train/rank_trainer.h"
#include "train/run_folder.h"
#include "train/training_control.h"
#include "util/cuda_memory.h"
#include "workbench/errors.h"
#include "workbench/system_info.h"

namespace wb {
namespace {

using Clock = std::chrono::steady_clock;

std::string describeOptimizer(const Experiment& e, const TrainingPlan& plan) {
  std::ostringstream out;
  out << "Optimizer " << e.optimizer.name << " (lr " << e.optimizer.lr << ", weight decay "
      << e.optimizer.weight_decay << "), schedule " << e.schedule.name;
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

}  // namespace

struct TrainingRun::Impl {
  Experiment experiment;
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
  std::unique_ptr<Model> model;
  std::optional<RunError> error;
  try {
    const std::string threads = configureThreads(experiment.train.threads);
    torch::manual_seed(experiment.seed);
    const torch::Device device = resolveDevice(experiment.train.devices.at(0));

    folder = std::make_unique<RunFolder>(RunFolder::create(experiment.output.runs_dir, experiment.name));
    folder->writeExperiment(experimentToJson(experiment));
    events.setRecorder(folder.get());
    result.run_dir = folder->path();
    events.log(LogLevel::Info, "Run folder: " + folder->path());
    events.log(LogLevel::Info, describe(querySystemInfo()));
    events.log(LogLevel::Info, threads);

    const Dataset data = loadDataset(experiment.data, experiment.seed);
    events.log(LogLevel::Info, data.description);

    model = buildModel(experiment.model, data.sample_shape, data.num_classes);
    model->to(device);
    const ModelInfo info = model->info();
    result.parameters = info.parameters;
    result.flops_per_sample = info.flops_per_sample;
    events.log(LogLevel::Info, "Model: " + std::to_string(info.parameters) + " parameters, " +
                                   std::to_string(info.flops_per_sample) + " FLOPs per sample\n" + info.summary);

    auto optimizer = makeOptimizer(experiment.optimizer, model->namedParameters());
    const TrainingPlan plan = planTraining(experiment.train, data.train_x.size(0));
    LrSchedule schedule(experiment.schedule, experiment.optimizer.lr, plan.total_steps);
    events.log(LogLevel::Info, describeOptimizer(experiment, plan));
    if (device.is_cuda()) resetCudaPeakMemory(device.index() < 0 ? 0 : device.index());

    RankSetup setup{experiment, data, *model, *optimizer, schedule, plan, device, events, control};
    const RankOutcome outcome = trainRank(setup);
    result.status = outcome.status;
    result.steps = outcome.steps;
    result.epochs = outcome.epochs;
    result.best_val_loss = outcome.best_val_loss;
    result.best_val_accuracy = outcome.best_val_accuracy;
    result.samples_per_sec = outcome.train_seconds > 0 ? outcome.samples / outcome.train_seconds : 0;

    const int64_t eval_batch = std::max<int64_t>(256, experiment.train.batch_size * 2);
    const EvalResult test = evaluateModel(*model, data.test_x, data.test_y, eval_batch, device);
    result.test_loss = test.loss;
    result.test_accuracy = test.accuracy;
    model->save(folder->modelPath());
    std::ostringstream done;
    done << "Test accuracy " << test.accuracy << ", test loss " << test.loss << " on " << test.samples
         << " samples; model saved to " << folder->modelPath();
    events.log(LogLevel::Info, done.str());
  } catch (...) {
    error = classify(std::current_exception());
    result.status = RunStatus::Failed;
  }
  result.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  if (error) events.post(*error);
  if (folder) {
    try {
      folder->writeSummary(result, error ? &*error : nullptr);
    } catch (const std::exception& e) {
      events.post(RunError{ErrorKind::BadInput, std::string("Could not write summary.json: ") + e.what(),
                           "Check the disk holding output.runs_dir."});
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

}  // namespace wb
