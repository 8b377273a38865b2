#include "pipeline/pipeline_step.h"

#include <ATen/Parallel.h>
#include <ATen/ThreadLocalState.h>

#include <cstdio>
#include <exception>
#include <mutex>

#include "optim/autocast_guard.h"
#include "pipeline/pipeline_schedule.h"
#include "pipeline/stage_mail.h"
#include "pipeline/stage_stream.h"
#include "step/phase_range.h"

namespace wb {
namespace {

using PipeClock = std::chrono::steady_clock;

double secondsSince(PipeClock::time_point start) {
  return std::chrono::duration<double>(PipeClock::now() - start).count();
}

// A profiled step's range for stage `s`'s work on micro-batch `k`, its hand-off waits left out: in the trace
// each stage's thread shows its forwards and backwards, and the gaps between them are the bubble.
std::string stageRangeDetail(size_t s, int64_t k) {
  return "stage " + std::to_string(s) + " micro-batch " + std::to_string(k);
}

// One batch through the schedule: what the stage threads share, and what each stage keeps between a
// micro-batch's forward and its backward.
class ScheduleRun {
 public:
  ScheduleRun(PipelineModel& model, StepParts& parts, const Task& task, std::optional<c10::ScalarType> amp,
              const Batch& batch, const std::vector<int64_t>& sizes, int64_t accum)
      : m_model(model),
        m_parts(parts),
        m_task(task),
        m_amp(amp),
        m_stages(model.stageCount()),
        m_mail(m_stages),
        m_busy(m_stages, 0.0) {
    const int64_t total = batch.x.size(0);
    int64_t offset = 0;
    const torch::Device last = model.stage(m_stages - 1).device;
    for (int64_t n : sizes) {
      m_inputs.push_back(batch.x.narrow(0, offset, n));
      m_targets.push_back({m_inputs.back(), batch.y.narrow(0, offset, n).to(last), batch.index});
      // The micro-batch's share of the batch's mean loss, and of the step's (grad_accum's batches).
      m_weights.push_back(static_cast<double>(n) / static_cast<double>(total) / static_cast<double>(accum));
      m_shares.push_back(static_cast<double>(n) / static_cast<double>(total));
      offset += n;
    }
    m_losses.resize(sizes.size());
    m_outputs.resize(sizes.size());
  }

  // Runs `ops` as stage `s` on its stream; the first failure of any stage aborts the others.
  void runStage(size_t s, const std::vector<StageOp>& ops, int threads, StageStream& stream) {
    try {
      if (threads > 0) at::set_num_threads(threads);
      stream.enter();
      StageKeep keep(m_inputs.size());
      try {
        for (const StageOp& op : ops) {
          if (op.forward) {
            forward(s, op.micro, stream, keep);
          } else {
            backward(s, op.micro, stream, keep);
          }
        }
      } catch (...) {
        // The default stream still waits for what the stage queued: a caller that goes on after the error
        // (the batch-size finder's out-of-memory trials) must not race kernels still writing gradients.
        try {
          stream.leave();
        } catch (...) {
        }
        throw;
      }
      stream.leave();
    } catch (const StageAborted&) {
      // Another stage failed first: its error is the one reported.
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(m_error_mutex);
        if (!m_error) m_error = std::current_exception();
      }
      m_mail.abort();
    }
  }

  std::exception_ptr error() const { return m_error; }
  const std::vector<double>& busy() const { return m_busy; }

  // The batch's logits and mean loss (detached), on `device`.
  TrainingStep::MicroBatch result(const torch::Device& device) const {
    torch::Tensor loss = m_losses[0] * m_shares[0];
    for (size_t k = 1; k < m_losses.size(); ++k) loss = loss + m_losses[k] * m_shares[k];
    return {torch::cat(m_outputs).to(device), loss.to(device)};
  }

 private:
  struct StageKeep {
    explicit StageKeep(size_t micro) : inputs(micro), outputs(micro) {}
    std::vector<torch::Tensor> inputs, outputs;  // the last stage's output is its loss for backward
  };

