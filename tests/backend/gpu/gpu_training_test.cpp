// CUDA-only checks (ctest label "gpu"; scripts/gpu-check.sh runs them on the GPU machine). Every test skips
// cleanly without CUDA. The data is synthetic so the GPU machine needs no dataset files.
//   - the loss scaler's CUDA path (torch's fused kernels) against its CPU path on the same sequence;
//   - autocast on CUDA (fp16 and bf16) and the benchmark's amp/channels_last paths;
//   - training with train.amp fp16 (loss scaling) follows float32 within a tolerance;
//   - CUDA memory metrics are reported;
//   - CPU and CUDA give the same losses over the first steps (float32, TF32 off);
//   - the trainer's bf16 forward really runs under autocast (its logits are bfloat16);
//   - fp16: an inf gradient injected at one step makes the trainer skip that step (the optimizer and the
//     schedule do not move, skipped_steps is 1, the loss scale halves) and train on;
//   - the loader's pinned-memory branch: batches arrive on the device, equal to the CPU loader's.

#include <gtest/gtest.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "control/training_control.h"
#include "data/batch_loader.h"
#include "data/dataset.h"
#include "model/model.h"
#include "optim/autocast_guard.h"
#include "optim/grad_scaler.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer_factory.h"
#include "run_folder/event_stream.h"
#include "support/function_part.h"
#include "support/one_rank.h"
#include "support/test_experiments.h"
#include "train/rank_trainer.h"
#include "train/training_plan.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

#define WB_REQUIRE_CUDA()                                              \
  if (!torch::cuda::is_available()) {                                  \
    GTEST_SKIP() << "no CUDA device (this build or machine has none)"; \
  }

struct Recorded {
  std::mutex mutex;
  std::vector<StepMetrics> steps;
  std::vector<RunError> errors;
  void add(EventBatch&& batch) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& e : batch) {
      if (const auto* s = std::get_if<StepMetrics>(&e)) steps.push_back(*s);
      if (const auto* r = std::get_if<RunError>(&e)) errors.push_back(*r);
    }
  }
};

// A small conv net without dropout (so CPU and CUDA draw no different random masks) on synthetic images.
Experiment syntheticExperiment(const std::string& device, const std::string& amp) {
  Experiment e = test::smallMlpExperiment(test::freshDir("gpu-" + amp));
  test::useSyntheticImages(e, 4096);
  e.model.layers = nlohmann::json::parse(R"([
    {"type": "conv2d", "out_channels": 16, "kernel_size": 3, "padding": 1}, {"type": "relu"},
    {"type": "maxpool2d", "kernel_size": 2}, {"type": "flatten"},
    {"type": "linear", "out_features": 64}, {"type": "relu"}, {"type": "linear", "out_features": 10}])");
  e.optimizer.name = OptimizerName::AdamW;
  e.optimizer.lr = 1e-3;
  e.train.epochs = 0;
  e.train.max_steps = 60;
  e.train.batch_size = 64;
  e.train.log_every_steps = 5;
  e.train.devices = {device};
  e.train.amp = fromWord<Precision>(amp).value();
  e.train.tf32 = false;  // float32 means float32 for the comparisons
  e.train.cudnn_benchmark = false;
  e.train.checkpoint_every_minutes = 0;
  return e;
}

struct TrainedRun {
  RunSummary summary;
  std::vector<StepMetrics> steps;
  std::string error;
};

TrainedRun train(const Experiment& e) {
  Recorded rec;
  TrainedRun run;
  run.summary = trainBlocking(e, [&rec](EventBatch&& b) { rec.add(std::move(b)); });
  run.steps = rec.steps;
  if (!rec.errors.empty()) run.error = rec.errors.front().message;
  return run;
}

// trainOneRank with one part made by `make_part`.
template <typename MakePart>
test::RankRun trainOneRank(const Experiment& e, MakePart&& make_part) {
  return test::trainOneRank(e, [&](const test::RankRun& run) { return StepParts().add(make_part(run)); });
}

