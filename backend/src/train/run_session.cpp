// RunSession: one training run on its thread, from its folder to its summary (see run_session.h).
#include "train/run_session.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/text_dataset.h"
#include "distributed/collective_error.h"
#include "distributed/device_selection.h"
#include "distributed/process_group_ranks.h"
#include "evaluation/evaluation.h"
#include "model/layers/attention.h"
#include "model/model_build_context.h"
#include "model/step_generator.h"
#include "optim/autocast_guard.h"
#include "optim/fused_adam.h"
#include "optim/optimizer_factory.h"
#include "run_folder/checkpoint_file.h"
#include "run_folder/training_state.h"
#include "task/make_task.h"
#include "torch_compat.h"
#include "train/checkpoint_writer.h"
#include "train/rank_step.h"
#include "train/rank_trainer.h"
#include "train/run_error_edge.h"
#include "train/training_data.h"
#include "train/training_host.h"
#include "train/training_model.h"
#include "util/atomic_file.h"
#include "util/cuda_memory.h"
#include "util/fast_paths.h"
#include "util/host_allocator.h"
#include "workbench/errors.h"
#include "workbench/event_json.h"
#include "workbench/experiment_defaults.h"
#include "workbench/run_index.h"
#include "workbench/run_info.h"
#include "workbench/system_info.h"

