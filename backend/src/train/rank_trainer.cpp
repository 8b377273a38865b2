#include "train/rank_trainer.h"

#include <chrono>
#include <cmath>
#include <sstream>

#include "data/batch_loader.h"
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
  torch::Tensor grad_norm_sum;
  int64_t samples = 0;
  int64_t steps = 0;
  Clock::time_point start;
  Clock::duration data{}, compute{}, optimizer{};

  void reset(const torch::Device& device) {
    auto options = torch::TensorOptions().dtype(torch::kFloat64).device(device);
    loss_sum = torch::zeros({}, options);
    grad_norm_sum = torch::zeros({}, options);
    samples = 0;
    steps = 0;
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

RankOutcome trainRank(const RankSetup& s) {
  const Experiment& exp = s.experiment;
  const TrainConfig& train = exp.train;
  RankOutcome outcome;

  BatchLoaderOptions loader_options;
  loader_options.batch_size = train.batch_size;
  loader_options.shuffle = true;
  loader_options.seed = exp.seed;
  loader_options.device = s.device;
  if (exp.data.augment_enabled && s.data.sample_shape.size() == 3) loader_options.augment = exp.data.augment;
  BatchLoader loader(s.data.train_x, s.data.train_y, loader_options);

  const int64_t accum = std::max<int64_t>(1, train.grad_accum);
  const int64_t log_every = std::max<int64_t>(1, train.log_every_steps);
  const int64_t eval_batch = std::max<int64_t>(256, train.batch_size * 2);
  const bool has_val = s.data.val_x.defined() && s.data.val_x.size(0) > 0;
  const bool cuda = s.device.is_cuda();
  const std::vector<torch::Tensor> params = s.model.parameters();

  EarlyStopping early_stopping(train.early_stopping);
  MetricsWindow window;
  window.reset(s.device);
  Clock::duration train_time{};
  int64_t step = 0;

  auto reportWindow = [&](int64_t epoch, double epoch_fraction) {
    if (window.steps == 0) return;
    const double loss = window.loss_sum.item<double>() / std::max<int64_t>(1, window.samples);
    if (!std::isfinite(loss)) {
      std::ostringstream msg;
      msg << "The training loss became " << formatLoss(loss) << " between steps " << (step - window.steps + 1)
          << " and " << step << " (epoch " << epoch << ", learning rate " << s.schedule.lrAt(step - 1) << ").";
      throw NonFiniteLossError(msg.str(), step);
    }
    const double window_s = seconds(Clock::now() - window.start);
    StepMetrics m;
    m.step = step;
    m.epoch = epoch;
    m.epoch_fraction = epoch_fraction;
    m.total_steps = s.plan.total_steps;
    m.loss = loss;
    m.lr = s.schedule.lrAt(step - 1);
    m.samples_per_sec = window_s > 0 ? window.samples / window_s : 0;
    const double per_step = 1000.0 / window.steps;
    m.data_ms = seconds(window.data) * per_step;
    m.compute_ms = seconds(window.compute) * per_step;
    m.optimizer_ms = seconds(window.optimizer) * per_step;
    m.data_wait_fraction = window_s > 0 ? seconds(window.data) / window_s : 0;
    if (train.clip_grad_norm > 0) m.grad_norm = window.grad_norm_sum.item<double>() / window.steps;
    m.cpu_rss_bytes = currentRssBytes();
    if (cuda) {
      const CudaMemoryStats mem = cudaMemoryStats(s.device.index() < 0 ? 0 : s.device.index());
      if (mem.valid) {
        m.cuda_allocated_bytes = mem.allocated_bytes;
        m.cuda_reserved_bytes = mem.reserved_bytes;
        m.cuda_peak_bytes = mem.peak_allocated_bytes;
      }
    }
    const double trained_s = seconds(train_time + (Clock::now() - window.start));
    m.elapsed_s = trained_s;
    m.eta_s = step > 0 ? trained_s / step * static_cast<double>(s.plan.total_steps - step) : -1;
    s.events.post(m);
    train_time += Clock::now() - window.start;
    window.reset(s.device);
  };

  for (int64_t epoch = 1; epoch <= s.plan.epochs && step < s.plan.total_steps; ++epoch) {
    outcome.epochs = epoch;
    s.model.train(true);
    loader.startEpoch(epoch);
    const auto epoch_start = Clock::now();
    auto options = torch::TensorOptions().dtype(torch::kFloat64).device(s.device);
    auto epoch_loss_sum = torch::zeros({}, options);
    auto epoch_correct = torch::zeros({}, torch::TensorOptions().dtype(torch::kInt64).device(s.device));
    int64_t epoch_samples = 0;
    int64_t micro = 0;
    bool stopped = false;

    while (true) {
      if (micro % accum == 0) {
        if (s.control.stopRequested()) {
          stopped = true;
          break;
        }
        const auto paused = s.control.waitWhilePaused();
        window.start += paused;
        if (s.control.stopRequested()) {
          stopped = true;
          break;
        }
      }
      const auto t0 = Clock::now();
      std::optional<Batch> batch = loader.next();
      const auto t1 = Clock::now();
      window.data += t1 - t0;
      if (!batch) break;

      if (micro % accum == 0) {
        s.optimizer.zero_grad();
        setLearningRate(s.optimizer, s.schedule.lrAt(step));
      }
      auto logits = s.model.forward(batch->x);
      auto loss = torch::nn::functional::cross_entropy(logits, batch->y);
      (accum > 1 ? loss / static_cast<double>(accum) : loss).backward();
      const int64_t n = batch->x.size(0);
      {
        torch::NoGradGuard no_grad;
        auto weighted = loss.detach().to(torch::kFloat64) * static_cast<double>(n);
        window.loss_sum += weighted;
        epoch_loss_sum += weighted;
        epoch_correct += logits.detach().argmax(1).eq(batch->y).sum();
      }
      window.samples += n;
      epoch_samples += n;
      ++micro;
      const auto t2 = Clock::now();
      window.compute += t2 - t1;

      const bool last_batch = batch->index + 1 == loader.batchesPerEpoch();
      if (micro % accum == 0 || last_batch) {
        if (train.clip_grad_norm > 0) window.grad_norm_sum += clipGradNorm(params, train.clip_grad_norm);
        s.optimizer.step();
        ++step;
        ++window.steps;
        window.optimizer += Clock::now() - t2;
        if (step % log_every == 0) {
          reportWindow(epoch, static_cast<double>(batch->index + 1) / loader.batchesPerEpoch());
        }
        if (step >= s.plan.total_steps) break;
      }
    }
    reportWindow(epoch, static_cast<double>(epoch_samples) / std::max<int64_t>(1, loader.samples()));
    outcome.samples += epoch_samples;

    if (epoch_samples > 0) {
      EpochMetrics em;
      em.epoch = epoch;
      em.step = step;
      em.train_loss = epoch_loss_sum.item<double>() / epoch_samples;
      em.train_accuracy = static_cast<double>(epoch_correct.item<int64_t>()) / epoch_samples;
      em.lr = s.schedule.lrAt(std::max<int64_t>(0, step - 1));
      em.epoch_s = seconds(Clock::now() - epoch_start);
      em.samples_per_sec = em.epoch_s > 0 ? epoch_samples / em.epoch_s : 0;
      if (!std::isfinite(em.train_loss)) {
        throw NonFiniteLossError("The training loss became " + formatLoss(em.train_loss) + " in epoch " +
                                     std::to_string(epoch) + ".",
                                 step);
      }
      const bool last = stopped || step >= s.plan.total_steps;
      const bool eval_now = has_val && (epoch % std::max<int64_t>(1, train.eval_every_epochs) == 0 || last);
      bool stop_early = false;
      if (eval_now) {
        const EvalResult val = evaluateModel(s.model, s.data.val_x, s.data.val_y, eval_batch, s.device);
        em.val_loss = val.loss;
        em.val_accuracy = val.accuracy;
        if (outcome.best_val_loss < 0 || val.loss < outcome.best_val_loss) outcome.best_val_loss = val.loss;
        outcome.best_val_accuracy = std::max(outcome.best_val_accuracy, val.accuracy);
        s.schedule.observeValidation(exp.schedule.plateau_mode == "max" ? val.accuracy : val.loss);
        stop_early = early_stopping.observe(val.loss, val.accuracy);
      }
      s.events.post(em);
      // Validation is not training time: the next window's throughput starts after it.
      window.start = Clock::now();
      if (stop_early) {
        s.events.log(LogLevel::Info, "Early stopping: " + exp.train.early_stopping.metric + " did not improve for " +
                                         std::to_string(exp.train.early_stopping.patience) + " validations.");
        outcome.status = RunStatus::EarlyStopped;
        break;
      }
    }
    if (stopped) {
      outcome.status = RunStatus::Stopped;
      break;
    }
  }
  outcome.steps = step;
  outcome.train_seconds = seconds(train_time);
  return outcome;
}

}  // namespace wb
