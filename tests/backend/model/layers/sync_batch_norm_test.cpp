// Batch norm synchronized across data-parallel ranks (train.sync_batchnorm), with ranks that are threads of
// this process (tests/support/thread_rank_group.h, no c10d): N ranks, each with its share of a batch, must
// give what one torch::nn::BatchNorm gives on the whole batch — the outputs, the input gradients, the
// parameter gradients summed over the ranks (each rank's loss is its share of a loss averaged over the global
// batch), and the running statistics. Without a group, the layers build torch's own modules, and a model
// trained with sync saves weights that a plain model loads.
//
// Tolerances: float64, 1e-12 (only the summation order differs); float32, 2e-5 absolute + 1e-4 relative
// on values of order 1 (outputs, statistics) and 1e-6 absolute on gradients of order 1/N; bf16 inputs: the
// statistics as float32 from the same values, the outputs within one bf16 rounding (2^-8 relative).

#include "model/layers/sync_batch_norm.h"

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>

#include "model/layers/conv_layers.h"
#include "model/layers/dense_layers.h"
#include "model/model.h"
#include "model/shape_rules.h"
#include "support/temporary_folder.h"
#include "support/thread_rank_group.h"
#include "torch_compat_autocast.h"

namespace wb {
namespace {

using test::runRanks;
using test::ThreadRankGroup;
using test::ThreadRankHub;

struct Tolerance {
  double atol;
  double rtol;
};

void expectClose(const torch::Tensor& actual, const torch::Tensor& expected, Tolerance tol,
                 const std::string& what) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  const torch::Tensor a = actual.detach().to(torch::kDouble);
  const torch::Tensor e = expected.detach().to(torch::kDouble);
  const double maxDiff = (a - e).abs().max().item<double>();
  EXPECT_TRUE(torch::allclose(a, e, tol.rtol, tol.atol))
      << what << ": largest difference " << maxDiff << " (atol " << tol.atol << ", rtol " << tol.rtol << ")";
}

torch::Tensor param(torch::nn::Module& module, const std::string& name) {
  for (const auto& item : module.named_parameters()) {
    if (item.key() == name) return item.value();
  }
  for (const auto& item : module.named_buffers()) {
    if (item.key() == name) return item.value();
  }
  throw std::logic_error("no tensor " + name);
}

// What one module (or one rank's module) did in a step of training.
struct Step {
  torch::Tensor output, inputGrad, weightGrad, biasGrad;
};

struct Trace {
  std::vector<Step> steps;
  torch::Tensor runningMean, runningVar, numBatches, evalOutput;
};

struct Scenario {
  std::shared_ptr<Layer> layer;
  Shape sample;
  std::vector<torch::Tensor> batches;  // one global batch per step
  std::vector<torch::Tensor> lossWeights;
  torch::Tensor weight, bias, evalInput;
  torch::ScalarType dtype = torch::kFloat;
};

Scenario makeScenario(std::shared_ptr<Layer> layer, Shape sample, int64_t batch, int steps,
                      torch::ScalarType dtype) {
  torch::manual_seed(42);
  Scenario s;
  s.layer = std::move(layer);
  s.sample = sample;
  s.dtype = dtype;
  const int64_t channels = sample[0];
  Shape shape = {batch};
  shape.insert(shape.end(), sample.begin(), sample.end());
  std::vector<int64_t> perChannel(shape.size(), 1);
  perChannel[1] = channels;
  // Channels with their own offset and spread, far from 0 and 1, so a wrong mean or variance shows.
  const torch::Tensor offset = (torch::rand({channels}) * 10 - 5).view(perChannel);
  const torch::Tensor spread = (torch::rand({channels}) * 3 + 0.5).view(perChannel);
  for (int i = 0; i < steps; ++i) {
    s.batches.push_back((torch::randn(shape) * spread + offset).to(dtype));
    s.lossWeights.push_back(torch::randn(shape).to(dtype));
  }
  s.weight = (torch::rand({channels}) + 0.5).to(dtype);
  s.bias = torch::randn({channels}).to(dtype);
  Shape evalShape = shape;
  evalShape[0] = 5;
  s.evalInput = (torch::randn(evalShape) * spread + offset).to(dtype);
  return s;
}

void setAffine(torch::nn::AnyModule& module, const Scenario& s) {
  module.ptr()->to(s.dtype);
  torch::NoGradGuard noGrad;
  param(*module.ptr(), "weight").copy_(s.weight);
  param(*module.ptr(), "bias").copy_(s.bias);
}

// Trains `module` on rows [begin, begin + count) of each global batch; the loss is sum(output * weights) over
// those rows divided by the global batch size, so the ranks' losses add up to the whole batch's.
Trace trainShare(torch::nn::AnyModule& module, const Scenario& s, int64_t begin, int64_t count) {
  Trace trace;
  torch::nn::Module& m = *module.ptr();
  for (size_t i = 0; i < s.batches.size(); ++i) {
    m.train();
    m.zero_grad();
    const torch::Tensor x = s.batches[i].narrow(0, begin, count).clone().requires_grad_(true);
    const torch::Tensor y = module.forward(x);
    const int64_t global = s.batches[i].size(0);
    const torch::Tensor loss =
        (y.to(torch::kDouble) * s.lossWeights[i].narrow(0, begin, count)).sum() / global;
    loss.backward();
    trace.steps.push_back(
        {y.detach(), x.grad(), param(m, "weight").grad().clone(), param(m, "bias").grad().clone()});
  }
  trace.runningMean = param(m, "running_mean").clone();
  trace.runningVar = param(m, "running_var").clone();
  trace.numBatches = param(m, "num_batches_tracked").clone();
  m.eval();
  trace.evalOutput = module.forward(s.evalInput);
  return trace;
}

Trace reference(const Scenario& s) {
  torch::nn::AnyModule module = s.layer->instantiate(s.sample);
  setAffine(module, s);
  return trainShare(module, s, 0, s.batches[0].size(0));
}

std::vector<Trace> ranks(const Scenario& s, const std::vector<int64_t>& shares,
                         int64_t* collectives = nullptr) {
  const int size = static_cast<int>(shares.size());
  ThreadRankHub hub(size);
  std::vector<Trace> traces(shares.size());
  runRanks(size, [&](int rank) {
    ThreadRankGroup group(hub, rank);
    torch::nn::AnyModule module;
    {
      SyncBatchNormScope scope(&group);
      module = s.layer->instantiate(s.sample);
    }
    setAffine(module, s);
    const int64_t begin = std::accumulate(shares.begin(), shares.begin() + rank, int64_t{0});
    traces[static_cast<size_t>(rank)] = trainShare(module, s, begin, shares[static_cast<size_t>(rank)]);
  });
  if (collectives) *collectives = hub.collectives();
  return traces;
}

void expectSameAsOneModule(const Scenario& s, const std::vector<int64_t>& shares, Tolerance values,
                           Tolerance grads) {
  const Trace expected = reference(s);
  const std::vector<Trace> actual = ranks(s, shares);
  for (size_t i = 0; i < s.batches.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    std::vector<torch::Tensor> outputs, inputGrads;
    torch::Tensor weightGrad = torch::zeros_like(expected.steps[i].weightGrad);
    torch::Tensor biasGrad = torch::zeros_like(expected.steps[i].biasGrad);
    for (const Trace& t : actual) {
      outputs.push_back(t.steps[i].output);
      inputGrads.push_back(t.steps[i].inputGrad);
      weightGrad += t.steps[i].weightGrad;
      biasGrad += t.steps[i].biasGrad;
    }
    expectClose(torch::cat(outputs), expected.steps[i].output, values, "outputs");
    expectClose(torch::cat(inputGrads), expected.steps[i].inputGrad, grads, "input gradients");
    expectClose(weightGrad, expected.steps[i].weightGrad, grads, "weight gradient, summed over the ranks");
    expectClose(biasGrad, expected.steps[i].biasGrad, grads, "bias gradient, summed over the ranks");
  }
  for (size_t r = 0; r < actual.size(); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    expectClose(actual[r].runningMean, expected.runningMean, values, "running_mean");
    expectClose(actual[r].runningVar, expected.runningVar, values, "running_var");
    EXPECT_TRUE(torch::equal(actual[r].numBatches, expected.numBatches)) << actual[r].numBatches;
    expectClose(actual[r].evalOutput, expected.evalOutput, values, "eval output on the running statistics");
    // Every rank holds the same statistics, bit for bit: they come from the same global sums.
    EXPECT_TRUE(torch::equal(actual[r].runningMean, actual[0].runningMean));
    EXPECT_TRUE(torch::equal(actual[r].runningVar, actual[0].runningVar));
  }
}

const Tolerance kFloatValues{2e-5, 1e-4};
const Tolerance kFloatGrads{1e-6, 1e-4};
const Tolerance kDouble{1e-12, 1e-10};

TEST(SyncBatchNorm, TwoRanksOfBatchNorm2dEqualOneModuleOnTheWholeBatch) {
  const Scenario s = makeScenario(std::make_shared<BatchNorm2dLayer>(), {3, 5, 4}, 8, 3, torch::kFloat);
  expectSameAsOneModule(s, {4, 4}, kFloatValues, kFloatGrads);
}

TEST(SyncBatchNorm, UnevenSharesAndThreeRanks) {
  const Scenario s = makeScenario(std::make_shared<BatchNorm2dLayer>(), {3, 5, 4}, 9, 2, torch::kFloat);
  expectSameAsOneModule(s, {2, 7}, kFloatValues, kFloatGrads);
  expectSameAsOneModule(s, {3, 1, 5}, kFloatValues, kFloatGrads);
}

TEST(SyncBatchNorm, BatchNorm1d) {
  const Scenario s = makeScenario(std::make_shared<BatchNorm1dLayer>(), {6}, 10, 3, torch::kFloat);
  expectSameAsOneModule(s, {5, 5}, kFloatValues, kFloatGrads);
  expectSameAsOneModule(s, {1, 9}, kFloatValues, kFloatGrads);  // one sample on a rank is fine when synced
}

TEST(SyncBatchNorm, InDoublePrecisionOnlyTheSummationOrderDiffers) {
  expectSameAsOneModule(makeScenario(std::make_shared<BatchNorm2dLayer>(), {3, 4, 4}, 6, 2, torch::kDouble),
                        {2, 4}, kDouble, kDouble);
  expectSameAsOneModule(makeScenario(std::make_shared<BatchNorm1dLayer>(), {4}, 6, 2, torch::kDouble), {3, 3},
                        kDouble, kDouble);
}

TEST(SyncBatchNorm, OneCollectiveForwardAndOneBackwardPerTrainingStepNoneInEval) {
  const Scenario s = makeScenario(std::make_shared<BatchNorm2dLayer>(), {2, 3, 3}, 4, 3, torch::kFloat);
  int64_t collectives = 0;
  ranks(s, {2, 2}, &collectives);
  EXPECT_EQ(collectives, 3 * 2);  // the eval forward at the end meets no one
}

TEST(SyncBatchNorm, Bf16InputsUnderAutocastKeepFloat32Statistics) {
  const Scenario bf16 = makeScenario(std::make_shared<BatchNorm2dLayer>(), {3, 5, 4}, 8, 2, torch::kBFloat16);
  // The reference: a float32 module on the same (bf16-rounded) values.
  Scenario fp32 = bf16;
  fp32.dtype = torch::kFloat;
  for (auto& b : fp32.batches) b = b.to(torch::kFloat);
  for (auto& w : fp32.lossWeights) w = w.to(torch::kFloat);
  fp32.evalInput = fp32.evalInput.to(torch::kFloat);
  const Trace expected = reference(fp32);

  Scenario mixed = fp32;  // float32 parameters, bf16 activations: what autocast gives a batch norm
  mixed.batches = bf16.batches;
  ThreadRankHub hub(2);
  std::vector<Trace> traces(2);
  runRanks(2, [&](int rank) {
    // Through the compat header: 2.4 renamed autocast's setters (the old ones are deprecated wrappers).
    compat::setAutocastEnabled(c10::DeviceType::CPU, true);
    compat::setAutocastDtype(c10::DeviceType::CPU, torch::kBFloat16);
    ThreadRankGroup group(hub, rank);
    torch::nn::AnyModule module;
    {
      SyncBatchNormScope scope(&group);
      module = mixed.layer->instantiate(mixed.sample);
    }
    setAffine(module, mixed);
    traces[static_cast<size_t>(rank)] = trainShare(module, mixed, 4 * rank, 4);
    compat::setAutocastEnabled(c10::DeviceType::CPU, false);
  });
  for (size_t i = 0; i < expected.steps.size(); ++i) {
    const torch::Tensor out = torch::cat({traces[0].steps[i].output, traces[1].steps[i].output});
    EXPECT_EQ(out.scalar_type(), torch::kBFloat16);
    expectClose(out, expected.steps[i].output, {0.02, 1.0 / 128}, "bf16 outputs");
  }
  for (const Trace& t : traces) {
    EXPECT_EQ(t.runningMean.scalar_type(), torch::kFloat);
    expectClose(t.runningMean, expected.runningMean, kFloatValues, "running_mean from bf16 inputs");
    expectClose(t.runningVar, expected.runningVar, kFloatValues, "running_var from bf16 inputs");
  }
}

TEST(SyncBatchNorm, AllreduceSumWithGradSumsValuesAndGradients) {
  ThreadRankHub hub(2);
  std::vector<torch::Tensor> grads(2);
  runRanks(2, [&](int rank) {
    ThreadRankGroup group(hub, rank);
    const torch::Tensor x = torch::full({3}, rank + 1.0, torch::kDouble).requires_grad_(true);
    const torch::Tensor sum = allreduceSumWithGrad(x, group);
    EXPECT_TRUE(torch::equal(sum, torch::full({3}, 3.0, torch::kDouble)));
    EXPECT_TRUE(torch::equal(x, torch::full({3}, rank + 1.0, torch::kDouble)));  // the input is untouched
    // Rank r's loss weighs the sum by (r + 1): d(total loss)/dx = 1 + 2 on both ranks.
    (sum * (rank + 1.0)).sum().backward();
    grads[static_cast<size_t>(rank)] = x.grad();
  });
  for (const auto& g : grads) EXPECT_TRUE(torch::equal(g, torch::full({3}, 3.0, torch::kDouble))) << g;
}

// Without a group of more than one rank, the layers build torch's own modules, exactly as before.
TEST(SyncBatchNorm, WithoutAGroupTheLayersBuildTorchsModules) {
  SingleRank single(torch::kCPU);
  for (RankGroup* group : {static_cast<RankGroup*>(nullptr), static_cast<RankGroup*>(&single)}) {
    SyncBatchNormScope scope(group);
    EXPECT_EQ(syncBatchNormGroup(), nullptr);
    const auto bn2 = BatchNorm2dLayer().instantiate({4, 3, 3}).ptr();
    EXPECT_EQ(typeid(*bn2), typeid(torch::nn::BatchNorm2dImpl));
    const auto bn1 = BatchNorm1dLayer().instantiate({4}).ptr();
    EXPECT_EQ(typeid(*bn1), typeid(torch::nn::BatchNorm1dImpl));
  }
}

TEST(SyncBatchNorm, TheScopeIsPerThreadAndRestoresThePreviousGroup) {
  ThreadRankHub hub(2);
  ThreadRankGroup a(hub, 0), b(hub, 1);
  EXPECT_EQ(syncBatchNormGroup(), nullptr);
  {
    SyncBatchNormScope outer(&a);
    EXPECT_EQ(syncBatchNormGroup(), &a);
    std::thread([] { EXPECT_EQ(syncBatchNormGroup(), nullptr); }).join();
    {
      SyncBatchNormScope inner(&b);
      EXPECT_EQ(syncBatchNormGroup(), &b);
      const auto bn = BatchNorm2dLayer().instantiate({4, 3, 3}).ptr();
      EXPECT_NE(std::dynamic_pointer_cast<SyncBatchNorm2dImpl>(bn), nullptr);
      // Code that looks for torch's BatchNorm2d still finds one.
      EXPECT_NE(std::dynamic_pointer_cast<torch::nn::BatchNorm2dImpl>(bn), nullptr);
    }
    EXPECT_EQ(syncBatchNormGroup(), &a);
  }
  EXPECT_EQ(syncBatchNormGroup(), nullptr);
}

std::vector<std::pair<std::string, std::vector<int64_t>>> namesAndShapes(torch::nn::Module& m) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  for (const auto& p : m.named_parameters()) out.emplace_back("p " + p.key(), p.value().sizes().vec());
  for (const auto& b : m.named_buffers())
    out.emplace_back("b " + b.key() + " " + c10::toString(b.value().scalar_type()), b.value().sizes().vec());
  return out;
}

