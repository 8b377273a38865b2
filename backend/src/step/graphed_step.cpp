#include "step/graphed_step.h"

#include <ATen/autocast_mode.h>

#include <sstream>
#include <utility>

#include "model/weights_file.h"
#include "optim/device_step.h"
#include "util/cuda_graph.h"
#include "workbench/errors.h"
#include "workbench/word_set.h"

namespace wb {
namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// Autocast keeps casted weights for the rest of its region; a capture keeps none (torch asks the same of
// autocast around a graph: cache_enabled=False), so every replay casts the weights it updated.
class AutocastCacheOff {
 public:
  AutocastCacheOff() : m_was(at::autocast::is_autocast_cache_enabled()) {
    at::autocast::set_autocast_cache_enabled(false);
  }
  ~AutocastCacheOff() { at::autocast::set_autocast_cache_enabled(m_was); }
  AutocastCacheOff(const AutocastCacheOff&) = delete;
  AutocastCacheOff& operator=(const AutocastCacheOff&) = delete;

 private:
  bool m_was;
};

}  // namespace

GraphChoice chooseCudaGraphs(const TrainConfig& train, const torch::Device& device, const StepParts& parts,
                             torch::optim::Optimizer& optimizer) {
  const std::string key = "train.cuda_graphs " + std::string(wordString(train.cuda_graphs));
  const auto eager = [&](const std::string& why) {
    return GraphChoice{false, key + ": the step runs eagerly (" + why + ")"};
  };
  if (train.cuda_graphs == AutoSwitch::Off) return GraphChoice{false, ""};
  if (!device.is_cuda()) {
    // auto on the CPU: nothing to say in every CPU run's log.
    if (train.cuda_graphs == AutoSwitch::Auto) return GraphChoice{};
    return eager("graphs are CUDA's; the device is " + device.str());
  }
  if (train.grad_accum > 1) {
    return eager("train.grad_accum " + std::to_string(train.grad_accum) +
                 ": a step of several batches is not captured");
  }
  const std::vector<std::string> refused = parts.uncapturable();
  if (!refused.empty()) {
    return eager("the step's " + joined(refused) +
                 " cannot be recorded in a graph: it talks to other ranks or changes host state per step");
  }
  if (!CudaGraph::available()) return eager("this build's LibTorch has no CUDA");
  if (train.cuda_graphs == AutoSwitch::Auto) {
    // auto captures only what is known to be right, and the capture has not run on a GPU yet: until
    // scripts/gpu-check.sh's graph cases pass on a device, only `on` captures.
    return eager(
        "the capture has not yet been checked on a GPU in this version; train.cuda_graphs on captures "
        "the step");
  }
  std::ostringstream line;
  line << key << ": the step is captured in a CUDA graph after 3 warm-up steps and replayed";
  auto* device_step = dynamic_cast<DeviceStep*>(&optimizer);
  if (!device_step || !device_step->capturable()) {
    line << "; forward, loss and backward only: the optimizer's step reads host values (only a fused "
            "adam/adamw/sgd step on LibTorch 2.x runs from device tensors), so it runs after each replay";
  }
  line << "; not captured: the metrics' running sums (a few kernels after each replay) and a batch of "
          "another shape (a short last batch runs eagerly)";
  return GraphChoice{true, line.str()};
}

GraphedStep::GraphedStep(TrainingStep& body, StepParts& parts, torch::optim::Optimizer& optimizer,
                         torch::Device device, int64_t warmup_steps)
    : m_body(body),
      m_parts(parts),
      m_optimizer(optimizer),
      m_device(device),
      m_plan(warmup_steps),
      m_graph(std::make_unique<CudaGraph>(device.index() < 0 ? 0 : device.index())) {}

GraphedStep::~GraphedStep() = default;

TrainingStep::MicroBatch GraphedStep::step(const Batch& batch, int64_t step, double lr) {
  return this->step(batch, step, std::vector<double>{lr});
}

TrainingStep::MicroBatch GraphedStep::step(const Batch& batch, int64_t step, const std::vector<double>& lrs) {
  const bool captured = m_plan.isCaptured();
  const GraphAction action = m_plan.next(batch.x.size(0), captured && fitsStaticBuffers(batch),
                                         captured && m_plan.holds(heldTensors()));
  if (captured && !m_plan.isCaptured()) {
    // The old graph would write the replaced tensors' memory: a new one is captured after a warm-up step.
    m_graph = std::make_unique<CudaGraph>(m_device.index() < 0 ? 0 : m_device.index());
  }
  switch (action) {
    case GraphAction::Replay:
      return replay(batch, step, lrs);
    case GraphAction::Capture:
      return capture(batch, step, lrs);
    case GraphAction::WarmUp: {
      TrainingStep::MicroBatch result;
      m_graph->runOnSideStream([&] { result = eager(batch, step, lrs); });
      return result;
    }
    case GraphAction::Eager:
      break;
  }
  ++m_eager_since_news;
  return eager(batch, step, lrs);
}

