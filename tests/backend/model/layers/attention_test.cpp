// The encoder block's attention through scaled_dot_product_attention (model/layers/attention.h; plain ops
// on 1.13) against what the block computed before: torch::nn::MultiheadAttention's own forward on the same
// parameters
// ([N, B, D], two transposes). Outputs and gradients within fp32 tolerance in eval and train mode (dropout
// 0), the same state-dict names, an old block's checkpoint loads, attention dropout follows the step
// generator's seeding rules, and the run log's line. On CUDA (fp32, bf16): test_gpu's gpu_attention_test.cpp.

#include "model/layers/attention.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>

#include "model/layers/step_dropout.h"
#include "model/layers/transformer_layers.h"
#include "model/model.h"
#include "model/step_generator.h"
#include "support/temporary_folder.h"
#include "torch_compat.h"

namespace wb {
namespace {

constexpr int64_t kDim = 16;
constexpr int64_t kHeads = 4;
constexpr int64_t kHidden = 24;
constexpr int64_t kTokens = 7;

torch::nn::Module& child(torch::nn::Module& module, const std::string& name) {
  return *module.named_children()[name];
}

// The block's forward as it was before SDPA, on the block's own submodules.
torch::Tensor referenceForward(EncoderBlock& block, torch::Tensor x) {
  auto* norm1 = child(*block, "norm1").as<torch::nn::LayerNorm>();
  auto* attn = child(*block, "attn").as<torch::nn::MultiheadAttention>();
  auto* norm2 = child(*block, "norm2").as<torch::nn::LayerNorm>();
  auto* fc1 = child(*block, "fc1").as<torch::nn::Linear>();
  auto* fc2 = child(*block, "fc2").as<torch::nn::Linear>();
  const torch::Tensor normed = norm1->forward(x).transpose(0, 1);
  const torch::Tensor attended =
      std::get<0>(attn->forward(normed, normed, normed, torch::Tensor(), /*need_weights=*/false));
  x = x + attended.transpose(0, 1);
  return x + fc2->forward(torch::gelu(fc1->forward(norm2->forward(x))));
}

// Random (not default-initialized) parameters, so biases and norms take part in the comparison.
EncoderBlock randomBlock(double dropout) {
  torch::manual_seed(3);
  EncoderBlock block(kDim, kHeads, kHidden, dropout, kTokens);
  torch::NoGradGuard noGrad;
  for (auto& parameter : block->parameters()) parameter.normal_(0.0, 0.3);
  return block;
}

torch::Tensor input() {
  torch::manual_seed(11);
  return torch::randn({3, kTokens, kDim});
}

void expectClose(const torch::Tensor& actual, const torch::Tensor& expected, const std::string& what) {
  EXPECT_TRUE(torch::allclose(actual, expected, /*rtol=*/1e-5, /*atol=*/1e-5))
      << what << ": largest difference " << (actual - expected).abs().max().item<double>();
}

TEST(EncoderBlockAttention, EvalMatchesMultiheadAttention) {
  EncoderBlock block = randomBlock(0.3);  // eval mode: no dropout, whatever p
  block->eval();
  const torch::Tensor x = input();
  expectClose(block->forward(x), referenceForward(block, x), "eval output");
}

TEST(EncoderBlockAttention, TrainOutputsAndGradientsMatchMultiheadAttention) {
  EncoderBlock block = randomBlock(0.0);
  block->train();
  const torch::Tensor weights = torch::randn({3, kTokens, kDim});
  auto gradients = [&](auto forward) {
    block->zero_grad();
    const torch::Tensor x = input().requires_grad_();
    const torch::Tensor out = forward(x);
    (out * weights).sum().backward();
    std::map<std::string, torch::Tensor> grads = {{"output", out.detach()}, {"input", x.grad().clone()}};
    for (const auto& item : block->named_parameters()) grads[item.key()] = item.value().grad().clone();
    return grads;
  };
  const auto actual = gradients([&](const torch::Tensor& x) { return block->forward(x); });
  const auto expected = gradients([&](const torch::Tensor& x) { return referenceForward(block, x); });
  ASSERT_EQ(actual.size(), expected.size());
  for (const auto& [name, tensor] : expected) expectClose(actual.at(name), tensor, name);
}

TEST(EncoderBlockAttention, StateDictNamesAreTheOldOnes) {
  EncoderBlock block(kDim, kHeads, kHidden, 0.1, kTokens);
  std::vector<std::string> names;
  for (const auto& item : block->named_parameters()) names.push_back(item.key());
  const std::vector<std::string> expected = {
      "norm1.weight",         "norm1.bias",         "attn.in_proj_weight", "attn.in_proj_bias",
      "attn.out_proj.weight", "attn.out_proj.bias", "norm2.weight",        "norm2.bias",
      "fc1.weight",           "fc1.bias",           "fc2.weight",          "fc2.bias"};
  EXPECT_EQ(names, expected);
  EXPECT_TRUE(block->named_buffers().is_empty());
  EXPECT_EQ(block->parameters().size(), expected.size());
}

// The block as it was before (the same submodules, torch's MultiheadAttention forward): its checkpoint is
// what every weights file written so far holds.
class OldEncoderBlockImpl : public torch::nn::Module {
 public:
  OldEncoderBlockImpl(int64_t dim, int64_t heads, int64_t hidden)
      : norm1(register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})))),
        attn(register_module("attn", torch::nn::MultiheadAttention(dim, heads))),
        norm2(register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})))),
        fc1(register_module("fc1", torch::nn::Linear(dim, hidden))),
        fc2(register_module("fc2", torch::nn::Linear(hidden, dim))),
        dropout(register_module("dropout", torch::nn::Dropout(0.0))) {}
  torch::Tensor forward(torch::Tensor x) {
    const torch::Tensor normed = norm1(x).transpose(0, 1);
    x = x + std::get<0>(attn->forward(normed, normed, normed, torch::Tensor(), false)).transpose(0, 1);
    return x + dropout(fc2(dropout(torch::gelu(fc1(norm2(x))))));
  }
  torch::nn::LayerNorm norm1;
  torch::nn::MultiheadAttention attn;
  torch::nn::LayerNorm norm2;
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
  torch::nn::Dropout dropout;
};
TORCH_MODULE(OldEncoderBlock);

