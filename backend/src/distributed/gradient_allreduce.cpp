#include "distributed/gradient_allreduce.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>

namespace wb {
namespace {

// Called by autograd after a parameter's gradient accumulator has added this backward's gradient into .grad.
struct GradientReadyHook final : torch::autograd::FunctionPostHook {
  explicit GradientReadyHook(std::function<void()> ready) : ready(std::move(ready)) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list& /*inputs*/) override {
    ready();
    return outputs;
  }
  std::function<void()> ready;
};

}  // namespace

GradientAllreduce::GradientAllreduce(const std::vector<torch::Tensor>& parameters, RankGroup& group,
                                     double bucket_mb)
    : m_group(group) {
  for (const auto& p : parameters) {
    if (p.requires_grad()) m_parameters.push_back(p);
  }
  m_bucket_of.assign(m_parameters.size(), 0);
  m_ready.assign(m_parameters.size(), false);
  const int64_t bucket_bytes = std::max<int64_t>(1, static_cast<int64_t>(bucket_mb * 1024.0 * 1024.0));
  // As DDP: the first bucket holds at most 1 MiB, so communication starts early in backward; the others
  // train.bucket_mb.
  const int64_t first_bucket_bytes = std::min<int64_t>(bucket_bytes, 1024 * 1024);
  // Reverse order: the output layer's gradients come first in backward.
  for (size_t k = m_parameters.size(); k-- > 0;) {
    const torch::Tensor& p = m_parameters[k];
    const int64_t cap = m_buckets.size() <= 1 ? first_bucket_bytes : bucket_bytes;
    const bool start_new = m_buckets.empty() ||
                           m_buckets.back().numel * static_cast<int64_t>(p.element_size()) >= cap ||
                           m_parameters[m_buckets.back().parameters.front()].scalar_type() != p.scalar_type();
    if (start_new) m_buckets.emplace_back();
    Bucket& b = m_buckets.back();
    b.parameters.push_back(k);
    b.offsets.push_back(b.numel);
    b.numel += p.numel();
    m_bucket_of[k] = m_buckets.size() - 1;
  }
  for (auto& b : m_buckets) {
    const torch::Tensor& first = m_parameters[b.parameters.front()];
    b.buffer = torch::zeros({b.numel}, first.options().requires_grad(false));
  }
  for (size_t k = 0; k < m_parameters.size(); ++k) {
    compat::GradAccumulatorPtr accumulator = torch::autograd::impl::grad_accumulator(m_parameters[k]);
    const uintptr_t key =
        accumulator->add_post_hook(std::make_unique<GradientReadyHook>([this, k] { onGradientReady(k); }));
    // Holding the accumulator keeps it the one backward uses (the parameter only holds it weakly).
    m_hooks.emplace_back(std::move(accumulator), key);
  }
}

GradientAllreduce::~GradientAllreduce() {
  for (auto& [node, key] : m_hooks) node->del_post_hook(key);
}

void GradientAllreduce::beginBackward(bool completes) {
  m_active = completes;
  if (!completes) return;
  std::fill(m_ready.begin(), m_ready.end(), false);
  for (auto& b : m_buckets) {
    b.pending = b.parameters.size();
    b.launched = false;
    b.wait = nullptr;
    b.timing.reset();
  }
  m_next_launch = 0;
}

void GradientAllreduce::onGradientReady(size_t parameter) {
  if (!m_active || m_ready[parameter]) return;
  m_ready[parameter] = true;
  Bucket& b = m_buckets[m_bucket_of[parameter]];
  if (b.pending > 0) --b.pending;
  launchReadyBuckets();
}

void GradientAllreduce::launchReadyBuckets() {
  // In bucket order only: every rank must start the same collectives in the same order.
  while (m_next_launch < m_buckets.size() && m_buckets[m_next_launch].pending == 0) {
    launch(m_buckets[m_next_launch++]);
  }
}

void GradientAllreduce::launch(Bucket& b) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < b.parameters.size(); ++i) {
    const torch::Tensor& p = m_parameters[b.parameters[i]];
    torch::Tensor slot = b.buffer.narrow(0, b.offsets[i], p.numel());
    const torch::Tensor& grad = p.grad();
    if (grad.defined()) {
      slot.copy_(grad.reshape({-1}));
    } else {
      slot.zero_();  // a parameter this step did not use: it counts as a zero gradient, as in DDP
    }
  }
  b.launched = true;
  b.launched_at = Clock::now();
  b.timing = std::make_shared<CollectiveTiming>();
  b.wait = m_group.allreduceSumAsync(b.buffer, b.timing);
}

void GradientAllreduce::finish() {
  if (!m_active) return;
  const Clock::time_point backward_end = Clock::now();
  // Gradients that never came (parameters unused in this step): their buckets go now, still in order.
  for (auto& b : m_buckets) b.pending = 0;
  launchReadyBuckets();
  const bool on_device = m_group.timesOnDevice();
  if (on_device) m_device_clock.backwardEnded(m_group.device());
  for (auto& b : m_buckets) b.wait();
  m_active = false;
  if (on_device) {
    std::vector<std::shared_ptr<CollectiveTiming>> timings;
    for (const auto& b : m_buckets) timings.push_back(b.timing);
    m_device_clock.collectivesWaited(std::move(timings));
    m_device_clock.collect(m_times.busy_ms, m_times.hidden_ms);
  } else {
    addHostTimes(backward_end);
  }
  ++m_times.steps;

  torch::NoGradGuard no_grad;
  const double scale = 1.0 / m_group.size();
  for (auto& b : m_buckets) {
    b.buffer.mul_(scale);
    for (size_t i = 0; i < b.parameters.size(); ++i) {
      torch::Tensor& p = m_parameters[b.parameters[i]];
      torch::Tensor average = b.buffer.narrow(0, b.offsets[i], p.numel()).view(p.sizes());
      if (p.grad().defined()) {
        p.mutable_grad().copy_(average);
      } else {
        p.mutable_grad() = average.clone();
      }
    }
  }
}

void GradientAllreduce::addHostTimes(Clock::time_point backward_end) {
  // The collectives run one after another: bucket k starts when it is launched or when k-1 is done.
  const int64_t end_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(backward_end.time_since_epoch()).count();
  int64_t previous_done = 0;
  for (const auto& b : m_buckets) {
    const int64_t launched =
        std::chrono::duration_cast<std::chrono::nanoseconds>(b.launched_at.time_since_epoch()).count();
    const int64_t start = std::max(launched, previous_done);
    const int64_t done = std::max(start, b.timing->done_ns.load());
    m_times.busy_ms += (done - start) / 1e6;
    m_times.hidden_ms += std::max<int64_t>(0, std::min(done, end_ns) - start) / 1e6;
    previous_done = done;
  }
}

GradientAllreduce::Times GradientAllreduce::takeTimes() {
  Times t = m_times;
  m_times = Times{};
  return t;
}

}  // namespace wb