  void forward(size_t s, int64_t k, StageStream& stream, StageKeep& keep) {
    const torch::Device device = m_model.stage(s).device;
    torch::Tensor input;
    if (s == 0) {
      input = m_inputs[k].to(device);
    } else {
      Handoff handoff = m_mail.receiveForward(s);
      stream.receive(handoff.tensor, handoff.ready);
      // A leaf of this stage's graph: its gradient is what the stage hands back to the one before.
      input = handoff.tensor.to(device).detach().requires_grad_(true);
    }
    const auto start = PipeClock::now();  // busy from here: the wait for the hand-off is idle time
    PhaseRange range(StepPhase::Forward, stageRangeDetail(s, k));
    AutocastGuard autocast(device.type(), m_amp.value_or(torch::kBFloat16), m_amp.has_value());
    torch::Tensor output = m_model.runStage(s, input);
    keep.inputs[k] = input;
    if (s + 1 < m_stages) {
      keep.outputs[k] = output;
      m_mail.sendForward(s + 1, {output.detach(), stream.handOff(), k});
    } else {
      const torch::Tensor loss = m_parts.loss(output, m_targets[k], m_task);
      m_losses[k] = loss.detach();
      m_outputs[k] = output.detach();
      keep.outputs[k] = m_parts.lossForBackward(loss * m_weights[k]);
    }
    m_busy[s] += secondsSince(start);
  }

  void backward(size_t s, int64_t k, StageStream& stream, StageKeep& keep) {
    torch::Tensor& output = keep.outputs[k];
    auto start = PipeClock::now();
    if (s + 1 < m_stages) {
      Handoff handoff = m_mail.receiveBackward(s);
      stream.receive(handoff.tensor, handoff.ready);
      start = PipeClock::now();
      PhaseRange range(StepPhase::Backward, stageRangeDetail(s, k));
      // A stage whose layers and input train nothing (frozen) has no graph to go back through.
      if (output.requires_grad()) torch::autograd::backward({output}, {handoff.tensor.to(output.device())});
    } else if (output.requires_grad()) {
      PhaseRange range(StepPhase::Backward, stageRangeDetail(s, k));
      torch::autograd::backward({output});
    }
    if (s > 0) {
      const torch::Tensor& input = keep.inputs[k];
      const torch::Tensor grad = input.grad().defined() ? input.grad() : torch::zeros_like(input);
      m_mail.sendBackward(s - 1, {grad, stream.handOff(), k});
    }
    keep.inputs[k] = torch::Tensor();
    output = torch::Tensor();
    m_busy[s] += secondsSince(start);
  }

  PipelineModel& m_model;
  StepParts& m_parts;
  const Task& m_task;
  std::optional<c10::ScalarType> m_amp;
  size_t m_stages;
  StageMail m_mail;
  std::vector<torch::Tensor> m_inputs;
  std::vector<Batch> m_targets;  // each micro-batch's targets on the last stage's device
  std::vector<double> m_weights, m_shares;
  std::vector<torch::Tensor> m_losses, m_outputs;  // written by the last stage's thread only
  std::vector<double> m_busy;                      // each written by its stage's thread only
  std::mutex m_error_mutex;
  std::exception_ptr m_error;
};

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f%%", 100.0 * share);
  return text;
}

}  // namespace

std::vector<int64_t> microBatchSizes(int64_t total, int64_t parts) {
  const int64_t count = std::max<int64_t>(1, std::min(total, parts));
  std::vector<int64_t> sizes;
  for (int64_t k = 0; k < count; ++k) sizes.push_back(total / count + (k < total % count ? 1 : 0));
  return sizes;
}

PipelineStep::PipelineStep(PipelineModel& model, torch::optim::Optimizer& optimizer, StepParts& parts,
                           const Task& task, torch::Device device, std::optional<c10::ScalarType> amp_dtype,
                           const PipelineConfig& pipeline)
    : TrainingStep(model, optimizer, parts, task, device, amp_dtype),
      m_model(model),
      m_parts(parts),
      m_task(task),
      m_device(device),
      m_amp_dtype(amp_dtype),
      m_schedule(pipeline.schedule),
      m_micro_batches(pipeline.micro_batches),
      m_workers(std::make_unique<StageWorkers>(model.stageCount())) {
  m_idle.busy_s.assign(model.stageCount(), 0.0);
  // Each stage's stream for the whole run, not one from the pool's round robin per batch: cuBLAS keeps a
  // workspace per (thread's handle, stream) that it never frees, so fresh streams each batch would pile them
  // up (up to 32 streams x 2 threads x 32 MiB a GPU on Hopper), and the profiler would show a row per stream.
  for (size_t s = 0; s < model.stageCount(); ++s) m_streams.push_back(makeStageStream(model.stage(s).device));
}

