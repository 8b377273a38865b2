// Quantization-aware training: the fake-quantized float model against the int8 model convert makes of it (on
// real Fashion-MNIST test images: what was trainedForQat is what runs), training through fake quant (weights
// move, observers follow, gradients pass straight through), the converted artifact, observer state as buffers
// that resume bit-identically, and QAT's int8 accuracy against static post-training quantization's.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "compress/qat_model.h"
#include "compress/quantization.h"
#include "compress/quantized_net.h"
#include "data/dataset.h"
#include "support/fashion_subset.h"
#include "support/mobile_layers.h"
#include "support/temporary_folder.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;

using test::fashion;
using test::resized;

// `steps` Adam steps (batch 32) of `model` on Fashion-MNIST training images from batch `first` on.
void trainSteps(Model& model, const Shape& shape, int steps, double lr, int first = 0) {
  torch::optim::Adam opt(model.parameters(), torch::optim::AdamOptions(lr));
  model.train(true);
  const Dataset& d = fashion();
  for (int s = first; s < first + steps; ++s) {
    const int64_t from = (s * 32) % (d.train.x.size(0) - 32);
    const torch::Tensor x = resized(d.train.x.slice(0, from, from + 32), shape);
    const torch::Tensor y = d.train.y.slice(0, from, from + 32);
    opt.zero_grad();
    torch::nn::functional::cross_entropy(model.forward(x), y).backward();
    opt.step();
  }
  model.train(false);
}

// A layer list trainedForQat for `steps` steps from seed 11, as a float artifact.
ModelArtifact trainedForQat(const json& layers, const Shape& shape, int steps) {
  torch::manual_seed(11);
  ModelConfig config;
  config.preset = "";
  config.layers = layers;
  auto model = buildModel(config, shape, 10);
  trainSteps(*model, shape, steps, 2e-3);
  return artifactFromModel(*model, layers, "", shape, 10);
}

const Shape kMnist = {1, 28, 28};
const Shape kHalf = {1, 14, 14};  // the resnet preset stays small at half size

// The cnn preset after 40 steps, shared by the tests (built once).
const ModelArtifact& cnn() {
  static const ModelArtifact a = trainedForQat(presetLayers("cnn", kMnist, 10), kMnist, 40);
  return a;
}

CompressPassConfig qatPass() {
  CompressPassConfig pass;
  pass.type = PassType::Quantize;
  pass.mode = QuantizeMode::Qat;
  pass.epochs = 1;
  return pass;
}

torch::Tensor testImages(const Shape& shape, int64_t n) {
  return resized(fashion().test.x.slice(0, 0, n), shape);
}

double accuracy(const torch::Tensor& logits, int64_t n) {
  return logits.argmax(1).eq(fashion().test.y.slice(0, 0, n)).to(torch::kFloat64).mean().item<double>();
}

const torch::Tensor* findQatTensor(const NamedTensors& tensors, const std::string& name) {
  for (const auto& [n, t] : tensors) {
    if (n == name) return &t;
  }
  return nullptr;
}

NamedTensors clones(const NamedTensors& tensors) {
  NamedTensors out;
  for (const auto& [n, t] : tensors) out.emplace_back(n, t.detach().clone());
  return out;
}

// The fake-quantized forward in eval mode and the converted int8 model agree on real test images.
void expectConvertedMatches(const ModelArtifact& start, const Shape& shape, int qat_steps, int64_t n) {
  auto qat = makeQatModel(start, qatPass(), {});
  trainSteps(*qat, shape, qat_steps, 1e-4, 200);
  const torch::Tensor x = testImages(shape, n);
  torch::Tensor fake;
  {
    torch::NoGradGuard no_grad;
    fake = qat->forward(x);
  }
  const QuantizeResult r = convertQatModel(*qat, qatPass(), {});
  const torch::Tensor int8 = makeQuantizedModel(r.artifact)->forward(x);
  const double top1 = fake.argmax(1).eq(int8.argmax(1)).to(torch::kFloat64).mean().item<double>();
  const double max_diff = (fake - int8).abs().max().item<double>();
  const double range = (fake.max() - fake.min()).item<double>();
  const double out_scale = r.artifact.quantization["layers"].back()["output"]["scale"].get<double>();
  std::printf(
      "    fake quant vs int8: top-1 agreement %.4f, max |logit diff| %.4f = %.1f output steps "
      "(logits span %.2f), mean |diff| %.5f\n",
      top1, max_diff, max_diff / out_scale, range, (fake - int8).abs().mean().item<double>());
  EXPECT_GE(top1, 0.99);
  EXPECT_LE(max_diff, 0.03 * range);
}

TEST(Qat, FakeQuantForwardMatchesConvertedInt8Cnn) {
  expectConvertedMatches(cnn(), kMnist, 20, 1000);
}

// Depthwise convs (int8, batch norms with eps 1e-3 folded) with float layers between them: hardswish, silu,
// squeeze-excitation, layernorm2d, channel_linear, layer_scale, stochastic depth (the identity when
// converted).
TEST(Qat, FakeQuantForwardMatchesConvertedInt8MobileLayers) {
  expectConvertedMatches(trainedForQat(test::mobileLayers(), kMnist, 30), kMnist, 10, 500);
}

