#include "train/rank_trainer.h"

#include <chrono>
#include <cmath>
#include <sstream>

#include "data/batch_loader.h"
#include "optim/autocast_guard.h"
#include "util/fast_paths.h"
#include "optim/optimizer_factory.h"
#include "train/evaluation.h"
#include "util/cuda_memory.h"
#include "util/process_stats.h"

namespace wb {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Python's clip_grad_norm_ without its .item(): the total norm stays on the device and the scale is applied
// as a tensor, so clipping costs no host synchronization per step.
torch::Tensor clipGradNorm(const std::vector<torch::Tensor>& params, double max_norm) {
  std::vector<torch::Tensor> norms;
  norms.reserve(params.size());
  for (const auto& p : params) {
    if (p.grad().defined()) norms.push_back(p.grad().detach().norm(2.0).to(torch::kFloat32));
  }
  if (norms.empty()) return torch::zeros({});
  auto total = torch::stack(norms).norm(2.0);
  auto scale = (max_norm / (total + 1e-6)).clamp_max(1.0);
  for (const auto& p : params) {
    if (p.grad().defined()) p.grad().detach().mul_(scale.to(p.grad().dtype()));
  }
  return total;
}

// What the window since the last StepMetrics accumulated. Device tensors are only read when it is reported.
struct MetricsWindow {
  torch::Tensor loss_sum;  // sum over samples of the per-sample loss
  torch::Tensor loss_samples;  // samples in loss_sum; with fp16 loss scaling, only those whose loss was finite
  torch::Tensor grad_norm_sum;
  int64_t samples = 0;
  int64_t steps = 0;
  int64_t skipped = 0;  // optimizer steps skipped for inf/NaN gradients (fp16)
  Clock::time_point start;
  Clock::duration data{}, compute{}, optimizer{};

  void reset(const torch::Device& device) {
    auto options = torch::TensorOptions().dtype(torch::kFloat64).device(device);
    loss_sum = torch::zeros({}, options);
    loss_samples = torch::zeros({}, options);
    grad_norm_sum = torch::zeros({}, options);
    samples = 0;
    steps = 0;
    skipped = 0;
    start = Clock::now();
    data = compute = optimizer = Clock::duration{};
  }
};

class EarlyStopping {
 public:
  explicit EarlyStopping(const EarlyStoppingConfig& config) : m_config(config) {}
  // Returns true when training should stop after this validation.
  bool observe(double val_loss, double val_accuracy) {
    if (!m_config.enabled) return false;
    const bool maximize = m_config.metric == "val_accuracy";
    const double value = maximize ? val_accuracy : val_loss;
    const bool improved = !m_has_best || (maximize ? value > m_best + m_config.min_delta
                                                   : value < m_best - m_config.min_delta);
    if (improved) {
      m_best = value;
      m_has_best = true;
      m_bad = 0;
      return false;
    }
    return ++m_bad >= m_config.patience;
  }
  nlohmann::json state() const { return {{"best", m_best}, {"has_best", m_has_best}, {"bad", m_bad}}; }
  void loadState(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("has_best")) return;
    m_best = j.value("best", 0.0);
    m_has_best = j.value("has_best", false);
    m_bad = j.value("bad", int64_t{0});
  }

 private:
  EarlyStoppingConfig m_config;
  double m_best = 0;
  bool m_has_best = false;
  int64_t m_bad = 0;
};