TEST(GpuGradScaler, CudaKernelsMatchTheCpuPath) {
  WB_REQUIRE_CUDA();
  GradScalerOptions options;
  options.growth_interval = 3;
  GradScaler cpu(options), cuda(options);
  auto w_cpu = torch::tensor({1.0f, 2.0f}).requires_grad_(true);
  auto w_cuda = w_cpu.detach().to(torch::kCUDA).requires_grad_(true);
  torch::optim::SGD opt_cpu({w_cpu}, torch::optim::SGDOptions(0.125));
  torch::optim::SGD opt_cuda({w_cuda}, torch::optim::SGDOptions(0.125));
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::pair<double, double>> grads = {
      {1, 1}, {1, 1}, {1, 1}, {inf, 1}, {1, NAN}, {0.5, 2}, {1, -1}, {-inf, 1}, {1, 1}, {1, 1}, {1, 1}};
  for (const auto& [a, b] : grads) {
    for (int side = 0; side < 2; ++side) {
      GradScaler& s = side == 0 ? cpu : cuda;
      torch::Tensor& w = side == 0 ? w_cpu : w_cuda;
      torch::optim::SGD& opt = side == 0 ? opt_cpu : opt_cuda;
      opt.zero_grad();
      s.scale((w * torch::tensor({a, b}, w.options().requires_grad(false))).sum()).backward();
      s.step(opt);
      s.update();
    }
    EXPECT_EQ(cpu.currentScale(), cuda.currentScale());
    EXPECT_EQ(cpu.state().growth_tracker, cuda.state().growth_tracker);
    EXPECT_EQ(cpu.lastStepSkipped(), cuda.lastStepSkipped());
    EXPECT_TRUE(torch::equal(w_cpu.detach(), w_cuda.detach().cpu()));
  }
}

TEST(GpuAutocast, Fp16AndBf16OnCuda) {
  WB_REQUIRE_CUDA();
  const auto a = torch::randn({64, 64}, torch::kCUDA);
  {
    AutocastGuard guard(torch::kCUDA, torch::kHalf);
    EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kHalf);
    EXPECT_FALSE(AutocastGuard::isEnabled(torch::kCPU));
  }
  {
    AutocastGuard guard(torch::kCUDA, torch::kBFloat16);
    EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kBFloat16);
  }
  EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kFloat32);
}

TEST(GpuBenchmark, RunsEachPrecisionAndChannelsLast) {
  WB_REQUIRE_CUDA();
  for (const char* amp : {"off", "bf16", "fp16"}) {
    for (bool channels_last : {false, true}) {
      Experiment e = syntheticExperiment("cuda:0", amp);
      e.train.channels_last = channels_last;
      const BenchResult r = benchmarkTraining(e, 5, 2, nullptr);
      EXPECT_GT(r.samples_per_sec, 0) << amp << (channels_last ? " channels_last" : "");
    }
  }
}

TEST(GpuTraining, Fp16WithLossScalingFollowsFloat32) {
  WB_REQUIRE_CUDA();
  const TrainedRun fp32 = train(syntheticExperiment("cuda:0", "off"));
  const TrainedRun fp16 = train(syntheticExperiment("cuda:0", "fp16"));
  ASSERT_EQ(fp32.summary.status, RunStatus::Completed) << fp32.error;
  ASSERT_EQ(fp16.summary.status, RunStatus::Completed) << fp16.error;
  ASSERT_EQ(fp32.steps.size(), fp16.steps.size());
  for (size_t i = 0; i < fp32.steps.size(); ++i) {
    EXPECT_NEAR(fp16.steps[i].loss, fp32.steps[i].loss, 0.02 + 0.02 * fp32.steps[i].loss) << "window " << i;
    EXPECT_GT(fp16.steps[i].loss_scale, 0);  // the scaler's scale is reported
    EXPECT_EQ(fp32.steps[i].loss_scale, -1);
  }
  EXPECT_EQ(fp16.steps.front().loss_scale, 65536.0);  // no overflow in the first steps of this small net
  EXPECT_LE(fp16.steps.back().skipped_steps, 3);
  EXPECT_LT(fp16.steps.back().loss, fp16.steps.front().loss);
}