TrainingStep::MicroBatch GraphedStep::eager(const Batch& batch, int64_t step,
                                            const std::vector<double>& lrs) {
  m_body.begin(step, lrs);
  TrainingStep::MicroBatch result = m_body.forwardBackward(batch, 1, true);
  m_body.finish(step + 1);
  return result;
}

TrainingStep::MicroBatch GraphedStep::capture(const Batch& batch, int64_t step,
                                              const std::vector<double>& lrs) {
  auto* device_step = dynamic_cast<DeviceStep*>(&m_optimizer);
  // Known only now that the gradients exist: whether every one of them is on the device step's path.
  m_whole = device_step && device_step->stepsOnDevice() && device_step->capturable();
  // The buffers keep the batch's layout (channels_last images stay so).
  m_static = Batch{batch.x.clone(), batch.y.clone(), batch.index};
  // Gradients set to none: the captured backward allocates them from the graph's pool and writes them
  // anew at each replay (nothing to zero).
  m_body.begin(step, lrs);
  for (auto& group : m_optimizer.param_groups()) {
    for (auto& p : group.params()) p.mutable_grad() = torch::Tensor();
  }
  {
    AutocastCacheOff no_cache;
    try {
      m_graph->capture([&] {
        m_output = m_body.forwardBackward(m_static, 1, true);
        if (m_whole) m_body.finish(step + 1);
      });
    } catch (const std::exception& error) {
      throw UserError("train.cuda_graphs: the step could not be captured in a CUDA graph at step " +
                          std::to_string(step + 1) + ": " + shortErrorText(error),
                      "Set train.cuda_graphs to off and resume the run (its checkpoints are intact).");
    }
  }
  m_parameters.clear();
  m_gradients.clear();
  for (auto& group : m_optimizer.param_groups()) {
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      m_parameters.push_back(p);
      m_gradients.push_back(p.grad());
    }
  }
  m_plan.captured(heldTensors());
  std::ostringstream news;
  news << "CUDA graph captured at step " << step + 1 << " ("
       << (m_whole ? "the whole step" : "forward, loss and backward; the optimizer steps after each replay")
       << ", batch " << batch.x.sizes() << ")";
  m_news = news.str();
  // The capture recorded the step without running it.
  m_graph->replay();
  if (!m_whole) m_body.finish(step + 1);
  return m_output;
}

TrainingStep::MicroBatch GraphedStep::replay(const Batch& batch, int64_t step,
                                             const std::vector<double>& lrs) {
  m_body.setStepLearningRates(lrs);
  m_parts.beforeStep(step);
  // An eager step in between (a short batch) left other gradient tensors on the parameters: the graph's are
  // the ones it writes, and what runs outside it (an optimizer's step, a checkpoint) must read.
  for (size_t i = 0; i < m_parameters.size(); ++i) m_parameters[i].mutable_grad() = m_gradients[i];
  m_static.x.copy_(batch.x, /*non_blocking=*/true);
  m_static.y.copy_(batch.y, /*non_blocking=*/true);
  m_static.index = batch.index;
  m_graph->replay();
  if (!m_whole) m_body.finish(step + 1);
  return m_output;
}

std::vector<torch::Tensor> GraphedStep::heldTensors() const {
  if (m_whole) return dynamic_cast<const DeviceStep&>(m_optimizer).graphTensors();
  std::vector<torch::Tensor> params;
  for (const auto& group : m_optimizer.param_groups()) {
    params.insert(params.end(), group.params().begin(), group.params().end());
  }
  return params;
}

bool GraphedStep::fitsStaticBuffers(const Batch& batch) const {
  return batch.x.sizes() == m_static.x.sizes() && batch.y.sizes() == m_static.y.sizes() &&
         batch.x.scalar_type() == m_static.x.scalar_type() &&
         batch.y.scalar_type() == m_static.y.scalar_type() && batch.x.device() == m_static.x.device();
}

std::optional<std::string> GraphedStep::takeNews() {
  std::optional<std::string> news = std::move(m_news);
  m_news.reset();
  if (const int64_t dropped = m_plan.takeDropped(); dropped > 0) {
    const std::string again =
        "the optimizer replaced a tensor the CUDA graph held (a load, or its step left "
        "the device): the graph was dropped and the step is captured again";
    news = news ? again + "; " + *news : again;
  }
  if (m_eager_since_news > 0) {
    const std::string eager = std::to_string(m_eager_since_news) +
                              " step(s) of another batch shape ran eagerly beside the CUDA graph";
    news = news ? *news + "; " + eager : eager;
    m_eager_since_news = 0;
  }
  return news;
}

}  // namespace wb