std::string formatLoss(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

nlohmann::json RankProgress::toJson() const {
  nlohmann::json j = {{"step", step},
                      {"epoch", epoch},
                      {"next_batch", next_batch},
                      {"epoch_loss_sum", epoch_loss_sum},
                      {"epoch_correct", epoch_correct},
                      {"epoch_samples", epoch_samples},
                      {"epoch_loss_samples", epoch_loss_samples},
                      {"best_val_loss", best_val_loss},
                      {"best_val_accuracy", best_val_accuracy},
                      {"early_stopping", early_stopping},
                      {"train_seconds", train_seconds},
                      {"samples", samples},
                      {"reason", reason}};
  if (val_metric) j["val_metric"] = *val_metric;
  return j;
}

RankProgress RankProgress::fromJson(const nlohmann::json& j) {
  RankProgress p;
  p.step = j.at("step").get<int64_t>();
  p.epoch = j.at("epoch").get<int64_t>();
  p.next_batch = j.at("next_batch").get<int64_t>();
  p.epoch_loss_sum = j.at("epoch_loss_sum").get<double>();
  p.epoch_correct = j.at("epoch_correct").get<int64_t>();
  p.epoch_samples = j.at("epoch_samples").get<int64_t>();
  p.epoch_loss_samples = j.value("epoch_loss_samples", static_cast<double>(p.epoch_samples));
  p.best_val_loss = j.at("best_val_loss").get<double>();
  p.best_val_accuracy = j.at("best_val_accuracy").get<double>();
  p.early_stopping = j.value("early_stopping", nlohmann::json::object());
  p.train_seconds = j.value("train_seconds", 0.0);
  p.samples = j.value("samples", int64_t{0});
  if (j.contains("val_metric") && j["val_metric"].is_number()) p.val_metric = j["val_metric"].get<double>();
  p.reason = j.value("reason", std::string());
  return p;
}

RankOutcome trainRank(const RankSetup& s) {
  const Experiment& exp = s.experiment;
  const TrainConfig& train = exp.train;
  RankOutcome outcome;
  SingleRank single(s.device);
  RankGroup& group = s.group ? *s.group : single;
  const bool lead = group.rank() == 0;  // rank 0 takes checkpoint requests and keeps the checkpoint clock

  BatchLoaderOptions loader_options;
  loader_options.batch_size = train.batch_size;
  loader_options.shuffle = true;
  loader_options.seed = exp.seed;
  loader_options.device = s.device;
  loader_options.pin_memory = train.pinned_memory;
  loader_options.channels_last = useChannelsLast(train, s.data.sample_shape);
  if (exp.data.augment_enabled && s.data.sample_shape.size() == 3) loader_options.augment = exp.data.augment;
  loader_options.rank = group.rank();
  loader_options.world_size = group.size();
  BatchLoader loader(s.data.train_x, s.data.train_y, loader_options);

  const int64_t accum = std::max<int64_t>(1, train.grad_accum);
  const int64_t log_every = std::max<int64_t>(1, train.log_every_steps);
  const int64_t eval_batch = std::max<int64_t>(256, train.batch_size * 2);
  const bool has_val = s.data.val_x.defined() && s.data.val_x.size(0) > 0;
  const bool cuda = s.device.is_cuda();
  const std::vector<torch::Tensor> params = s.model.parameters();
  const bool checkpoints = static_cast<bool>(s.checkpoint);
  // Autocast is per thread: the guard below is entered on this (the training) thread for each forward.
  const std::optional<c10::ScalarType> amp_dtype = autocastDtype(train.amp);
  const auto checkpoint_interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(train.checkpoint_every_minutes * 60.0));

  EarlyStopping early_stopping(train.early_stopping);
  MetricsWindow window;
  window.reset(s.device);
  Clock::duration train_time{};
  int64_t carried_done = 0;  // see `carried` below
  int64_t step = 0;
  int64_t first_epoch = 1;
  if (s.resume_from) {
    const RankProgress& r = *s.resume_from;
    step = r.step;
    first_epoch = r.epoch;
    outcome.best_val_loss = r.best_val_loss;
    outcome.best_val_accuracy = r.best_val_accuracy;
    // Checkpoints count the whole group's samples; each rank counts its own.
    outcome.samples = (r.samples - r.epoch_samples) / group.size();  // before the epoch in progress
    outcome.epochs = r.epoch - (r.next_batch == 0 ? 1 : 0);
    early_stopping.loadState(r.early_stopping);
    train_time = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(r.train_seconds));
  }
  Clock::time_point last_checkpoint = Clock::now();

  auto reportWindow = [&](int64_t epoch, double epoch_fraction) {
    if (window.steps == 0) return;
    const double window_s = seconds(Clock::now() - window.start);
    const std::pair<double, double> comm = s.hooks.communication_ms ? s.hooks.communication_ms()
                                                                     : std::pair<double, double>{-1, -1};
    CudaMemoryStats mem;
    if (cuda) mem = cudaMemoryStats(s.device.index() < 0 ? 0 : s.device.index());
    // One row per rank, gathered in one collective (one device: read back here, as before).
    const int64_t rss = currentRssBytes();
    torch::Tensor row = torch::stack({window.loss_sum,
                                      s.scaler.enabled() ? window.loss_samples
                                                         : torch::scalar_tensor(static_cast<double>(window.samples),
                                                                                window.loss_sum.options()),
                                      torch::scalar_tensor(static_cast<double>(window.samples), window.loss_sum.options()),
                                      torch::scalar_tensor(window_s, window.loss_sum.options()),
                                      torch::scalar_tensor(static_cast<double>(rss), window.loss_sum.options()),
                                      torch::scalar_tensor(mem.valid ? static_cast<double>(mem.allocated_bytes) : -1.0,
                                                           window.loss_sum.options()),
                                      torch::scalar_tensor(mem.valid ? static_cast<double>(mem.reserved_bytes) : -1.0,
                                                           window.loss_sum.options()),
                                      torch::scalar_tensor(mem.valid ? static_cast<double>(mem.peak_allocated_bytes) : -1.0,
                                                           window.loss_sum.options()),
                                      torch::scalar_tensor(comm.first, window.loss_sum.options()),
                                      torch::scalar_tensor(comm.second, window.loss_sum.options())});
    const torch::Tensor ranks = group.allgather(row);
    const auto r = ranks.accessor<double, 2>();
    double loss_sum = 0, counted = 0, global_rate = 0, busy = 0, hidden = 0;
    for (int64_t k = 0; k < ranks.size(0); ++k) {
      loss_sum += r[k][0];
      counted += r[k][1];
      global_rate += r[k][3] > 0 ? r[k][2] / r[k][3] : 0;
      busy += r[k][8];
      hidden += r[k][9];
    }
    const double loss = loss_sum / counted;
    if (!std::isfinite(loss)) {
      std::ostringstream msg;
      msg << "The training loss became " << formatLoss(loss) << " between steps " << (step - window.steps + 1)
          << " and " << step << " (epoch " << epoch << ", learning rate " << s.schedule.lrAt(step - 1) << ").";
      throw NonFiniteLossError(msg.str(), step);
    }
    StepMetrics m;
    m.step = step;
    m.epoch = epoch;
    m.epoch_fraction = epoch_fraction;
    m.total_steps = s.plan.total_steps;
    m.loss = loss;
    m.lr = s.schedule.lrAt(step - 1);
    m.samples_per_sec = global_rate;
    const double per_step = 1000.0 / window.steps;
    m.data_ms = seconds(window.data) * per_step;
    m.compute_ms = seconds(window.compute) * per_step;
    m.optimizer_ms = seconds(window.optimizer) * per_step;
    m.data_wait_fraction = window_s > 0 ? seconds(window.data) / window_s : 0;
    if (train.clip_grad_norm > 0) m.grad_norm = window.grad_norm_sum.item<double>() / window.steps;
    if (s.scaler.enabled()) {
      m.loss_scale = s.scaler.currentScale();
      m.skipped_steps = s.scaler.skippedSteps();
      m.nonfinite_steps_in_window = window.skipped;
    }
    m.cpu_rss_bytes = rss;
    if (mem.valid) {
      m.cuda_allocated_bytes = mem.allocated_bytes;
      m.cuda_reserved_bytes = mem.reserved_bytes;
      m.cuda_peak_bytes = mem.peak_allocated_bytes;
    }
    if (group.size() > 1) {
      for (int64_t k = 0; k < ranks.size(0); ++k) {
        DeviceMetrics d;
        d.rank = k;
        d.device = k < static_cast<int64_t>(s.rank_devices.size()) ? s.rank_devices[k] : std::string();
        d.samples_per_sec = r[k][3] > 0 ? r[k][2] / r[k][3] : 0;
        d.cpu_rss_bytes = static_cast<int64_t>(r[k][4]);
        d.cuda_allocated_bytes = static_cast<int64_t>(r[k][5]);
        d.cuda_reserved_bytes = static_cast<int64_t>(r[k][6]);
        d.cuda_peak_bytes = static_cast<int64_t>(r[k][7]);
        m.devices.push_back(std::move(d));
      }
      // Measured from c10d's completion callbacks: Gloo calls them when the sum is done, NCCL when the collective
      // is enqueued on the stream (LibTorch 2.x), which would time the launch, not the allreduce: on CUDA devices
      // they stay unmeasured (-1) until CUDA events time them.
      if (busy > 0 && !s.device.is_cuda()) {
        m.allreduce_hidden_fraction = hidden / busy;
        m.allreduce_ms = busy / ranks.size(0) / window.steps;
      }
    }
    const double trained_s = seconds(train_time + (Clock::now() - window.start));
    m.elapsed_s = trained_s;
    const int64_t steps_this_session = step - (s.resume_from ? s.resume_from->step : 0);
    m.eta_s = steps_this_session > 0 && s.plan.total_steps > step
                  ? seconds(Clock::now() - window.start) / window.steps * static_cast<double>(s.plan.total_steps - step)
                  : (step >= s.plan.total_steps ? 0 : -1);
    s.events.post(m);
    train_time += Clock::now() - window.start;
    window.reset(s.device);
  };

  // Sums across ranks (one collective; one device: a read-back). Every rank must call it at the same point.
  auto sumAcrossRanks = [&](std::vector<double> values) {
    const torch::Tensor ranks = group.allgather(torch::tensor(values, torch::kFloat64));
    const torch::Tensor sums = ranks.sum(0);
    for (size_t i = 0; i < values.size(); ++i) values[i] = sums[static_cast<int64_t>(i)].item<double>();
    return values;
  };

  // Validation on this rank's contiguous share of the split; the sums are added up across ranks.
  auto validate = [&]() {
    if (s.hooks.before_evaluation) s.hooks.before_evaluation();
    const int64_t n = s.data.val_x.size(0);
    const int64_t begin = n * group.rank() / group.size();
    const int64_t end = n * (group.rank() + 1) / group.size();
    EvalResult part;
    if (end > begin) {
      part = evaluateModel(s.model, s.data.val_x.narrow(0, begin, end - begin),
                           s.data.val_y.narrow(0, begin, end - begin), eval_batch, s.device);
    }
    const auto sums = sumAcrossRanks({part.loss * part.samples, part.accuracy * part.samples,
                                      static_cast<double>(part.samples)});
    EvalResult all;
    all.samples = static_cast<int64_t>(sums[2]);
    all.loss = all.samples > 0 ? sums[0] / sums[2] : 0;
    all.accuracy = all.samples > 0 ? sums[1] / sums[2] : 0;
    return all;
  };

  // What all ranks do before the next step: stop, write a checkpoint (requested, or due by rank 0's clock),
  // wait while paused. One device: its own control. Several: the most any rank asks for, so every rank
  // takes the same branch and no rank is left waiting in a collective.
  // Live changes (learning rate, stop after this epoch) ride on the same agreement: rank 0 takes a learning-rate
  // change from the control and every rank applies what rank 0 sent, at the same step.
  struct Decision {
    bool stop = false, pause = false, requested = false, minutes = false, stop_after_epoch = false;
    uint64_t seen = 0;  // the oldest control generation any rank read: every rank waits for news after it
    std::optional<LrChange> lr;
  };
  auto decide = [&](uint64_t seen) {
    Decision local;
    local.seen = seen;
    local.stop = s.control.stopRequested();
    local.pause = s.control.paused();
    local.stop_after_epoch = s.control.stopAfterEpochRequested();
    if (lead) {
      local.requested = s.control.takeCheckpointRequest();
      local.minutes = checkpoints && train.checkpoint_every_minutes > 0 &&
                      Clock::now() - last_checkpoint >= checkpoint_interval;
      local.lr = s.control.takeLrChange();
    }
    if (group.size() == 1) return local;
    const double lr_kind = !local.lr ? 0.0 : local.lr->kind == LrChange::Kind::Scale ? 1.0 : 2.0;
    const torch::Tensor flags =
        torch::tensor({local.stop ? 1.0 : 0.0, local.pause ? 1.0 : 0.0, local.requested ? 1.0 : 0.0,
                       local.minutes ? 1.0 : 0.0, -static_cast<double>(seen), local.stop_after_epoch ? 1.0 : 0.0,
                       lr_kind, local.lr ? local.lr->value : 0.0,
                       local.lr ? static_cast<double>(local.lr->from_step) : 0.0},
                      torch::kFloat64);
    const torch::Tensor rows = group.allgather(flags);
    const torch::Tensor any = rows.amax(0);
    Decision d;
    d.seen = static_cast<uint64_t>(-any[4].item<double>());
    d.stop = any[0].item<double>() > 0;
    d.pause = any[1].item<double>() > 0;
    d.requested = any[2].item<double>() > 0;
    d.minutes = any[3].item<double>() > 0;
    d.stop_after_epoch = any[5].item<double>() > 0;
    const torch::Tensor lead_flags = rows[0];
    const auto lead_row = lead_flags.accessor<double, 1>();  // float64 carries rank 0's value and step exactly
    if (lead_row[6] > 0) {
      d.lr = LrChange{lead_row[6] == 1.0 ? LrChange::Kind::Scale : LrChange::Kind::Constant, lead_row[7],
                      static_cast<int64_t>(lead_row[8]), local.lr ? local.lr->source : std::string()};
    }
    return d;
  };

  // Every rank adds the change to its schedule at the same step boundary; rank 0 reports it.
  auto applyLrChange = [&](const LrChange& change) {
    LrOverride o;
    o.from_step = std::max(step, change.from_step);  // a step already trained keeps its learning rate
    o.constant = change.kind == LrChange::Kind::Constant;
    o.value = change.value;
    s.schedule.addOverride(o);
    if (!lead) return;
    ControlApplied e;
    e.step = o.from_step;
    e.kind = o.constant ? ControlKind::LrConstant : ControlKind::LrScale;
    e.value = change.value;
    e.lr = s.schedule.lrAt(o.from_step);
    e.source = change.source;
    std::ostringstream text;
    text << "step " << o.from_step << ": learning rate ";
    if (o.constant) {
      text << "set to " << change.value << " (replaces the schedule)";
    } else {
      text << "×" << change.value << (o.from_step > step ? " (then " : " (now ") << e.lr << ")";
    }
    if (o.from_step > step) text << ", asked at step " << step;
    if (!change.source.empty()) text << ", requested via " << change.source;
    e.message = text.str();
    s.events.post(std::move(e));
  };
  bool stop_after_epoch = false;  // agreed by every rank; the run ends Interrupted when the epoch in progress ends

  for (int64_t epoch = first_epoch; epoch <= s.plan.epochs && step < s.plan.total_steps; ++epoch) {
    outcome.epochs = epoch;
    s.model.train(true);
    const bool resuming_here = s.resume_from && epoch == first_epoch;
    const int64_t first_batch = resuming_here ? s.resume_from->next_batch : 0;
    // The epoch's partial sums in a checkpoint are the group's: rank 0 carries them on, the others start at 0.
    const bool carry_partial = resuming_here && lead;
    // Samples of the group's partial epoch that rank 0 carries in (counted once, not once per rank).
    const int64_t carried = carry_partial ? s.resume_from->epoch_samples : 0;
    loader.startEpoch(epoch, first_batch);
    const auto epoch_start = Clock::now();
    auto options = torch::TensorOptions().dtype(torch::kFloat64).device(s.device);
    auto epoch_loss_sum = torch::scalar_tensor(carry_partial ? s.resume_from->epoch_loss_sum : 0.0, options);
    auto epoch_loss_samples =
        torch::scalar_tensor(carry_partial ? s.resume_from->epoch_loss_samples : 0.0, options);
    auto epoch_correct = torch::scalar_tensor(carry_partial ? s.resume_from->epoch_correct : int64_t{0},
                                              torch::TensorOptions().dtype(torch::kInt64).device(s.device));
    int64_t epoch_samples = carry_partial ? s.resume_from->epoch_samples : 0;
    int64_t micro = first_batch;  // batches of this epoch consumed
    bool stopped = false;

    // The state between optimizer steps, for a checkpoint at batch `next_batch` of this epoch.
    auto progressAt = [&](int64_t next_epoch, int64_t next_batch, const char* reason) {
      RankProgress p;
      p.step = step;
      p.epoch = next_epoch;
      p.next_batch = next_batch;
      if (next_batch > 0) {
        // Data parallel: the whole group's partial sums (rank 0 writes them; on resume rank 0 carries them and
        // the others start from zero, so the epoch's totals come out the same).
        const auto sums = sumAcrossRanks(
            {epoch_loss_sum.item<double>(),
             s.scaler.enabled() ? epoch_loss_samples.item<double>() : static_cast<double>(epoch_samples),
             static_cast<double>(epoch_correct.item<int64_t>()), static_cast<double>(epoch_samples)});
        p.epoch_loss_sum = sums[0];
        p.epoch_loss_samples = sums[1];
        p.epoch_correct = static_cast<int64_t>(sums[2]);
        p.epoch_samples = static_cast<int64_t>(sums[3]);
      }
      p.best_val_loss = outcome.best_val_loss;
      p.best_val_accuracy = outcome.best_val_accuracy;
      p.early_stopping = early_stopping.state();
      p.train_seconds = seconds(train_time + (Clock::now() - window.start));
      p.samples = (outcome.samples + (next_batch > 0 ? epoch_samples - carried : 0)) * group.size() + carried_done +
                  (next_batch > 0 ? carried : 0);
      p.reason = reason;
      return p;
    };
    auto writeCheckpoint = [&](const RankProgress& p) {
      if (!checkpoints) return;
      s.checkpoint(p);
      last_checkpoint = Clock::now();
    };

    while (true) {
      if (micro % accum == 0) {
        for (;;) {
          // Read before deciding, so no request can slip past the wait below (and with several ranks, the
          // oldest reading counts: a request one rank saw late still wakes every rank).
          const Decision d = decide(s.control.generation());
          if (d.lr) applyLrChange(*d.lr);
          if (d.stop_after_epoch && !stop_after_epoch) {
            stop_after_epoch = true;
            if (lead) {
              ControlApplied e;
              e.step = step;
              e.kind = ControlKind::StopAfterEpoch;
              e.value = static_cast<double>(epoch);
              e.source = s.control.stopAfterEpochSource();
              e.message = "step " + std::to_string(step) + ": the run stops at the end of epoch " +
                          std::to_string(epoch) + " with a checkpoint (resume continues it)" +
                          (e.source.empty() ? std::string() : ", requested via " + e.source);
              s.events.post(std::move(e));
            }
          }
          if (d.stop) {
            stopped = true;
            break;
          }
          if (d.requested || d.minutes) writeCheckpoint(progressAt(epoch, micro, d.requested ? "requested" : "minutes"));
          if (!d.pause) break;
          // Before sleeping, the front end (and the run folder's logs) get everything done so far: the steps
          // since the last report and a checkpoint's log line, not only after Resume. Every rank takes this
          // branch alike, so the report's collective is safe.
          reportWindow(epoch, static_cast<double>(micro) / std::max<int64_t>(1, loader.batchesPerEpoch()));
          s.events.flush();
          window.start += s.control.waitWhilePaused(d.seen);
        }
        if (stopped) break;
      }
      const auto t0 = Clock::now();
      std::optional<Batch> batch = loader.next();
      const auto t1 = Clock::now();
      window.data += t1 - t0;
      if (!batch) break;

      if (micro % accum == 0) {
        s.optimizer.zero_grad();
        setLearningRate(s.optimizer, s.schedule.lrAt(step));
        if (s.hooks.before_step) s.hooks.before_step(step);
      }
      torch::Tensor logits, loss;
      {
        AutocastGuard autocast(s.device.type(), amp_dtype.value_or(torch::kBFloat16), amp_dtype.has_value());
        logits = s.model.forward(batch->x);
        loss = s.hooks.loss ? s.hooks.loss(logits, *batch) : torch::nn::functional::cross_entropy(logits, batch->y);
      }
      const bool last_batch = batch->index + 1 == loader.batchesPerEpoch();
      if (s.hooks.before_backward) s.hooks.before_backward((micro + 1) % accum == 0 || last_batch);
      s.scaler.scale(accum > 1 ? loss / static_cast<double>(accum) : loss).backward();
      const int64_t n = batch->x.size(0);
      {
        torch::NoGradGuard no_grad;
        auto weighted = loss.detach().to(torch::kFloat64) * static_cast<double>(n);
        if (s.scaler.enabled()) {
          // fp16 overflow in the forward pass gives an inf loss; GradScaler skips that step, so it is left out
          // of the averages rather than failing the run. A window whose every loss is non-finite still fails.
          auto finite = torch::isfinite(weighted);
          weighted = torch::where(finite, weighted, torch::zeros_like(weighted));
          auto counted = finite.to(torch::kFloat64) * static_cast<double>(n);
          window.loss_samples += counted;
          epoch_loss_samples += counted;
        }
        window.loss_sum += weighted;
        epoch_loss_sum += weighted;
        epoch_correct += logits.detach().argmax(1).eq(batch->y).sum();
      }
      window.samples += n;
      epoch_samples += n;
      ++micro;
      const auto t2 = Clock::now();
      window.compute += t2 - t1;

      if (micro % accum == 0 || last_batch) {
        if (s.hooks.gradients_ready) s.hooks.gradients_ready();
        if (train.clip_grad_norm > 0) {
          if (s.scaler.enabled()) s.scaler.unscale(s.optimizer);  // clip the true gradients
          window.grad_norm_sum += clipGradNorm(params, train.clip_grad_norm);
        }
        // fp16: a step with inf/NaN gradients is skipped — neither the optimizer nor the schedule moves
        // (the step counter drives the schedule), and the scale backs off.
        const bool stepped = s.scaler.step(s.optimizer);
        s.scaler.update();
        if (!stepped) {
          ++window.skipped;
          window.optimizer += Clock::now() - t2;
          continue;
        }
        ++step;
        ++window.steps;
        if (s.hooks.after_step) s.hooks.after_step(step);
        window.optimizer += Clock::now() - t2;
        if (step % log_every == 0) {
          reportWindow(epoch, static_cast<double>(batch->index + 1) / loader.batchesPerEpoch());
        }
        if (step >= s.plan.total_steps) break;
        // The epoch's end writes its own checkpoint, after validation.
        // (Checkpoints due by time are decided before the next step, on rank 0's clock, for all ranks.)
        if (checkpoints && !last_batch && train.checkpoint_every_steps > 0 &&
            step % train.checkpoint_every_steps == 0) {
          writeCheckpoint(progressAt(epoch, micro, "steps"));
        }
      }
    }
    reportWindow(epoch, (static_cast<double>(epoch_samples - carried) + static_cast<double>(carried) / group.size()) /
                            std::max<int64_t>(1, loader.samples()));
    if (stopped) {
      // Exactly where the loop stands: no epoch metrics, no validation (the resumed run does them when the
      // epoch really ends, as the uninterrupted run would).
      writeCheckpoint(progressAt(epoch, micro, "stop"));
      outcome.samples += epoch_samples - carried;
      carried_done += carried;
      outcome.status = RunStatus::Interrupted;
      break;
    }
    outcome.samples += epoch_samples - carried;
    carried_done += carried;

    bool stop_early = false;
    std::optional<double> val_metric;
    // The group's sums, on every rank alike (one rank may carry samples of a resumed epoch the others lack).
    const double epoch_s = seconds(Clock::now() - epoch_start);
    const auto sums = sumAcrossRanks(
        {epoch_loss_sum.item<double>(),
         s.scaler.enabled() ? epoch_loss_samples.item<double>() : static_cast<double>(epoch_samples),
         static_cast<double>(epoch_correct.item<int64_t>()), static_cast<double>(epoch_samples),
         epoch_s > 0 ? (epoch_samples - carried) / epoch_s : 0.0});
    if (sums[3] > 0) {
      EpochMetrics em;
      em.epoch = epoch;
      em.step = step;
      em.epoch_s = epoch_s;
      em.train_loss = sums[0] / sums[1];
      em.train_accuracy = sums[2] / sums[3];
      em.lr = s.schedule.lrAt(std::max<int64_t>(0, step - 1));
      em.samples_per_sec = sums[4];
      if (!std::isfinite(em.train_loss)) {
        throw NonFiniteLossError("The training loss became " + formatLoss(em.train_loss) + " in epoch " +
                                     std::to_string(epoch) + ".",
                                 step);
      }
      const bool last = step >= s.plan.total_steps;
      const bool eval_now = has_val && (epoch % std::max<int64_t>(1, train.eval_every_epochs) == 0 || last);
      if (eval_now) {
        const EvalResult val = validate();
        em.val_loss = val.loss;
        em.val_accuracy = val.accuracy;
        if (outcome.best_val_loss < 0 || val.loss < outcome.best_val_loss) outcome.best_val_loss = val.loss;
        outcome.best_val_accuracy = std::max(outcome.best_val_accuracy, val.accuracy);
        s.schedule.observeValidation(exp.schedule.plateau_mode == "max" ? val.accuracy : val.loss);
        stop_early = early_stopping.observe(val.loss, val.accuracy);
        val_metric = train.early_stopping.metric == "val_accuracy" ? val.accuracy : val.loss;
      }
      s.events.post(em);
    }
    if (checkpoints) {
      // The epoch is done: a resumed run starts the next one (epoch accumulators start at zero).
      RankProgress p = progressAt(epoch + 1, 0, "epoch");
      p.val_metric = val_metric;
      writeCheckpoint(p);
    }
    // Validation and the checkpoint are not training time: the next window's throughput starts after them.
    window.start = Clock::now();
    if (stop_early) {
      s.events.log(LogLevel::Info, "Early stopping: " + exp.train.early_stopping.metric + " did not improve for " +
                                       std::to_string(exp.train.early_stopping.patience) + " validations.");
      outcome.status = RunStatus::EarlyStopped;
      break;
    }
    if (stop_after_epoch && step < s.plan.total_steps) {
      // Interrupted, not completed: the plan (and the schedule laid over it) is not done, and resume continues
      // with the next epoch from the checkpoint just written.
      s.events.log(LogLevel::Info, "Stopping after epoch " + std::to_string(epoch) + " as requested, at step " +
                                       std::to_string(step) + ".");
      outcome.status = RunStatus::Interrupted;
      break;
    }
  }
  outcome.steps = step;
  outcome.train_seconds = seconds(train_time);
  outcome.samples = outcome.samples * group.size() + carried_done;  // the group's (shards are of equal length)
  return outcome;
}

}  // namespace wb