namespace wb {
namespace {

// Dynamic padding's cost for the texts, with and without length bucketing, so the switch shows its worth.
std::string paddingLine(const Experiment& e, const Dataset& data) {
  const int64_t batch = e.train.batch_size;
  const auto percent = [](double share) {
    return std::to_string(static_cast<int>(share * 100 + 0.5)) + " %";
  };
  const double plain = trainingPaddingWasted(data.train, batch, false, e.seed);
  const double bucketed = trainingPaddingWasted(data.train, batch, true, e.seed);
  return "Padding wasted per batch of " + std::to_string(batch) + ": " +
         percent(e.data.text.bucket_by_length ? bucketed : plain) +
         (e.data.text.bucket_by_length ? " with length buckets (" + percent(plain) + " without)"
                                       : " (" + percent(bucketed) + " with data.text.bucket_by_length)");
}

namespace fs = std::filesystem;

// `step`: the optimizer's faster step in words (stepDescription), "" for LibTorch's own.
std::string describeOptimizer(const Experiment& e, const TrainingPlan& plan, const std::string& step) {
  std::ostringstream out;
  out << "Optimizer " << wordOf(e.optimizer.name) << " (lr " << e.optimizer.lr << ", weight decay "
      << e.optimizer.weight_decay << (step.empty() ? "" : ", " + step) << "), schedule "
      << wordOf(e.schedule.name);
  if (e.schedule.warmup_steps > 0) out << " after " << e.schedule.warmup_steps << " warmup steps";
  out << "; " << plan.epochs << " epoch(s) of " << plan.steps_per_epoch << " steps, " << plan.total_steps
      << " steps in all, batch " << e.train.batch_size;
  if (e.train.grad_accum > 1) out << " x " << e.train.grad_accum << " accumulated";
  return out.str();
}

RunError classify(std::exception_ptr error) {
  return classifyRunError(
      error,
      {"Lower train.batch_size (or use train.grad_accum to keep the effective batch), or a smaller model.",
       "Lower train.batch_size or data.limit, or close other programs.",
       "Lower optimizer.lr, set train.clip_grad_norm (e.g. 1.0), or add warmup (schedule.warmup_steps); "
       "check the data for NaN or infinite values. The metrics up to this point are kept in the run folder.",
       "The run folder keeps the log of what happened before."});
}

std::string rankList(const RankLayout& layout) {
  std::string out;
  for (size_t r = 0; r < layout.devices.size(); ++r) out += (r ? ", " : "") + layout.devices[r];
  return out;
}

std::string describeDataParallel(const TrainConfig& train, const RankLayout& layout, torch::Device device) {
  std::ostringstream line;
  line << "Data parallel: " << layout.world_size << " ranks (" << rankList(layout) << "), "
       << (device.is_cuda() ? "NCCL" : "Gloo");
  if (train.shard == ShardLevel::Parameters) {
    line << ", gradients averaged layer by layer to their owners";
  } else {
    line << (train.shard == ShardLevel::Gradients ? ", gradients reduce-scattered in chunks of "
                                                  : ", gradients averaged in buckets of ")
         << train.bucket_mb << " MB";
  }
  line << ", batch " << train.batch_size << " per rank = global batch "
       << train.batch_size * layout.world_size * std::max<int64_t>(1, train.grad_accum)
       << (train.sync_batchnorm ? ", batch norm synchronized" : "")
       << (train.shard == ShardLevel::None ? ""
           : train.shard == ShardLevel::Optimizer
               ? ", each rank keeps its shard's optimizer state (train.shard optimizer)"
           : train.shard == ShardLevel::Gradients
               ? ", each rank keeps its shard's gradients and optimizer state (train.shard gradients)"
               : ", each rank keeps its shard's parameters, gradients and optimizer state and gathers each "
                 "layer's parameters around its forward and backward (train.shard parameters)")
       << ", collectives time out after " << train.collective_timeout << " s";
  return line.str();
}

}  // namespace

RunSession::RunSession(Experiment& experiment_, const std::optional<ResumeRequest>& resume_,
                       const std::optional<ProcessLaunch>& launch_, TrainingControl& control_,
                       EventStream::Sink sink)
    : experiment(experiment_),
      resume(resume_),
      launch(launch_),
      control(control_),
      events(std::move(sink)),
      lead_process(!launch_ || launch_->rank == 0) {}

RunSession::~RunSession() = default;

RunSummary RunSession::run() {
  try {
    if (launch) {
      events.log(LogLevel::Info, describe(*launch));
      const auto timeout =
          std::chrono::milliseconds(static_cast<int64_t>(experiment.train.collective_timeout * 1000.0));
      store = makeRankStore(launch, timeout);
    }
    if (!lead_process) {
      opened.follow(store, *launch, resume.has_value());
    } else if (resume) {
      opened.reopen(*resume, launch);
    } else {
      opened.create();
    }
    announceFolder();
    setUpDevicesAndData();
    buildRanks();
    trainRanks();
    saveModel();
  } catch (...) {
    error = classify(std::current_exception());
    if (!failed_rank.empty()) error->message = failed_rank + error->message;
    result.status = RunStatus::Failed;
    if (store && launch) {
      try {
        std::rethrow_exception(std::current_exception());
      } catch (const CollectiveError&) {
      } catch (...) {
        announceRankFailure(store, launch->rank, error->message);
      }
    }
  }
  return finish();
}

// The run's folder as the others see it: the recipe line, the control requests, the ranks' store, the index.
void RunSession::announceFolder() {
  // Before anything is loaded: the three settings that decide most of what a short run reaches.
  events.log(LogLevel::Info, describeTrainingRecipe(experiment));
  if (lead_process) opened.run_dir = opened.folder->path();
  if (lead_process) {
    // Other shells control the run through its folder (workbench-cli control).
    watcher = std::make_unique<ControlRequestWatcher>(opened.run_dir, control);
    if (watcher->staleRequests() > 0) {
      events.log(LogLevel::Warning,
                 "Removed " + std::to_string(watcher->staleRequests()) +
                     " control request(s) left in control/ from before this session started");
    }
  }
  if (store && lead_process) {
    // The checkpoint first: the others read it once they see the folder.
    const std::string dir = absoluteFolder(opened.folder->path());
    const std::string continue_from =
        opened.checkpoint ? fs::absolute(opened.checkpoint->path).string() : std::string();
    store->set("wb/checkpoint", std::vector<uint8_t>(continue_from.begin(), continue_from.end()));
    store->set("wb/run_dir", std::vector<uint8_t>(dir.begin(), dir.end()));
  }
  hash = experimentHash(experimentToJson(experiment).dump());
  if (lead_process) {
    index = std::make_unique<RunIndexEntry>(opened.runs_dir, opened.folder->path(), experiment, hash,
                                            resume.has_value(), control.runTags());
  }
}

void RunSession::setUpDevicesAndData() {
  layout = layoutRanks(experiment, launch);
  parallel = layout.world_size > 1;
  device = layout.local.front().device;
  const TrainingHost host = prepareTrainingHost(
      experiment.train, device,
      parallel ? std::optional<int64_t>(coresPerRank(experiment.train, layout.ranks_on_this_machine))
               : std::nullopt);
  events.log(LogLevel::Info, describe(querySystemInfo()));
  events.log(LogLevel::Info, parallel ? host.threads + " per rank" : host.threads);
  events.log(LogLevel::Info, host.host_memory);
  if (host.cuda_switches) events.log(LogLevel::Info, *host.cuda_switches);
  if (parallel) events.log(LogLevel::Info, describeDataParallel(experiment.train, layout, device));
  if (!parallel && experiment.train.shard != ShardLevel::None) {
    events.log(LogLevel::Info, "train.shard " + wordString(experiment.train.shard) +
                                   ": one rank, one shard, the whole training state (as \"none\")");
  }

  // One rank's data may live on its device; several ranks each take their batches to their own.
  TrainingData loaded = loadTrainingData(experiment, device, !parallel);
  data = std::move(loaded.data);
  events.log(LogLevel::Info, data.description);
  if (experiment.data.dataset == DatasetName::Text) events.log(LogLevel::Info, paddingLine(experiment, data));
  if (loaded.placement) events.log(LogLevel::Info, loaded.placement->reason);

  shard = (data.train.size() + layout.world_size - 1) / layout.world_size;
  plan = planTraining(experiment.train, shard);
}

// Every local rank's model, optimizer, schedule and scaler, built from the same seed, one after another.
void RunSession::buildRanks() {
  ranks = std::make_unique<RankLaunch>(layout);
  ranks->build(
      [this](TrainingRank& rank) {
        RankGroup* sync_batchnorm = parallel && experiment.train.sync_batchnorm ? rank.group.get() : nullptr;
        TrainingModel built = buildTrainingModel(experiment, data, rank.placement.device, sync_batchnorm);
        if (!opened.checkpoint && !startingWeightsOf(experiment.model).empty()) {
          starting_weights.loadInto(*built.model);
        }
        rank.setUp(experiment, plan, ownedModel(std::move(built)), {}, opened.run_dir);
      },
      opened.checkpoint ? &*opened.checkpoint : nullptr);
  if (opened.checkpoint)
    resume_point =
        RankProgress::fromJson(opened.checkpoint->contents.meta.at("progress"), *makeTask(experiment));
  starting_weights.report(events, lead_process ? opened.folder->file("weights_load.json") : std::string());
  RankStep& lead = *ranks->lead().step;
  const ModelInfo info = lead.model().info();
  result.parameters = info.parameters;
  result.flops_per_sample = info.flops_per_sample;
  // A text model's FLOPs grow with each batch's length: none is given (0).
  events.log(LogLevel::Info, "Model: " + std::to_string(info.parameters) + " parameters" +
                                 (info.flops_per_sample > 0
                                      ? ", " + std::to_string(info.flops_per_sample) + " FLOPs per sample"
                                      : std::string()) +
                                 "\n" + info.summary);
  if (const auto line = describeAttention(lead.model(), device,
                                          autocastDtype(experiment.train.amp).value_or(torch::kFloat))) {
    events.log(LogLevel::Info, *line);
  }
  events.log(LogLevel::Info, describeOptimizer(experiment, plan, stepDescription(lead.optimizer())) +
                                 (parallel ? " per rank" : ""));
  // Sharded gradients (train.shard gradients, parameters) bypass the allreduce's buckets: the data-parallel
  // line above says how they travel.
  if (parallel && ranks->lead().parallel->bucketCount() > 0) {
    events.log(LogLevel::Info, std::to_string(ranks->lead().parallel->bucketCount()) + " gradient bucket(s)");
  }
  if (device.is_cuda()) resetCudaPeakMemory(device.index() < 0 ? 0 : device.index());
  if (experiment.train.amp != Precision::Off) {
    events.log(LogLevel::Info, "Mixed precision: " + wordString(experiment.train.amp) + " autocast on " +
                                   device.str() +
                                   (lead.scaler().enabled() ? ", dynamic loss scaling from 65536" : ""));
    if (experiment.train.amp == Precision::Bf16 && device.is_cpu()) {
      const CpuBf16Cost cost = cpuBf16Cost(queryCpuFeatures());
      events.log(cost.slower_than_fp32 ? LogLevel::Warning : LogLevel::Info, cost.summary);
    }
  }
  if (const GraphChoice& graphs = lead.graphChoice(); !graphs.reason.empty()) {
    const bool refused = experiment.train.cuda_graphs == AutoSwitch::On && !graphs.capture;
    events.log(refused ? LogLevel::Warning : LogLevel::Info, graphs.reason);
  }
  if (resume_point) {
    events.log(LogLevel::Info, "Continuing at step " + std::to_string(resume_point->step) + ", epoch " +
                                   std::to_string(resume_point->epoch) + ", batch " +
                                   std::to_string(resume_point->next_batch));
  }
  if (resume_point)
    resume_point->restartEpochIfPast((shard + experiment.train.batch_size - 1) / experiment.train.batch_size);

  checkpoints = std::make_unique<CheckpointStore>(
      opened.run_dir, experiment.train.keep_checkpoints,
      experiment.train.early_stopping.metric != ValidationMetric::ValAccuracy);
  if (lead_process) {
    checkpoint_writer = std::make_unique<CheckpointWriter>(*checkpoints, events, *opened.folder,
                                                           experimentToJson(experiment));
  }
}

// After initialization, before training: a resumed run's checkpoint holds its weights instead. Each local
// rank loads the same file (read once), so the ranks start equal as they do from one seed.
void RunSession::writeCheckpoint(const RankProgress& progress) {
  TrainingRank& lead = ranks->lead();
  nlohmann::json meta = {
      {"experiment_hash", hash},
      {"wall_s", opened.wall_before + std::chrono::duration<double>(Clock::now() - started).count()},
      {"world_size", layout.world_size},
      {"devices", layout.devices}};
  // The store keeps the best checkpoint by it besides the newest.
  if (progress.val_metric) meta["val_metric"] = *progress.val_metric;
  checkpoint_writer->write(progress, lead.step->model(), lead.step->optimizer(), *lead.schedule,
                           lead.step->scaler(), meta);
  index->progress(progress, events);
}

void RunSession::trainRanks() {
  const auto failure =
      ranks->train(RankTraining{.experiment = experiment,
                                .data = data,
                                .plan = plan,
                                .events = events,
                                .control = control,
                                .resume_from = resume_point ? &*resume_point : nullptr,
                                .write_checkpoint = [this](const RankProgress& p) { writeCheckpoint(p); }},
                   store, rankGroupOptions(experiment.train, launch));
  if (failure) {
    bool collective = false;
    try {
      std::rethrow_exception(failure->error);
    } catch (const CollectiveError&) {
      collective = true;  // its message names the ranks itself
    } catch (...) {
    }
    if (parallel && !collective) {
      failed_rank = "Rank " + std::to_string(failure->rank) + " of " + std::to_string(layout.world_size) +
                    " (" + layout.devices[failure->rank] + "): ";
    }
    std::rethrow_exception(failure->error);
  }
}

void RunSession::saveModel() {
  const RankOutcome& outcome = ranks->lead().outcome;
  Model& model = ranks->lead().step->model();
  result.status = outcome.status;
  result.steps = outcome.steps;
  result.epochs = outcome.epochs;
  result.best_val_loss = outcome.best_val_loss;
  result.best_val_accuracy = outcome.best_val_accuracy;
  result.samples_per_sec = outcome.train_seconds > 0 ? outcome.samples / outcome.train_seconds : 0;

  if (!lead_process) {
    // Rank 0's process saves the model and measures it; this one is done.
  } else if (outcome.status == RunStatus::Interrupted) {
    model.save(opened.folder->modelPath());  // the weights so far, for `eval`; the checkpoint is what resumes
    events.log(LogLevel::Info, "Stopped at step " + std::to_string(outcome.steps) +
                                   " with a checkpoint; continue with: workbench-cli resume " +
                                   opened.folder->path());
  } else {
    const int64_t eval_batch = std::max<int64_t>(256, experiment.train.batch_size * 2);
    const EvalResult test = evaluateModel(model, data.test, eval_batch, device, *makeTask(experiment));
    result.test_loss = test.loss;
    result.test_accuracy = test.accuracy;
    model.save(opened.folder->modelPath());
    std::ostringstream done;
    done << "Test accuracy " << test.accuracy << ", test loss " << test.loss << " on " << test.samples
         << " samples; model saved to " << opened.folder->modelPath();
    events.log(LogLevel::Info, done.str());
  }
}

RunSummary RunSession::finish() {
  watcher.reset();  // no requests are taken once training is over
  // The run's tensors (models, optimizer states, data, the checkpoint read), then the memory they held.
  ranks.reset();
  data = Dataset{};
  opened.checkpoint.reset();
  releaseFreedHostMemory();
  result.wall_s = opened.wall_before + std::chrono::duration<double>(Clock::now() - started).count();
  // Past this point the run's end must reach the subscriber whatever the disk does: a failure to record it
  // (EventStream::flush) has already reached the subscriber as an error line.
  const auto tell = [this](Event event) {
    try {
      events.post(std::move(event));
    } catch (const FileWriteError&) {
    }
  };
  if (error) tell(*error);
  if (opened.folder && opened.folder_owned) {
    try {
      opened.folder->writeSummary(result, error ? &*error : nullptr);
    } catch (const std::exception& e) {
      tell(RunError{ErrorKind::BadInput, std::string("Could not write summary.json: ") + e.what(),
                    "Check the disk holding output.runs_dir."});
    }
  }
  if (index)
    index->finish(result, [&tell](const std::string& warning) { tell(LogLine{LogLevel::Warning, warning}); });
  return result;
}

}  // namespace wb
