// The training step's parts: every point of a step reaches every part in the order of the list, the first
// part that defines the loss is the one trained on, loss scaling and clipping come after the caller's parts,
// and what parts carry goes into checkpoints and comes back. The step is the trainer's own (trainRank on a
// small synthetic set).

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "model/model.h"
#include "optim/optimizer_factory.h"
#include "step/clip_grad_norm_part.h"
#include "step/configured_parts.h"
#include "step/loss_scaling_part.h"
#include "step/step_parts.h"
#include "step/training_step.h"
#include "support/function_part.h"
#include "support/one_rank.h"
#include "support/test_experiments.h"
#include "task/classification_task.h"

namespace wb {
namespace {

Experiment tinyExperiment() {
  Experiment e = test::smallMlpExperiment(test::freshDir("step-order"));
  e.data.dataset = DatasetName::Synthetic;
  e.data.path = "";
  e.data.limit = 0;
  e.data.synthetic_samples = 160;  // 10% validation: 144 to train, 4 batches of 36 → 2 steps of 2 batches
  e.data.synthetic_classes = 4;
  e.data.synthetic_shape = {8};
  e.data.val_fraction = 0.1;
  e.model.preset = "";
  e.model.layers = nlohmann::json::parse(R"([{"type": "linear", "out_features": 4}])");
  e.optimizer.name = OptimizerName::Sgd;
  e.optimizer.lr = 0.1;
  e.optimizer.momentum = 0;
  e.optimizer.weight_decay = 0;
  e.train.epochs = 1;
  e.train.max_steps = 0;
  e.train.batch_size = 36;
  e.train.grad_accum = 2;
  e.train.log_every_steps = 1;
  e.train.devices = {"cpu"};
  e.train.checkpoint_every_minutes = 0;
  return e;
}

// A part that writes what it is called with into a shared trace: "A.before_step 0", "A.loss", ...
std::shared_ptr<test::FunctionPart> tracing(const std::string& name, std::vector<std::string>& trace) {
  auto p = std::make_shared<test::FunctionPart>();
  p->label = name;
  p->before_step = [&trace, name](int64_t step) {
    trace.push_back(name + ".before_step " + std::to_string(step));
  };
  p->loss_fn = nullptr;
  p->before_backward = [&trace, name](bool completes) {
    trace.push_back(name + ".before_backward " + (completes ? "last" : "more"));
  };
  p->gradients_ready = [&trace, name] { trace.push_back(name + ".gradients_ready"); };
  p->after_step = [&trace, name](int64_t step) {
    trace.push_back(name + ".after_step " + std::to_string(step));
  };
  p->before_evaluation = [&trace, name] { trace.push_back(name + ".before_evaluation"); };
  return p;
}

TEST(StepOrder, EachPointReachesEveryPartInListOrder) {
  std::vector<std::string> trace;
  const test::RankRun run = test::trainOneRank(tinyExperiment(), [&](const test::RankRun&) {
    StepParts parts;
    parts.add(tracing("A", trace)).add(tracing("B", trace));
    return parts;
  });
  ASSERT_EQ(run.outcome.status, RunStatus::Completed);
  ASSERT_EQ(run.outcome.steps, 2);
  const std::vector<std::string> one_step = {"before_step", "before_backward more", "before_backward last",
                                             "gradients_ready", "after_step"};
  std::vector<std::string> expected;
  for (int step = 0; step < 2; ++step) {
    for (const std::string& point : one_step) {
      std::string at = point;
      if (point == "before_step") at += " " + std::to_string(step);
      if (point == "after_step") at += " " + std::to_string(step + 1);
      expected.push_back("A." + at);
      expected.push_back("B." + at);
    }
  }
  expected.push_back("A.before_evaluation");  // the epoch's validation
  expected.push_back("B.before_evaluation");
  EXPECT_EQ(trace, expected);
}

// The loss is the first defining part's; later parts are not asked. A zero loss leaves plain SGD's weights
// where they were, which cross-entropy would not.
TEST(StepOrder, TheFirstPartThatDefinesTheLossIsTrainedOn) {
  Experiment e = tinyExperiment();
  int later_asked = 0;
  std::vector<torch::Tensor> initial;
  const test::RankRun run = test::trainOneRank(e, [&](const test::RankRun& r) {
    for (const auto& p : r.parameters) initial.push_back(p.second.detach().clone());
    auto zero = std::make_shared<test::FunctionPart>();
    zero->loss_fn = [](const torch::Tensor& logits, const Batch&) { return logits.sum() * 0.0; };
    auto later = std::make_shared<test::FunctionPart>();
    later->loss_fn = [&later_asked](const torch::Tensor& logits, const Batch& batch) {
      ++later_asked;
      return torch::nn::functional::cross_entropy(logits, batch.y);
    };
    StepParts parts;
    parts.add(zero).add(later);
    return parts;
  });
  ASSERT_EQ(run.outcome.steps, 2);
  EXPECT_EQ(later_asked, 0);
  for (size_t i = 0; i < initial.size(); ++i) EXPECT_TRUE(torch::equal(run.parameters[i].second, initial[i]));

  // Without the zero loss the weights move (the check above can fail).
  const test::RankRun moved = test::trainOneRank(e, [](const test::RankRun&) { return StepParts(); });
  EXPECT_FALSE(torch::equal(moved.parameters[0].second, initial[0]));
}

// train.clip_grad_norm is a part after the caller's: a part that scales the gradients up sees them unclipped,
// and the optimizer gets them clipped; the norm reported is the one measured before clipping.
TEST(StepOrder, ClippingComesAfterTheCallersPartsAndReportsTheNorm) {
  Experiment e = tinyExperiment();
  e.train.clip_grad_norm = 0.5;
  std::vector<double> seen_norms;
  const test::RankRun run = test::trainOneRank(e, [&](const test::RankRun& r) {
    auto boost = std::make_shared<test::FunctionPart>();
    boost->gradients_ready = [&seen_norms, params = r.parameters] {
      torch::NoGradGuard no_grad;
      std::vector<torch::Tensor> grads;
      for (const auto& p : params) {
        p.second.grad().mul_(100.0);
        grads.push_back(p.second.grad().norm());
      }
      seen_norms.push_back(torch::stack(grads).norm().item<double>());
    };
    return StepParts().add(boost);
  });
  ASSERT_EQ(run.steps.size(), 2u);
  ASSERT_EQ(seen_norms.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_GT(seen_norms[i], 0.5);
    EXPECT_NEAR(run.steps[i].grad_norm, seen_norms[i],
                1e-4 * seen_norms[i]);  // clipping measured the boosted ones
  }
}

// fp16 loss scaling is a part: the parts before it see the scaled gradients, the parts after it (clipping)
// the true ones, and the optimizer steps through the scaler: a step with an inf gradient is skipped (the
// weights stay; the host does not know it at the step, so the after-step point comes as for any step) and
// the scale backs off, as torch.cuda.amp.GradScaler does.
TEST(StepOrder, LossScalingUnscalesForThePartsAfterItAndSkipsAStepWithInfGradients) {
  const Experiment e = tinyExperiment();
  const Dataset data = loadDataset(e.data, e.seed);
  torch::manual_seed(0);
  auto model = buildModel(e.model, data.sample_shape, data.num_classes);
  auto optimizer = makeOptimizer(e.optimizer, model->namedParameters());
  GradScalerOptions options;
  options.init_scale = 1024;
  GradScaler scaler(options);
  const torch::Tensor weight = model->namedParameters().front().second;
  std::vector<double> scaled_norms, true_norms;
  bool poison = false;
  int after_steps = 0;
  auto before = std::make_shared<test::FunctionPart>();
  before->gradients_ready = [&] {
    scaled_norms.push_back(weight.grad().norm().item<double>());
    if (poison) weight.grad().view(-1)[0].fill_(std::numeric_limits<float>::infinity());
  };
  auto after = std::make_shared<test::FunctionPart>();
  after->gradients_ready = [&] { true_norms.push_back(weight.grad().norm().item<double>()); };
  after->after_step = [&](int64_t) { ++after_steps; };
  StepParts parts;
  parts.add(before).add(std::make_shared<LossScalingPart>(scaler, *optimizer)).add(after);
  const ClassificationTask task;
  TrainingStep step(*model, *optimizer, parts, task, torch::kCPU, std::nullopt);
  const Batch batch{data.train.x.slice(0, 0, 36), data.train.y.slice(0, 0, 36)};

  const torch::Tensor initial = weight.detach().clone();
  step.begin(0, 0.1);
  step.forwardBackward(batch, 1, true);
  step.finish(1);
  EXPECT_FALSE(scaler.lastStepSkipped());
  ASSERT_EQ(scaled_norms.size(), 1u);
  ASSERT_EQ(true_norms.size(), 1u);
  EXPECT_GT(true_norms[0], 0.0);
  EXPECT_NEAR(scaled_norms[0], 1024.0 * true_norms[0], 1e-3 * scaled_norms[0]);
  EXPECT_FALSE(torch::equal(weight, initial));
  EXPECT_EQ(after_steps, 1);

  poison = true;
  const torch::Tensor kept = weight.detach().clone();
  step.begin(1, 0.1);
  step.forwardBackward(batch, 1, true);
  step.finish(2);
  EXPECT_TRUE(scaler.lastStepSkipped());
  EXPECT_TRUE(torch::equal(weight, kept));
  EXPECT_EQ(after_steps, 2);
  EXPECT_EQ(scaler.skippedSteps(), 1);
  EXPECT_EQ(scaler.currentScale(), 512.0);
}

// What train.* asks of every step comes after the caller's parts: loss scaling (unscales), then clipping.
TEST(StepOrder, TheConfiguredPartsComeAfterTheCallersLossScalingBeforeClipping) {
  Experiment e = tinyExperiment();
  e.train.clip_grad_norm = 1.0;
  const Dataset data = loadDataset(e.data, e.seed);
  auto model = buildModel(e.model, data.sample_shape, data.num_classes);
  auto optimizer = makeOptimizer(e.optimizer, model->namedParameters());
  GradScalerOptions fp16;
  GradScaler scaler(fp16);
  StepParts parts;
  auto callers = std::make_shared<test::FunctionPart>();
  callers->label = "masks";
  parts.add(callers);
  addConfiguredParts(parts, e.train, *model, *optimizer, scaler);
  EXPECT_EQ(parts.names(), (std::vector<std::string>{"masks", "loss_scaling", "clip_grad_norm"}));

  GradScalerOptions off;
  off.enabled = false;  // train.amp "off" or "bf16": no loss scaling
  GradScaler no_scaling(off);
  e.train.clip_grad_norm = 0;
  StepParts plain;
  addConfiguredParts(plain, e.train, *model, *optimizer, no_scaling);
  EXPECT_TRUE(plain.empty());
}

// The clipping itself: the total norm measured, and brought down to max_norm.
TEST(StepOrder, ClipGradNormBringsTheTotalNormDownToTheMaximum) {
  torch::manual_seed(0);
  torch::nn::Linear linear(8, 4);
  std::vector<torch::Tensor> params = linear->parameters();
  for (auto& p : params) p.mutable_grad() = torch::full_like(p, 3.0);
  const torch::Tensor before = clipGradNorm(params, 1.0);
  std::vector<torch::Tensor> norms;
  for (auto& p : params) norms.push_back(p.grad().norm());
  EXPECT_NEAR(before.item<double>(), 3.0 * std::sqrt(36.0), 1e-4);
  EXPECT_NEAR(torch::stack(norms).norm().item<double>(), 1.0, 1e-5);
}

// The multi-tensor norms give what one norm per gradient gives (torch.nn.utils.clip_grad_norm_'s arithmetic),
// over gradients of several shapes, and a parameter without a gradient is left out and left alone.
TEST(StepOrder, ClipGradNormMatchesOneNormPerGradient) {
  torch::manual_seed(1);
  std::vector<torch::Tensor> params = {torch::randn({64, 32}), torch::randn({32}), torch::randn({3, 3, 8, 8}),
                                       torch::randn({5})};
  for (size_t i = 0; i < params.size(); ++i) {
    if (i != 3) params[i].mutable_grad() = torch::randn_like(params[i]) * 4.0;
  }
  std::vector<torch::Tensor> expected;
  std::vector<torch::Tensor> norms;
  for (size_t i = 0; i < 3; ++i) norms.push_back(params[i].grad().norm());
  const double total = torch::stack(norms).norm().item<double>();
  const double scale = std::min(1.0, 0.5 / (total + 1e-6));
  for (size_t i = 0; i < 3; ++i) expected.push_back(params[i].grad() * scale);

  EXPECT_NEAR(clipGradNorm(params, 0.5).item<double>(), total, 1e-5 * total);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(torch::allclose(params[i].grad(), expected[i], 1e-5, 1e-7)) << i;
  EXPECT_FALSE(params[3].grad().defined());
}

// What parts carry is saved in list order and handed back to every part.
TEST(StepOrder, PartStateIsSavedAndRestoredThroughTheList) {
  struct Carrying final : StepPart {
    std::string key;
    torch::Tensor value;
    torch::Tensor restored;
    std::string name() const override { return key; }
    void saveState(PartState& into) const override { into.emplace_back(key, value); }
    void loadState(const PartState& from) override {
      for (const auto& [k, v] : from)
        if (k == key) restored = v;
    }
  };
  auto a = std::make_shared<Carrying>();
  a->key = "a";
  a->value = torch::ones({2});
  auto b = std::make_shared<Carrying>();
  b->key = "b";
  b->value = torch::zeros({3});
  StepParts parts;
  parts.add(a).add(b);
  EXPECT_EQ(parts.names(), (std::vector<std::string>{"a", "b"}));
  const PartState state = parts.saveState();
  ASSERT_EQ(state.size(), 2u);
  EXPECT_EQ(state[0].first, "a");
  parts.loadState(state);
  EXPECT_TRUE(torch::equal(a->restored, a->value));
  EXPECT_TRUE(torch::equal(b->restored, b->value));
}

}  // namespace
}  // namespace wb
