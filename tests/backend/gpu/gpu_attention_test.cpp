// The encoder block's attention through scaled_dot_product_attention on CUDA (model/layers/attention.h)
// against torch::nn::MultiheadAttention's forward on the same parameters, the block's computation before
// SDPA: fp32 within fp32 tolerance, bf16 against the fp32 reference within bf16's; outputs and gradients.
// Prints the kernel SDPA picks (flash / memory-efficient / cuDNN / math) and expects a fused one in bf16.
// Dropout draws from the device's generator, which seedStepGenerator seeds. Skips without a GPU (test_gpu).

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <iostream>
#include <map>
#include <string>

#include "model/layers/attention.h"
#include "model/layers/transformer_layers.h"
#include "model/step_generator.h"
#include "torch_compat.h"

namespace wb {
namespace {

// ViT-like head size (64) and an odd token count (a class token plus 8x8 patches).
constexpr int64_t kDim = 128;
constexpr int64_t kHeads = 2;
constexpr int64_t kTokens = 65;
constexpr int64_t kBatch = 4;

const torch::Device kCuda("cuda:0");

torch::nn::Module& child(torch::nn::Module& module, const std::string& name) {
  return *module.named_children()[name];
}

// The block's forward before SDPA ([N, B, D] through MultiheadAttention), on the block's own submodules.
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

EncoderBlock randomBlock(torch::ScalarType dtype, double dropout = 0.0) {
  torch::manual_seed(3);
  EncoderBlock block(kDim, kHeads, 2 * kDim, dropout, kTokens);
  {
    torch::NoGradGuard noGrad;
    for (auto& parameter : block->parameters()) parameter.normal_(0.0, 0.1);
  }
  block->to(kCuda, dtype);
  block->train();
  return block;
}

// The output, the input's gradient and every parameter's, in fp32 on the CPU.
std::map<std::string, torch::Tensor> outputsAndGradients(EncoderBlock& block, torch::ScalarType dtype,
                                                         bool reference) {
  torch::manual_seed(11);
  const torch::Tensor x = torch::randn({kBatch, kTokens, kDim}).to(kCuda, dtype).requires_grad_();
  const torch::Tensor weights = torch::randn({kBatch, kTokens, kDim}).to(kCuda, dtype);
  block->zero_grad();
  const torch::Tensor out = reference ? referenceForward(block, x) : block->forward(x);
  (out * weights).sum().backward();
  std::map<std::string, torch::Tensor> result = {{"output", out.detach().cpu().to(torch::kFloat)},
                                                 {"input", x.grad().cpu().to(torch::kFloat)}};
  for (const auto& item : block->named_parameters()) {
    result[item.key()] = item.value().grad().cpu().to(torch::kFloat);
  }
  return result;
}

// The largest difference relative to the largest magnitude of the reference.
double relativeError(const torch::Tensor& actual, const torch::Tensor& expected) {
  return (actual - expected).abs().max().item<double>() / (expected.abs().max().item<double>() + 1e-12);
}

std::string kernelFor(torch::ScalarType dtype) {
  const torch::Tensor probe =
      torch::empty({kBatch, kHeads, kTokens, kDim / kHeads},
                   torch::TensorOptions().device(kCuda).dtype(dtype).requires_grad(true));
  return attentionKernel(probe, probe, probe, 0.0);
}

void expectMatchesReference(torch::ScalarType dtype, double tolerance) {
  EncoderBlock block = randomBlock(dtype);
  EncoderBlock reference = randomBlock(torch::kFloat);  // the same parameters, fp32
  const auto actual = outputsAndGradients(block, dtype, /*reference=*/false);
  const auto expected = outputsAndGradients(reference, torch::kFloat, /*reference=*/true);
  ASSERT_EQ(actual.size(), expected.size());
  for (const auto& [name, tensor] : expected) {
    const double error = relativeError(actual.at(name), tensor);
    EXPECT_LE(error, tolerance) << name << " (" << c10::toString(dtype) << ")";
  }
}

TEST(GpuAttention, Fp32MatchesMultiheadAttention) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  std::cout << "fp32 attention kernel: " << kernelFor(torch::kFloat) << "\n";
  expectMatchesReference(torch::kFloat, 1e-4);
}

TEST(GpuAttention, Bf16MatchesTheFp32Reference) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const std::string kernel = kernelFor(torch::kBFloat16);
  std::cout << "bf16 attention kernel: " << kernel << "\n";
#if WB_TORCH_AT_LEAST(2, 0)
  EXPECT_NE(kernel, "math") << "no fused SDPA kernel for bf16 with head_dim 64 on this GPU";
#endif
  expectMatchesReference(torch::kBFloat16, 3e-2);
}

TEST(GpuAttention, DropoutDrawsFromTheSeededDeviceGenerator) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  EncoderBlock block = randomBlock(torch::kFloat, 0.5);
  const torch::Tensor x = torch::randn({kBatch, kTokens, kDim}).to(kCuda);
  const torch::Tensor normed = torch::layer_norm(x, {kDim});
  seedStepGenerator(kCuda, 21);
  const torch::Tensor first = block->attention(normed).cpu();
  seedStepGenerator(kCuda, 21);
  EXPECT_TRUE(torch::equal(block->attention(normed).cpu(), first));
  seedStepGenerator(kCuda, 22);
  EXPECT_FALSE(torch::equal(block->attention(normed).cpu(), first));
  block->eval();
  EXPECT_FALSE(torch::allclose(block->attention(normed).cpu(), first));
  setStepGenerator(std::nullopt);
}

}  // namespace
}  // namespace wb