TEST(GpuTraining, Bf16FollowsFloat32) {
  WB_REQUIRE_CUDA();
  const TrainedRun fp32 = train(syntheticExperiment("cuda:0", "off"));
  const TrainedRun bf16 = train(syntheticExperiment("cuda:0", "bf16"));
  ASSERT_EQ(bf16.summary.status, RunStatus::Completed) << bf16.error;
  ASSERT_EQ(fp32.steps.size(), bf16.steps.size());
  for (size_t i = 0; i < fp32.steps.size(); ++i) {
    EXPECT_NEAR(bf16.steps[i].loss, fp32.steps[i].loss, 0.05 + 0.03 * fp32.steps[i].loss) << "window " << i;
    EXPECT_EQ(bf16.steps[i].loss_scale, -1);  // bf16 needs no loss scaling
  }

  // Close losses alone would also pass with autocast off: the trainer's forward must give bfloat16 logits.
  Experiment e = syntheticExperiment("cuda:0", "bf16");
  e.train.max_steps = 3;
  std::vector<torch::ScalarType> logits_types;
  const test::RankRun run = trainOneRank(e, [&logits_types](const test::RankRun&) {
    auto part = std::make_shared<test::FunctionPart>();
    part->loss_fn = [&logits_types](const torch::Tensor& logits, const Batch& batch) {
      logits_types.push_back(logits.scalar_type());
      return torch::nn::functional::cross_entropy(logits, batch.y);
    };
    return part;
  });
  EXPECT_EQ(run.outcome.status, RunStatus::Completed);
  ASSERT_EQ(logits_types.size(), 3u);
  for (const auto type : logits_types) EXPECT_EQ(type, torch::kBFloat16);
}