TEST(EncoderBlockAttention, AnOldBlocksCheckpointLoads) {
  torch::manual_seed(5);
  OldEncoderBlock old(kDim, kHeads, kHidden);
  {
    torch::NoGradGuard noGrad;
    for (auto& parameter : old->parameters()) parameter.normal_(0.0, 0.3);
  }
  const test::TemporaryFolder folder("old-encoder-block");
  const std::string file = folder.file("old_encoder_block.pt");
  torch::save(old, file);
  EncoderBlock block(kDim, kHeads, kHidden, 0.0, kTokens);
  torch::load(block, file);
  old->eval();
  block->eval();
  const torch::Tensor x = input();
  expectClose(block->forward(x), old->forward(x), "loaded block's output");
}

class AttentionDropoutTest : public ::testing::Test {
 protected:
  void TearDown() override { setStepGenerator(std::nullopt); }
  torch::Tensor q = torch::randn({2, kHeads, kTokens, kDim / kHeads});
  torch::Tensor k = torch::randn({2, kHeads, kTokens, kDim / kHeads});
  torch::Tensor v = torch::randn({2, kHeads, kTokens, kDim / kHeads});
};

TEST_F(AttentionDropoutTest, WithoutDropoutSdpaIsThePlainOps) {
  expectClose(scaledDotProductAttention(q, k, v, 0.0), attentionInPlainOps(q, k, v, 0.0), "attention");
}

// A rank's step generator draws the attention mask as it draws every StepDropout's: torch's CPU dropout with
// the generator made explicit, so the same seed gives the same output on any thread.
TEST_F(AttentionDropoutTest, TheStepGeneratorDrawsTheMask) {
  seedStepGenerator(torch::kCPU, 7);
  const torch::Tensor first = scaledDotProductAttention(q, k, v, 0.5);
  seedStepGenerator(torch::kCPU, 7);
  EXPECT_TRUE(torch::equal(scaledDotProductAttention(q, k, v, 0.5), first));
  seedStepGenerator(torch::kCPU, 8);
  EXPECT_FALSE(torch::equal(scaledDotProductAttention(q, k, v, 0.5), first));

  torch::Generator generator = at::detail::createCPUGenerator(7);
  EXPECT_TRUE(torch::equal(attentionInPlainOps(q, k, v, 0.5, &generator), first));
  EXPECT_FALSE(torch::equal(first, attentionInPlainOps(q, k, v, 0.0)));
}

// Without a step generator (one device) the mask comes from torch's global generator: random per step,
// repeatable from torch::manual_seed.
TEST_F(AttentionDropoutTest, WithoutAStepGeneratorTorchsGeneratorDraws) {
  torch::manual_seed(1);
  const torch::Tensor first = scaledDotProductAttention(q, k, v, 0.5);
  EXPECT_FALSE(torch::equal(scaledDotProductAttention(q, k, v, 0.5), first));
  torch::manual_seed(1);
  EXPECT_TRUE(torch::equal(scaledDotProductAttention(q, k, v, 0.5), first));
}

TEST_F(AttentionDropoutTest, TheBlockDropsAttentionWeightsInTrainingOnly) {
  EncoderBlock block = randomBlock(0.5);
  const torch::Tensor x = input();
  block->eval();
  const torch::Tensor evaluated = block->forward(x);
  EXPECT_TRUE(torch::equal(block->forward(x), evaluated));
  block->train();
  seedStepGenerator(torch::kCPU, 3);
  const torch::Tensor trained = block->forward(x);
  EXPECT_FALSE(torch::allclose(trained, evaluated));
  seedStepGenerator(torch::kCPU, 3);
  EXPECT_TRUE(torch::equal(block->forward(x), trained));
}

TEST(AttentionLogLine, NamesTheKernelForModelsWithEncoderBlocks) {
  ModelConfig vit;
  vit.preset = "vit";
  const auto model = buildModel(vit, {1, 28, 28}, 10);
  const std::optional<std::string> line = describeAttention(*model, torch::kCPU, torch::kFloat);
  ASSERT_TRUE(line.has_value());
  std::cout << *line << "\n";
#if WB_TORCH_AT_LEAST(2, 0)
  EXPECT_EQ(line->rfind("attention: scaled_dot_product_attention (", 0), 0u) << *line;
#else
  EXPECT_EQ(*line, "attention: softmax(q·kᵀ/√d)·v in plain ops (math, LibTorch 1.13)");
#endif
  ModelConfig mlp;
  mlp.preset = "mlp";
  EXPECT_FALSE(describeAttention(*buildModel(mlp, {1, 28, 28}, 10), torch::kCPU, torch::kFloat).has_value());
}

}  // namespace
}  // namespace wb
