// trainRank: one rank's epochs, each a run of optimizer steps (the shared step body with the run's parts),
// with the live controls agreed by every rank between steps, metrics reported every train.log_every_steps,
// and at each epoch's end the epoch's metrics, validation, the checkpoint and early stopping.
#include "train/rank_trainer.h"

#include <chrono>
#include <cmath>
#include <sstream>

#include "control/rank_agreement.h"
#include "control/rank_controls.h"
#include "data/batch_loader.h"
#include "evaluation/evaluation.h"
#include "optim/parameter_groups.h"
#include "pipeline/pipeline_model.h"
#include "profiling/step_profiler.h"
#include "step/phase_range.h"
#include "step/training_step.h"
#include "train/early_stopping.h"
#include "train/epoch_ledger.h"
#include "train/frozen_parameters.h"
#include "train/metrics_window.h"
#include "util/cuda_memory.h"
#include "util/fast_paths.h"

namespace wb {
namespace {

using Clock = TrainClock;

std::string formatNumber(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

BatchLoaderOptions loaderOptions(const RankSetup& s, const RankGroup& group) {
  const Experiment& exp = s.experiment;
  BatchLoaderOptions options;
  options.batch_size = exp.train.batch_size;
  options.shuffle = true;
  options.seed = exp.seed;
  options.device = s.step.device();
  options.pin_memory = exp.train.pinned_memory;
  options.prefetch = exp.data.prefetch;
  options.channels_last = useChannelsLast(exp.train, s.data.sample_shape);
  if (exp.data.augment_enabled && s.data.sample_shape.size() == 3) options.augment = exp.data.augment;
  options.bucket_by_length = exp.data.dataset == DatasetName::Text && exp.data.text.bucket_by_length;
  options.rank = group.rank();
  options.world_size = group.size();
  return options;
}

class RankTrainer {
 public:
  explicit RankTrainer(const RankSetup& s);
  RankOutcome run();

 private:
  // model.freeze's summary and plan, optimizer.param_groups's groups: once, before the first step.
  void logParameterChoices();
  // model.unfreeze: what is due by `epoch` thawed and in the optimizer, before the step that follows.
  void thawDue(int64_t epoch);
  // Trains the epoch from where it stands; false when a stop request ended it (it wrote its checkpoint).
  bool trainEpoch(int64_t epoch);
  // Between optimizer steps, what every rank agreed on (m_controls applies the learning-rate change and stop
  // after this epoch): a checkpoint, a pause (waited out here). False when the run stops now.
  bool atStepBoundary(int64_t epoch);
  // One micro-batch; at the last of a step, the optimizer step. False when the plan's last step is done.
  bool trainBatch(const Batch& batch, int64_t epoch, Clock::time_point loaded);
  // The epoch's metrics, validation and checkpoint; false when the run ends after it (early stopping, stop
  // after this epoch).
  bool endEpoch(int64_t epoch);
  EvalResult validate();
  // The run's validation judge (rank 0 only; false elsewhere): true when the run ends after this epoch.
  bool judgeValidation(const EpochMetrics& epoch);
  RankProgress progressAt(int64_t next_epoch, int64_t next_batch, const char* reason);
  void writeCheckpoint(const RankProgress& p);
  void report(int64_t epoch, double epoch_fraction) {
    m_reporter.report(m_window, m_step, epoch, epoch_fraction, m_train_time);
  }

  const RankSetup& s;
  const TrainConfig& m_train;
  Model& m_model;
  GradScaler& m_scaler;
  const torch::Device m_device;
  SingleRank m_single;
  RankGroup& m_group;
  const bool m_lead;  // rank 0 takes checkpoint requests and keeps the checkpoint clock
  BatchLoader m_loader;
  const int64_t m_accum;
  const bool m_checkpoints;
  StepParts& m_parts;
  const Task& m_task;
  TrainingStep& m_body;
  GraphedStep* m_graphed;  // train.cuda_graphs: the step replayed from a CUDA graph; null = eager
  EarlyStopping m_early_stopping;
  MetricsWindow m_window;
  UtilizationAdvisor m_advisor;
  WindowReporter m_reporter;
  RankOutcome m_outcome;
  Clock::duration m_train_time{};
  int64_t m_step = 0;
  int64_t m_first_epoch = 1;
  // The live controls as every rank agreed on them, and the checkpoint clock.
  RankControls m_controls;
  // The epoch in progress.
  EpochLedger m_epoch;
  int64_t m_micro = 0;  // batches of this epoch consumed
  // A few steps recorded with LibTorch's profiler when asked (rank 0's).
  StepProfiler m_profiler{{.take_request = [this] { return s.control.takeProfileRequest(); },
                           .events = s.events,
                           .lead = m_lead,
                           .device = m_device,
                           .rank = m_group.rank(),
                           .world_size = m_group.size(),
                           .total_steps = s.plan.total_steps,
                           .run_dir = s.events.recordingFolder()}};
};

RankTrainer::RankTrainer(const RankSetup& setup)
    : s(setup),
      m_train(setup.experiment.train),
      m_model(setup.step.model()),
      m_scaler(setup.step.scaler()),
      m_device(setup.step.device()),
      m_single(m_device),
      m_group(setup.group ? *setup.group : m_single),
      m_lead(m_group.rank() == 0),
      m_loader(setup.data.train, loaderOptions(setup, m_group)),
      m_accum(std::max<int64_t>(1, m_train.grad_accum)),
      m_checkpoints(static_cast<bool>(setup.checkpoint)),
      m_parts(setup.step.parts()),
      m_task(setup.step.task()),
      m_body(setup.step.body()),
      m_graphed(setup.step.graphed()),
      m_early_stopping(m_train.early_stopping),
      m_advisor({.batch_size = m_train.batch_size,
                 .log_every_steps = m_train.log_every_steps,
                 .workers = setup.experiment.data.workers,
                 .cuda_graphs = m_graphed != nullptr}),
      m_reporter{m_group,
                 m_parts,
                 m_scaler,
                 setup.schedule,
                 setup.plan.total_steps,
                 setup.events,
                 m_device,
                 setup.rank_devices,
                 setup.resume_from ? setup.resume_from->step : 0,
                 setup.gpu_sampler,
                 &m_advisor},
      m_controls(setup.control, m_group, setup.schedule, setup.events, m_train.checkpoint_every_minutes,
                 m_checkpoints),
      m_epoch(m_group, m_task, m_device, m_scaler.enabled()) {
  m_window.reset(m_device, m_scaler.enabled() ? m_scaler.skippedSteps() : 0);
  if (const auto* pipeline = dynamic_cast<const PipelineModel*>(&m_model)) {
    m_reporter.stage_devices = pipeline->stageDevices();
    // Each device's peak from here, as the run's own device's (run_session.cpp resets that one).
    for (const StageDevice& d : m_reporter.stage_devices) {
      if (d.device.is_cuda()) resetCudaPeakMemory(d.device.index());
    }
  }
  if (const RankProgress* r = s.resume_from) {
    m_step = r->step;
    m_first_epoch = r->epoch;
    m_outcome.best_val_loss = r->best_val_loss;
    m_outcome.best_val_accuracy = r->best_val_accuracy;
    // Checkpoints count the whole group's samples; each rank counts its own.
    m_outcome.samples = (r->samples - r->epoch_samples) / m_group.size();  // before the epoch in progress
    m_outcome.epochs = r->epoch - (r->next_batch == 0 ? 1 : 0);
    m_early_stopping.loadState(r->early_stopping);
    m_train_time =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(r->train_seconds));
  }
}

RankOutcome RankTrainer::run() {
  if (m_lead) logParameterChoices();
  for (int64_t epoch = m_first_epoch; epoch <= s.plan.epochs && m_step < s.plan.total_steps; ++epoch) {
    m_outcome.epochs = epoch;
    if (!trainEpoch(epoch)) {
      m_outcome.status = RunStatus::Interrupted;
      break;
    }
    if (!endEpoch(epoch)) break;
  }
  if (const std::string measured = m_body.takeReport(); m_lead && !measured.empty()) {
    s.events.log(LogLevel::Info, measured);
  }
  m_profiler.finish(m_step);
  m_outcome.steps = m_step;
  m_outcome.train_seconds = toSeconds(m_train_time);
  // The group's (shards are of equal length).
  m_outcome.samples = m_outcome.samples * m_group.size() + m_epoch.carriedDone();
  return m_outcome;
}

// At the epoch's first step rather than its start, so that every checkpoint at an epoch's start (its end
// of the epoch before, or a stop before its first step) holds the optimizer as it was before the thaw, and
// every one inside the epoch as it is after: a resume redoes exactly the thaws its checkpoint had seen.
void RankTrainer::thawDue(int64_t epoch) {
  FrozenParameters* frozen = s.step.frozen();
  if (!frozen) return;
  const std::string thawed =
      thawIntoOptimizer(*frozen, epoch, m_model, s.step.optimizer(), s.experiment.optimizer, s.schedule);
  if (thawed.empty()) return;
  if (m_lead) s.events.log(LogLevel::Info, thawed);
  m_model.train(true);  // the thawed batch norms train again
  frozen->keepStatisticsFrozen(m_model);
}

void RankTrainer::logParameterChoices() {
  if (const std::string step = m_body.describe(); !step.empty()) s.events.log(LogLevel::Info, step);
  if (const FrozenParameters* frozen = s.step.frozen()) {
    const std::string plan = frozen->plan();
    s.events.log(LogLevel::Info, frozen->summary() + (plan.empty() ? "" : "\n" + plan));
  }
  if (s.experiment.optimizer.param_groups.empty()) return;
  std::vector<std::string> names;
  std::vector<bool> trainable;
  for (const auto& [name, tensor] : m_model.namedParameters()) {
    names.push_back(name);
    trainable.push_back(tensor.requires_grad());
  }
  s.events.log(LogLevel::Info,
               describeParameterGroups(s.experiment.optimizer, names, m_model.externalNames(), trainable));
}

bool RankTrainer::trainEpoch(int64_t epoch) {
  m_model.train(true);
  if (FrozenParameters* frozen = s.step.frozen()) frozen->keepStatisticsFrozen(m_model);
  const bool resuming_here = s.resume_from && epoch == m_first_epoch;
  const int64_t first_batch = resuming_here ? s.resume_from->next_batch : 0;
  // The epoch's partial sums in a checkpoint are the group's: rank 0 carries them on, the others start at 0.
  const RankProgress* carry = resuming_here && m_lead ? s.resume_from : nullptr;
  m_loader.startEpoch(epoch, first_batch);
  m_epoch.begin(carry);
  m_micro = first_batch;
  bool stopped = false;
  while (true) {
    if (m_micro % m_accum == 0 && !atStepBoundary(epoch)) {
      stopped = true;
      break;
    }
    const auto t0 = Clock::now();
    std::optional<Batch> batch = [&] {
      PhaseRange data(StepPhase::Data);
      return m_loader.next();
    }();
    const auto t1 = Clock::now();
    m_window.data += t1 - t0;
    if (!batch || !trainBatch(*batch, epoch, t1)) break;
  }
  report(epoch, m_epoch.fraction(m_loader.samples(), m_group.size()));
  // Exactly where the loop stands when stopped: no epoch metrics, no validation (the resumed run does them
  // when the epoch really ends, as the uninterrupted run would).
  if (stopped) writeCheckpoint(progressAt(epoch, m_micro, "stop"));
  m_outcome.samples += m_epoch.ownSamples();
  m_epoch.close();
  return !stopped;
}

bool RankTrainer::atStepBoundary(int64_t epoch) {
  for (;;) {
    const ControlDecision d = m_controls.agree(m_step, epoch);
    if (d.stop) return false;
    if (d.checkpoint_requested || d.checkpoint_due) {
      writeCheckpoint(progressAt(epoch, m_micro, d.checkpoint_requested ? "requested" : "minutes"));
    }
    if (!d.pause) {
      m_profiler.atStepBoundary(m_step);
      return true;
    }
    // Before sleeping, the front end (and the run folder's logs) get everything done so far: the steps since
    // the last report and a checkpoint's log line, not only after Resume. Every rank takes this branch alike,
    // so the report's collective is safe.
    report(epoch, static_cast<double>(m_micro) / std::max<int64_t>(1, m_loader.batchesPerEpoch()));
    s.events.flush();
    m_window.start += m_controls.waitWhilePaused(d);
  }
}

bool RankTrainer::trainBatch(const Batch& batch, int64_t epoch, Clock::time_point loaded) {
  const bool last_batch = batch.index + 1 == m_loader.batchesPerEpoch();
  const bool completes = (m_micro + 1) % m_accum == 0 || last_batch;
  // train.cuda_graphs: the whole step (one batch, never accumulated) from the graph.
  GraphedStep* graphed = m_graphed;
  if (m_micro % m_accum == 0) thawDue(epoch);
  if (!graphed && m_micro % m_accum == 0) m_body.begin(m_step, s.schedule.groupLrsAt(m_step));
  const TrainingStep::MicroBatch result = graphed
                                              ? graphed->step(batch, m_step, s.schedule.groupLrsAt(m_step))
                                              : m_body.forwardBackward(batch, m_accum, completes);
  countBatch(m_window, m_epoch.totals(), m_task, result.loss, result.outputs, batch.y, m_scaler.enabled());
  ++m_micro;
  const auto computed = Clock::now();
  m_window.compute += computed - loaded;
  if (!completes) return true;
  // fp16: a step with inf/NaN gradients counts too (the scaler counts it among the skipped).
  if (!graphed) m_body.finish(m_step + 1);
  if (graphed && m_lead) {
    if (std::optional<std::string> news = graphed->takeNews()) s.events.log(LogLevel::Info, *news);
  }
  ++m_step;
  ++m_window.steps;
  m_window.optimizer += Clock::now() - computed;
  m_profiler.stepDone(m_step);
  if (m_step % std::max<int64_t>(1, m_train.log_every_steps) == 0) {
    report(epoch, static_cast<double>(batch.index + 1) / m_loader.batchesPerEpoch());
  }
  if (m_step >= s.plan.total_steps) return false;
  // The epoch's end writes its own checkpoint, after validation; those due by time are decided at the step
  // boundary, on rank 0's clock, for all ranks.
  if (m_checkpoints && !last_batch && m_train.checkpoint_every_steps > 0 &&
      m_step % m_train.checkpoint_every_steps == 0) {
    writeCheckpoint(progressAt(epoch, m_micro, "steps"));
  }
  return true;
}

bool RankTrainer::endEpoch(int64_t epoch) {
  bool stop_early = false;
  bool validated = false;  // every rank validates the same epochs
  bool judged = false;     // rank 0: the validation judge ends the run
  std::optional<double> val_metric;
  // The group's sums, on every rank alike (one rank may carry samples of a resumed epoch the others lack).
  const double epoch_s = m_epoch.seconds();
  const EpochSums sums = m_epoch.groupSums(epoch_s > 0 ? m_epoch.ownSamples() / epoch_s : 0.0);
  if (sums.samples > 0) {
    EpochMetrics em;
    em.epoch = epoch;
    em.step = m_step;
    em.epoch_s = epoch_s;
    em.train_loss = sums.loss_sum / sums.loss_samples;
    em.train_figures = m_task.figures(sums.figure_sums, sums.samples);
    em.lr = s.schedule.lrAt(std::max<int64_t>(0, m_step - 1));
    em.samples_per_sec = sums.rate;
    if (!std::isfinite(em.train_loss)) {
      throw NonFiniteLossError("The training loss became " + formatNumber(em.train_loss) + " in epoch " +
                                   std::to_string(epoch) + ".",
                               m_step);
    }
    const bool has_val = s.data.val.size() > 0;
    const bool last = m_step >= s.plan.total_steps;
    if (has_val && (epoch % std::max<int64_t>(1, m_train.eval_every_epochs) == 0 || last)) {
      const EvalResult val = validate();
      em.val_loss = val.loss;
      em.val_figures = val.figures;
      if (m_outcome.best_val_loss < 0 || val.loss < m_outcome.best_val_loss)
        m_outcome.best_val_loss = val.loss;
      m_outcome.best_val_accuracy = std::max(m_outcome.best_val_accuracy, val.accuracy);
      s.schedule.observeValidation(s.experiment.schedule.plateau_mode == PlateauMode::Max ? val.accuracy
                                                                                          : val.loss);
      stop_early = m_early_stopping.observe(val.loss, val.accuracy);
      val_metric = m_train.early_stopping.metric == ValidationMetric::ValAccuracy ? val.accuracy : val.loss;
      validated = true;
      judged = judgeValidation(em);
    }
    s.events.post(em);
  }
  if (m_checkpoints) {
    // The epoch is done: a resumed run starts the next one (epoch accumulators start at zero).
    RankProgress p = progressAt(epoch + 1, 0, "epoch");
    p.val_metric = val_metric;
    writeCheckpoint(p);
  }
  // Validation and the checkpoint are not training time: the next window's throughput starts after them.
  m_window.start = Clock::now();
  // Every rank validated this epoch or none did; all agree on rank 0's judgement.
  if (validated && sumAcrossRanks(m_group, {judged ? 1.0 : 0.0})[0] > 0) {
    m_outcome.status = RunStatus::EarlyStopped;
    return false;
  }
  if (stop_early) {
    s.events.log(LogLevel::Info, "Early stopping: " + wordString(m_train.early_stopping.metric) +
                                     " did not improve for " +
                                     std::to_string(m_train.early_stopping.patience) + " validations.");
    m_outcome.status = RunStatus::EarlyStopped;
    return false;
  }
  if (m_controls.stopAfterEpoch() && m_step < s.plan.total_steps) {
    // Interrupted, not completed: the plan (and the schedule laid over it) is not done, and resume continues
    // with the next epoch from the checkpoint just written.
    s.events.log(LogLevel::Info, "Stopping after epoch " + std::to_string(epoch) + " as requested, at step " +
                                     std::to_string(m_step) + ".");
    m_outcome.status = RunStatus::Interrupted;
    return false;
  }
  return true;
}

bool RankTrainer::judgeValidation(const EpochMetrics& epoch) {
  const ValidationJudge& judge = s.control.validationJudge();
  if (!m_lead || !judge) return false;
  try {
    const ValidationVerdict verdict = judge(epoch);
    if (!verdict.note.empty()) s.events.log(LogLevel::Info, verdict.note);
    if (verdict.stop)
      s.events.log(LogLevel::Info, "Stopped after epoch " + std::to_string(epoch.epoch) + ".");
    return verdict.stop;
  } catch (const std::exception& e) {
    s.events.log(LogLevel::Warning,
                 std::string("The validation judge failed, training goes on: ") + e.what());
    return false;
  }
}

// Validation on this rank's contiguous share of the split; the sums are added up across ranks.
EvalResult RankTrainer::validate() {
  m_parts.beforeEvaluation();
  const int64_t n = s.data.val.size();
  const int64_t begin = n * m_group.rank() / m_group.size();
  const int64_t end = n * (m_group.rank() + 1) / m_group.size();
  SplitMeasure part;
  part.figure_sums.assign(m_task.sumNames().size(), 0.0);
  if (end > begin) {
    const int64_t eval_batch = std::max<int64_t>(256, m_train.batch_size * 2);
    part = measureSplit(m_model, s.data.val.slice(begin, end - begin), eval_batch, m_device, m_task);
  }
  std::vector<double> mine = {part.loss_sum, static_cast<double>(part.samples)};
  mine.insert(mine.end(), part.figure_sums.begin(), part.figure_sums.end());
  const std::vector<double> sums = sumAcrossRanks(m_group, mine);
  SplitMeasure all;
  all.loss_sum = sums[0];
  all.samples = static_cast<int64_t>(sums[1]);
  all.figure_sums.assign(sums.begin() + 2, sums.end());
  return evalResult(all, m_task);
}

// The state between optimizer steps, for a checkpoint at batch `next_batch` of the epoch in progress.
RankProgress RankTrainer::progressAt(int64_t next_epoch, int64_t next_batch, const char* reason) {
  RankProgress p;
  p.step = m_step;
  p.epoch = next_epoch;
  p.next_batch = next_batch;
  // Data parallel: the whole group's partial sums (rank 0 writes them; on resume rank 0 carries them and the
  // others start from zero, so the epoch's totals come out the same).
  if (next_batch > 0) {
    m_epoch.intoProgress(p);
  } else {
    m_epoch.emptyIntoProgress(p);
  }
  p.best_val_loss = m_outcome.best_val_loss;
  p.best_val_accuracy = m_outcome.best_val_accuracy;
  p.early_stopping = m_early_stopping.state();
  p.train_seconds = toSeconds(m_train_time + (Clock::now() - m_window.start));
  const int64_t partial = next_batch > 0 ? m_epoch.ownSamples() : 0;
  p.samples = (m_outcome.samples + partial) * m_group.size() + m_epoch.carriedDone() +
              (next_batch > 0 ? m_epoch.carried() : 0);
  p.reason = reason;
  return p;
}

void RankTrainer::writeCheckpoint(const RankProgress& p) {
  if (!m_checkpoints) return;
  s.checkpoint(p);
  m_controls.checkpointWritten();
}

}  // namespace

RankOutcome trainRank(const RankSetup& setup) {
  return RankTrainer(setup).run();
}

}  // namespace wb