TrainingStep::MicroBatch PipelineStep::forwardBackward(const Batch& batch, int64_t micro_batches,
                                                       bool completes) {
  const std::vector<int64_t> sizes = microBatchSizes(batch.x.size(0), m_micro_batches);
  const size_t stages = m_model.stageCount();
  ScheduleRun run(m_model, m_parts, m_task, m_amp_dtype, batch, sizes, std::max<int64_t>(1, micro_batches));
  m_parts.beforeBackward(completes);
  // CPU stages share the cores: each gets its share of the caller's intra-op threads.
  size_t cpu_stages = 0;
  for (size_t s = 0; s < stages; ++s) cpu_stages += m_model.stage(s).device.is_cpu() ? 1 : 0;
  const int threads = std::max(1, at::get_num_threads() / static_cast<int>(std::max<size_t>(1, cpu_stages)));
  const auto start = PipeClock::now();
  // The caller's thread-local state (grad mode, a profiler recording: its callbacks and state) on every
  // stage thread, as at::launch and the autograd engine hand theirs to their workers; and the profile's
  // phase ranges when the caller records them.
  const at::ThreadLocalState caller;
  const bool ranges = t_phase_ranges;
  const auto count = static_cast<int64_t>(sizes.size());
  m_workers->runAll([&](size_t s) {
    at::ThreadLocalStateGuard state(caller);
    t_phase_ranges = ranges;
    run.runStage(s, stageOps(m_schedule, s, stages, count), m_model.stage(s).device.is_cpu() ? threads : 0,
                 *m_streams[s]);
    t_phase_ranges = false;
  });
  if (run.error()) std::rethrow_exception(run.error());
  m_idle.wall_s += secondsSince(start);
  for (size_t s = 0; s < stages; ++s) m_idle.busy_s[s] += run.busy()[s];
  ++m_idle.batches;
  return run.result(m_device);
}

std::string PipelineStep::describe() {
  return m_model.describe() + "\n  " + std::to_string(m_micro_batches) + " micro-batches a batch, schedule " +
         wordString(m_schedule) +
         ", ideal bubble (S-1)/(M+S-1) = " + percent(idealBubble(m_model.stageCount(), m_micro_batches));
}

PipelineStep::Idle PipelineStep::takeIdle() {
  Idle taken = m_idle;
  m_idle = Idle{};
  m_idle.busy_s.assign(m_model.stageCount(), 0.0);
  return taken;
}

std::string PipelineStep::takeReport() {
  const Idle idle = takeIdle();
  if (idle.batches == 0 || idle.wall_s <= 0) return {};
  std::string shares;
  for (double busy : idle.busy_s) shares += (shares.empty() ? "" : ", ") + percent(1.0 - busy / idle.wall_s);
  bool cuda = false;
  for (size_t s = 0; s < m_model.stageCount(); ++s) cuda = cuda || m_model.stage(s).device.is_cuda();
  // A CUDA stage's thread only queues its kernels: its "busy" is the host's time to queue them.
  return "pipeline idle per stage: " + shares +
         " (ideal (S-1)/(M+S-1) = " + percent(idealBubble(m_model.stageCount(), m_micro_batches)) +
         ") over " + std::to_string(idle.batches) + " batches" +
         (cuda ? ", host time (a CUDA stage's is the time to queue its work, not the GPU's)" : "");
}

std::unique_ptr<TrainingStep> makeTrainingStep(Model& model, torch::optim::Optimizer& optimizer,
                                               StepParts& parts, const Task& task, torch::Device device,
                                               std::optional<c10::ScalarType> amp_dtype,
                                               const PipelineConfig& pipeline) {
  if (auto* cut = dynamic_cast<PipelineModel*>(&model)) {
    return std::make_unique<PipelineStep>(*cut, optimizer, parts, task, device, amp_dtype, pipeline);
  }
  return std::make_unique<TrainingStep>(model, optimizer, parts, task, device, amp_dtype);
}

}  // namespace wb