// fp16 end to end: an inf in one gradient at step k, through the trainer. That step is skipped on the device:
// the weights do not move (those the next step sees are those of the injection), the step counts as a step
// as in a Python loop (the host does not read found_inf), the loss scale halves and skipped_steps is 1 from
// the next report on; the run trains its full number of steps.
TEST(GpuTraining, Fp16SkipsAStepWithAnInfGradientAndTrainsOn) {
  WB_REQUIRE_CUDA();
  Experiment e = syntheticExperiment("cuda:0", "fp16");
  e.train.max_steps = 8;
  e.train.log_every_steps = 1;
  const int64_t k = 3;  // steps done when the inf is injected
  std::vector<int64_t> before, after;
  std::vector<double> lrs;
  int64_t current = -1;
  bool injected = false;
  torch::Tensor weight_at_injection;
  bool weight_unchanged_after_skip = false;
  const test::RankRun run = trainOneRank(e, [&](const test::RankRun& r) {
    auto part = std::make_shared<test::FunctionPart>();
    part->before_step = [&](int64_t step) {
      current = step;
      before.push_back(step);
    };
    part->gradients_ready = [&, params = &r.parameters]() {
      const torch::Tensor& w = params->front().second;
      if (current == k && !injected) {
        injected = true;
        weight_at_injection = w.detach().clone();
        torch::NoGradGuard no_grad;
        w.grad().view(-1)[0].fill_(std::numeric_limits<float>::infinity());
      } else if (current == k + 1 && weight_at_injection.defined()) {
        weight_unchanged_after_skip = torch::equal(w.detach(), weight_at_injection);
      }
    };
    part->after_step = [&](int64_t step) { after.push_back(step); };
    return part;
  });
  ASSERT_EQ(run.outcome.status, RunStatus::Completed);
  EXPECT_TRUE(injected);
  EXPECT_EQ(run.outcome.steps, 8);
  EXPECT_EQ(before, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(after, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_TRUE(weight_unchanged_after_skip) << "the optimizer stepped on an inf gradient";
  EXPECT_EQ(run.skipped_steps, 1);
  EXPECT_EQ(run.loss_scale, 65536.0 / 2);
  ASSERT_EQ(run.steps.size(), 8u);
  for (const StepMetrics& m : run.steps) {
    SCOPED_TRACE("step " + std::to_string(m.step));
    EXPECT_EQ(m.skipped_steps, m.step <= k ? 0 : 1);
    EXPECT_EQ(m.loss_scale, m.step <= k ? 65536.0 : 32768.0);
    EXPECT_EQ(m.nonfinite_steps_in_window, m.step == k + 1 ? 1 : 0);
    EXPECT_TRUE(std::isfinite(m.loss));
  }
}

// The pinned-memory branch of the loader (CUDA, pin_memory on): each batch arrives on the device, equal to
// the batch the CPU loader gives, also after restarting mid-epoch.
TEST(GpuBatchLoader, PinnedMemoryBatchesArriveOnTheDeviceEqualToTheCpuBatches) {
  WB_REQUIRE_CUDA();
  torch::manual_seed(3);
  const auto x = torch::randn({300, 1, 8, 8});
  const auto y = torch::randint(0, 10, {300}, torch::kLong);
  BatchLoaderOptions options;
  options.batch_size = 64;
  options.seed = 11;
  BatchLoaderOptions on_gpu = options;
  on_gpu.device = torch::Device("cuda:0");
  on_gpu.pin_memory = true;
  BatchLoader cpu(x, y, options);
  BatchLoader gpu(x, y, on_gpu);
  ASSERT_EQ(cpu.batchesPerEpoch(), gpu.batchesPerEpoch());
  for (const std::pair<int64_t, int64_t>& start : {std::pair<int64_t, int64_t>{1, 0}, {2, 2}}) {
    cpu.startEpoch(start.first, start.second);
    gpu.startEpoch(start.first, start.second);
    int64_t batches = 0;
    while (auto a = cpu.next()) {
      auto b = gpu.next();
      ASSERT_TRUE(b.has_value()) << "epoch " << start.first << " batch " << a->index;
      EXPECT_TRUE(b->x.is_cuda());
      EXPECT_TRUE(b->y.is_cuda());
      EXPECT_EQ(a->index, b->index);
      EXPECT_TRUE(torch::equal(a->x, b->x.cpu())) << "epoch " << start.first << " batch " << a->index;
      EXPECT_TRUE(torch::equal(a->y, b->y.cpu())) << "epoch " << start.first << " batch " << a->index;
      ++batches;
    }
    EXPECT_FALSE(gpu.next().has_value());
    EXPECT_EQ(batches, cpu.batchesPerEpoch() - start.second);
  }
}

TEST(GpuTraining, ReportsCudaMemory) {
  WB_REQUIRE_CUDA();
  const TrainedRun run = train(syntheticExperiment("cuda:0", "off"));
  ASSERT_EQ(run.summary.status, RunStatus::Completed) << run.error;
  ASSERT_FALSE(run.steps.empty());
  for (const StepMetrics& m : run.steps) {
    EXPECT_GT(m.cuda_allocated_bytes, 0);
    EXPECT_GE(m.cuda_reserved_bytes, m.cuda_allocated_bytes);
    EXPECT_GE(m.cuda_peak_bytes, m.cuda_allocated_bytes);
  }
}

TEST(GpuTraining, CpuAndCudaGiveTheSameFirstLosses) {
  WB_REQUIRE_CUDA();
  Experiment cpu_exp = syntheticExperiment("cpu", "off");
  Experiment cuda_exp = syntheticExperiment("cuda:0", "off");
  cpu_exp.train.max_steps = cuda_exp.train.max_steps = 20;
  const TrainedRun cpu = train(cpu_exp);
  const TrainedRun cuda = train(cuda_exp);
  ASSERT_EQ(cpu.summary.status, RunStatus::Completed) << cpu.error;
  ASSERT_EQ(cuda.summary.status, RunStatus::Completed) << cuda.error;
  ASSERT_EQ(cpu.steps.size(), cuda.steps.size());
  for (size_t i = 0; i < cpu.steps.size(); ++i) {
    EXPECT_NEAR(cuda.steps[i].loss, cpu.steps[i].loss, 1e-3 * std::max(1.0, cpu.steps[i].loss))
        << "window " << i;
  }
}

}  // namespace
}  // namespace wb