TEST(Qat, FakeQuantForwardMatchesConvertedInt8Resnet) {
  // Folded batch norms, int8 adds (add_relu) and a strided 1x1 shortcut.
  expectConvertedMatches(trainedForQat(presetLayers("resnet", kHalf, 10), kHalf, 20), kHalf, 10, 500);
}

TEST(Qat, TrainingMovesWeightsAndObserversWithStraightThroughGradients) {
  auto qat = makeQatModel(cnn(), qatPass(), {});
  const NamedTensors before = clones(qat->namedParameters());
  const NamedTensors observers_before = clones(qat->namedBuffers());

  // One backward through every fake quant: each parameter gets a gradient (STE), close in direction to the
  // float model's gradient at the same weights.
  qat->train(true);
  const torch::Tensor x = fashion().train.x.slice(0, 0, 64);
  const torch::Tensor y = fashion().train.y.slice(0, 0, 64);
  torch::nn::functional::cross_entropy(qat->forward(x), y).backward();
  auto reference = buildFloatModel(foldBatchNorms(cnn()));
  reference->train(false);
  qat->train(false);  // dropout off for both so the gradients compare
  for (auto& p : qat->parameters()) p.mutable_grad() = torch::Tensor();
  torch::nn::functional::cross_entropy(qat->forward(x), y).backward();
  torch::nn::functional::cross_entropy(reference->forward(x), y).backward();
  const NamedTensors ref_params = reference->namedParameters();
  for (const auto& [name, p] : qat->namedParameters()) {
    ASSERT_TRUE(p.grad().defined()) << name;
    const torch::Tensor g = p.grad().reshape({-1});
    const torch::Tensor gf = findQatTensor(ref_params, name)->grad().reshape({-1});
    EXPECT_GT(g.abs().sum().item<double>(), 0) << name;
    const double cosine = (g.dot(gf) / (g.norm() * gf.norm())).item<double>();
    EXPECT_GT(cosine, 0.9) << name;
  }

  trainSteps(*qat, kMnist, 30, 1e-4, 100);
  for (const auto& [name, p] : qat->namedParameters()) {
    EXPECT_FALSE(torch::equal(p, *findQatTensor(before, name))) << name << " did not train";
  }
  const NamedTensors observers = qat->namedBuffers();
  int changed = 0;
  for (const auto& [name, t] : observers) {
    ASSERT_TRUE(std::isfinite(t.item<float>())) << name;
    changed += torch::equal(t, *findQatTensor(observers_before, name)) ? 0 : 1;
  }
  EXPECT_EQ(changed, static_cast<int>(observers.size()));  // every min and max moved

  // Eval mode observes nothing.
  {
    torch::NoGradGuard no_grad;
    qat->forward(testImages(kMnist, 100));
  }
  for (const auto& [name, t] : qat->namedBuffers())
    EXPECT_TRUE(torch::equal(t, *findQatTensor(observers, name))) << name;
}

TEST(Qat, ConvertGivesAnInt8ArtifactInQatMode) {
  auto qat = makeQatModel(cnn(), qatPass(), {});
  EXPECT_THROW(convertQatModel(*qat, qatPass(), {}), UserError);  // nothing observed yet
  trainSteps(*qat, kMnist, 5, 1e-4);
  std::vector<std::string> log;
  const QuantizeResult r = convertQatModel(*qat, qatPass(), [&](const std::string& l) { log.push_back(l); });
  const json& q = r.artifact.quantization;
  EXPECT_EQ(q["mode"], "qat");
  EXPECT_EQ(q["observer"], "moving_average_minmax");
  EXPECT_EQ(q["engine"], currentQuantizedEngine());
  EXPECT_TRUE(q.contains("input"));
  EXPECT_EQ(q["layers"][0]["kernel"], "int8");
  EXPECT_EQ(q["layers"][0]["relu"], true);
  EXPECT_EQ(q["layers"][1]["kernel"], "fused");
  EXPECT_TRUE(r.float_layers.empty());
  for (const std::string p : {"layers.0", "layers.3", "layers.7", "layers.10"}) {
    const torch::Tensor* w = findQatTensor(r.artifact.quantized, p + ".weight");
    ASSERT_NE(w, nullptr) << p;
    EXPECT_EQ(w->scalar_type(), torch::kChar) << p;
    ASSERT_NE(findQatTensor(r.artifact.quantized, p + ".weight.scale"), nullptr) << p;
    EXPECT_EQ(findQatTensor(r.artifact.weights, p + ".weight"), nullptr) << p;
  }
  EXPECT_TRUE(r.artifact.weights.empty());
  // The int8 weights are the trainedForQat ones: dequantized, within half a step of the QAT model's weights.
  const torch::Tensor trained_w = *findQatTensor(qat->namedParameters(), "layers.3.weight");
  const torch::Tensor values = findQatTensor(r.artifact.quantized, "layers.3.weight")->to(torch::kFloat32);
  const torch::Tensor scales = *findQatTensor(r.artifact.quantized, "layers.3.weight.scale");
  EXPECT_LE((values * scales.view({-1, 1, 1, 1}) - trained_w).abs().max().item<float>(),
            scales.max().item<float>() / 2 + 1e-6);
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log.back().find("int8 (qat)"), std::string::npos) << log.back();

  // It survives the trip through disk and runs through makeInferenceModel.
  ModelArtifact a = r.artifact;
  a.name = "01-quantize";
  const test::TemporaryFolder temporary("qat-test");
  const std::string folder = temporary.file("01-quantize");
  saveArtifact(a, folder);
  const ModelArtifact loaded = loadArtifact(folder);
  const torch::Tensor x = testImages(kMnist, 32);
  EXPECT_TRUE(
      torch::equal(makeQuantizedModel(r.artifact)->forward(x), makeInferenceModel(loaded)->forward(x)));
}