TEST(SyncBatchNorm, ParametersAndBuffersAreNamedAndShapedAsTorchsBatchNorm) {
  ThreadRankHub hub(2);
  ThreadRankGroup group(hub, 0);
  SyncBatchNorm2d sync2(7, group);
  torch::nn::BatchNorm2d plain2(7);
  EXPECT_EQ(namesAndShapes(*sync2), namesAndShapes(*plain2));
  SyncBatchNorm1d sync1(5, group);
  torch::nn::BatchNorm1d plain1(5);
  EXPECT_EQ(namesAndShapes(*sync1), namesAndShapes(*plain1));
}

// A CNN and an MLP trained with sync on two ranks save weights that the same experiment's plain model (how a
// run is evaluated, exported and resumed on one device) loads, tensor for tensor.
TEST(SyncBatchNorm, AModelTrainedWithSyncLoadsIntoAPlainModel) {
  using nlohmann::json;
  const std::vector<std::pair<json, Shape>> models = {
      {json::parse(R"([{"type": "conv2d", "out_channels": 4, "kernel_size": 3, "padding": 1, "bias": false},
                       {"type": "batchnorm2d"}, {"type": "relu"}, {"type": "flatten"},
                       {"type": "linear", "out_features": 3}])"),
       {1, 6, 6}},
      {json::parse(R"([{"type": "linear", "out_features": 8}, {"type": "batchnorm1d"}, {"type": "relu"},
                       {"type": "dropout", "p": 0.25}, {"type": "linear", "out_features": 3}])"),
       {5}}};
  const test::TemporaryFolder folder("sync-bn-test");
  const std::string dir = folder.path();
  for (const auto& [layers, sample] : models) {
    SCOPED_TRACE(layers.dump());
    ModelConfig config;
    config.preset.clear();
    config.layers = layers;
    const std::string file = dir + "/model.pt";
    ThreadRankHub hub(2);
    std::vector<std::unique_ptr<ThreadRankGroup>> groups;
    std::vector<std::unique_ptr<Model>> rankModels;
    for (int rank = 0; rank < 2; ++rank) {  // as the trainer does: built one after the other, same seed
      groups.push_back(std::make_unique<ThreadRankGroup>(hub, rank));
      torch::manual_seed(1);
      SyncBatchNormScope scope(groups.back().get());
      rankModels.push_back(buildModel(config, sample, 3));
    }
    std::vector<std::vector<std::pair<std::string, torch::Tensor>>> trained(2);
    runRanks(2, [&](int rank) {
      Model& model = *rankModels[static_cast<size_t>(rank)];
      Shape shape = {4};
      shape.insert(shape.end(), sample.begin(), sample.end());
      const torch::Tensor x =
          torch::arange(4 * elementCount(sample), torch::kFloat).reshape(shape).sin() * 3 + rank;
      model.train(true);
      model.forward(x).square().mean().backward();
      torch::NoGradGuard noGrad;
      for (auto& p : model.parameters()) p.sub_(0.1 * p.grad());
      trained[static_cast<size_t>(rank)] = model.namedParameters();
      for (const auto& b : model.namedBuffers()) trained[static_cast<size_t>(rank)].push_back(b);
      if (rank == 0) model.save(file);
    });
    std::unique_ptr<Model> plain = buildModel(config, sample, 3);
    plain->load(file);
    std::vector<std::pair<std::string, torch::Tensor>> loaded = plain->namedParameters();
    for (const auto& b : plain->namedBuffers()) loaded.push_back(b);
    ASSERT_EQ(loaded.size(), trained[0].size());
    for (size_t i = 0; i < loaded.size(); ++i) {
      EXPECT_EQ(loaded[i].first, trained[0][i].first);
      EXPECT_TRUE(torch::equal(loaded[i].second, trained[0][i].second)) << loaded[i].first;
    }
    // The synced statistics are the same on both ranks (the parameters differ: no gradient allreduce here).
    for (size_t i = 0; i < trained[0].size(); ++i) {
      if (trained[0][i].first.find("running_") != std::string::npos) {
        EXPECT_TRUE(torch::equal(trained[0][i].second, trained[1][i].second)) << trained[0][i].first;
      }
    }
  }
}

}  // namespace
}  // namespace wb