TEST(Qat, ObserverBuffersResumeBitIdentically) {
  auto a = makeQatModel(cnn(), qatPass(), {});
  trainSteps(*a, kMnist, 8, 1e-4);
  const NamedTensors buffers = a->namedBuffers();
  for (const std::string name :
       {"quant.activation_post_process.min_val", "layers.0.activation_post_process.max_val",
        "layers.10.activation_post_process.min_val"}) {
    EXPECT_NE(findQatTensor(buffers, name), nullptr) << name;
  }
  EXPECT_EQ(findQatTensor(buffers, "layers.1.activation_post_process.min_val"),
            nullptr);  // the fused relu has none

  // A fresh model given a's parameters and buffers by name, as a checkpoint restores them.
  auto b = makeQatModel(cnn(), qatPass(), {});
  b->train(false);  // a new model trains (observes) by default, as torch modules do
  {
    torch::NoGradGuard no_grad;
    for (auto& [name, t] : b->namedParameters()) t.copy_(*findQatTensor(a->namedParameters(), name));
    for (auto& [name, t] : b->namedBuffers()) t.copy_(*findQatTensor(buffers, name));
  }
  const torch::Tensor x = testImages(kMnist, 200);
  {
    torch::NoGradGuard no_grad;
    EXPECT_TRUE(torch::equal(a->forward(x), b->forward(x)));
  }
  // Training on continues alike: the same steps give the same weights, observers and outputs.
  torch::manual_seed(5);
  trainSteps(*a, kMnist, 3, 1e-4, 50);
  torch::manual_seed(5);
  trainSteps(*b, kMnist, 3, 1e-4, 50);
  const NamedTensors after = a->namedBuffers();
  for (const auto& [name, t] : b->namedBuffers())
    EXPECT_TRUE(torch::equal(t, *findQatTensor(after, name))) << name;
  {
    torch::NoGradGuard no_grad;
    EXPECT_TRUE(torch::equal(a->forward(x), b->forward(x)));
  }

  // save / load carry the same.
  const test::TemporaryFolder temporary("qat-test");
  const std::string file = temporary.file("qat.pt");
  a->save(file);
  auto c = makeQatModel(cnn(), qatPass(), {});
  c->load(file);
  c->train(false);
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(torch::equal(a->forward(x), c->forward(x)));
}

TEST(Qat, Int8AccuracyAtLeastStaticPtq) {
  const int64_t n = 1000;
  const torch::Tensor x = testImages(kMnist, n);
  const double float_acc = accuracy(makeInferenceModel(cnn())->forward(x), n);

  CompressPassConfig ptq;
  ptq.type = PassType::Quantize;
  ptq.mode = QuantizeMode::Static;
  ptq.observer = ObserverKind::Histogram;
  ptq.calibration_batches = 4;
  auto next = std::make_shared<int>(0);
  auto calibration = [next]() -> std::optional<torch::Tensor> {
    if (*next >= 4) return std::nullopt;
    const int64_t from = 2048 + 64 * (*next)++;
    return fashion().train.x.slice(0, from, from + 64);
  };
  const QuantizeResult static_r = quantizeArtifact(cnn(), ptq, calibration, {});
  const double ptq_acc = accuracy(makeQuantizedModel(static_r.artifact)->forward(x), n);

  auto qat = makeQatModel(cnn(), qatPass(), {});
  const auto t0 = std::chrono::steady_clock::now();
  trainSteps(*qat, kMnist, 100, 1e-4, 40);  // on from where the float training stopped
  std::printf("    100 QAT steps: %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  const QuantizeResult qat_r = convertQatModel(*qat, qatPass(), {});
  const double qat_acc = accuracy(makeQuantizedModel(qat_r.artifact)->forward(x), n);
  std::printf(
      "    test accuracy on %lld images: float %.4f, static PTQ int8 %.4f, QAT (100 steps) int8 %.4f\n",
      static_cast<long long>(n), float_acc, ptq_acc, qat_acc);
  EXPECT_GE(qat_acc, ptq_acc - 0.005);
}

}  // namespace
}  // namespace wb
