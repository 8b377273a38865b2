#include "model/layers/transformer_layers.h"

#include <algorithm>
#include <cmath>

#include "model/layers/attention.h"
#include "model/shape_rules.h"

namespace wb {

void addTransformerLayerTypes(std::vector<LayerType>& types) {
  types.push_back({"patch_embed", &PatchEmbedLayer::parse});
  types.push_back({"position_embedding", &PositionEmbeddingLayer::parse});
  types.push_back({"encoder_block", &EncoderBlockLayer::parse});
  types.push_back({"token_pool", &TokenPoolLayer::parse});
}

// patch_embed
// -------------------------------------------------------------------------------------------------

LayerPtr PatchEmbedLayer::parse(LayerParams& params) {
  const int64_t patchSize = params.integer("patch_size", std::nullopt, 1);
  const int64_t dim = params.integer("dim", std::nullopt, 1);
  if (!params.finish()) return nullptr;
  return std::make_shared<PatchEmbedLayer>(patchSize, dim);
}

nlohmann::json PatchEmbedLayer::toJson() const {
  return {{"type", type()}, {"patch_size", m_patchSize}, {"dim", m_dim}};
}

Shape PatchEmbedLayer::outputShape(const Shape& input) const {
  requireImage(input);
  if (input[1] % m_patchSize != 0 || input[2] % m_patchSize != 0) {
    std::string divisors;
    for (int64_t p = 2; p <= std::min(input[1], input[2]); ++p) {
      if (input[1] % p == 0 && input[2] % p == 0)
        divisors += (divisors.empty() ? "" : ", ") + std::to_string(p);
    }
    throw ShapeError("has patch_size " + std::to_string(m_patchSize) + ", which does not divide the " +
                     std::to_string(input[1]) + "x" + std::to_string(input[2]) +
                     " image: choose a patch_size that divides both height and width" +
                     (divisors.empty() ? std::string(" (only 1 does)") : " (" + divisors + ")"));
  }
  return {(input[1] / m_patchSize) * (input[2] / m_patchSize), m_dim};
}

int64_t PatchEmbedLayer::parameterCount(const Shape& input) const {
  return m_dim * input[0] * m_patchSize * m_patchSize + m_dim;
}

int64_t PatchEmbedLayer::flopsPerSample(const Shape& input) const {
  return 2 * outputShape(input)[0] * m_dim * input[0] * m_patchSize * m_patchSize;
}

torch::nn::AnyModule PatchEmbedLayer::instantiate(const Shape& input) const {
  return torch::nn::AnyModule(PatchEmbed(input[0], m_dim, m_patchSize));
}

PatchEmbedImpl::PatchEmbedImpl(int64_t inChannels, int64_t dim, int64_t patchSize)
    : m_proj(register_module(
          "proj",
          torch::nn::Conv2d(torch::nn::Conv2dOptions(inChannels, dim, patchSize).stride(patchSize)))) {}

torch::Tensor PatchEmbedImpl::forward(torch::Tensor x) {
  return m_proj(x).flatten(2).transpose(1, 2);
}

// position_embedding
// ------------------------------------------------------------------------------------------

LayerPtr PositionEmbeddingLayer::parse(LayerParams& params) {
  const bool clsToken = params.flag("cls_token", true);
  if (!params.finish()) return nullptr;
  return std::make_shared<PositionEmbeddingLayer>(clsToken);
}

Shape PositionEmbeddingLayer::outputShape(const Shape& input) const {
  requireTokens(input);
  return {input[0] + (m_clsToken ? 1 : 0), input[1]};
}

int64_t PositionEmbeddingLayer::parameterCount(const Shape& input) const {
  const int64_t tokens = input[0] + (m_clsToken ? 1 : 0);
  return (m_clsToken ? input[1] : 0) + tokens * input[1];
}

torch::nn::AnyModule PositionEmbeddingLayer::instantiate(const Shape& input) const {
  return torch::nn::AnyModule(PositionEmbedding(input[0], input[1], m_clsToken));
}

PositionEmbeddingImpl::PositionEmbeddingImpl(int64_t tokens, int64_t dim, bool clsToken) {
  // ViT draws both from a normal with std 0.02 (timm truncates at +-2, which a std of 0.02 never reaches).
  torch::NoGradGuard noGrad;
  if (clsToken) {
    m_clsToken = register_parameter("cls_token", torch::empty({1, 1, dim}));
    torch::nn::init::normal_(m_clsToken, 0.0, 0.02);
  }
  m_posEmbed = register_parameter("pos_embed", torch::empty({1, tokens + (clsToken ? 1 : 0), dim}));
  torch::nn::init::normal_(m_posEmbed, 0.0, 0.02);
}

torch::Tensor PositionEmbeddingImpl::forward(torch::Tensor x) {
  if (m_clsToken.defined()) x = torch::cat({m_clsToken.expand({x.size(0), -1, -1}), x}, 1);
  return x + m_posEmbed;
}

// encoder_block
// -----------------------------------------------------------------------------------------------

LayerPtr EncoderBlockLayer::parse(LayerParams& params) {
  const int64_t heads = params.integer("heads", std::nullopt, 1);
  const double mlpRatio = params.number("mlp_ratio", 4.0, 1.0 / 64, 64.0);
  const double dropout = params.number("dropout", 0.0, 0.0, 1.0);
  const double eps = params.number("eps", kDefaultEps, 0.0, 1.0);
  if (!params.finish()) return nullptr;
  return std::make_shared<EncoderBlockLayer>(heads, mlpRatio, dropout, eps);
}

nlohmann::json EncoderBlockLayer::toJson() const {
  // A whole ratio is written as an integer so that {"mlp_ratio": 4} reads back unchanged.
  const nlohmann::json ratio = m_mlpRatio == std::floor(m_mlpRatio)
                                   ? nlohmann::json(static_cast<int64_t>(m_mlpRatio))
                                   : nlohmann::json(m_mlpRatio);
  return {{"type", type()}, {"heads", m_heads}, {"mlp_ratio", ratio}, {"dropout", m_dropout}, {"eps", m_eps}};
}

int64_t EncoderBlockLayer::hiddenSize(int64_t dim) const {
  return std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(dim) * m_mlpRatio));
}

Shape EncoderBlockLayer::outputShape(const Shape& input) const {
  requireTokens(input);
  if (input[1] % m_heads != 0) {
    throw ShapeError("has " + std::to_string(m_heads) + " heads, which do not divide the token dim " +
                     std::to_string(input[1]) + ": choose heads that divide " + std::to_string(input[1]));
  }
  return input;
}

int64_t EncoderBlockLayer::parameterCount(const Shape& input) const {
  const int64_t d = input[1];
  const int64_t hidden = hiddenSize(d);
  const int64_t norms = 2 * (2 * d);
  const int64_t attention = (3 * d * d + 3 * d) + (d * d + d);  // in_proj (q, k, v) and out_proj
  const int64_t mlp = (d * hidden + hidden) + (hidden * d + d);
  return norms + attention + mlp;
}

int64_t EncoderBlockLayer::flopsPerSample(const Shape& input) const {
  const int64_t n = input[0];
  const int64_t d = input[1];
  const int64_t hidden = hiddenSize(d);
  const int64_t projections = 2 * n * d * (3 * d) + 2 * n * d * d;
  const int64_t attention = 2 * n * n * d /* Q K^T over all heads */ + 2 * n * n * d /* weights x V */;
  const int64_t mlp = 2 * n * d * hidden + 2 * n * hidden * d;
  return projections + attention + mlp;
}

torch::nn::AnyModule EncoderBlockLayer::instantiate(const Shape& input) const {
  return torch::nn::AnyModule(
      EncoderBlock(input[1], m_heads, hiddenSize(input[1]), m_dropout, input[0], m_eps));
}

EncoderBlockImpl::EncoderBlockImpl(int64_t dim, int64_t heads, int64_t hidden, double dropout, int64_t tokens,
                                   double eps)
    : m_tokens(tokens),
      m_norm1(register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim}).eps(eps)))),
      m_attn(register_module("attn", torch::nn::MultiheadAttention(
                                         torch::nn::MultiheadAttentionOptions(dim, heads).dropout(dropout)))),
      m_norm2(register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim}).eps(eps)))),
      m_fc1(register_module("fc1", torch::nn::Linear(dim, hidden))),
      m_fc2(register_module("fc2", torch::nn::Linear(hidden, dim))),
      m_dropout(register_module("dropout", StepDropout(dropout))) {}

torch::Tensor EncoderBlockImpl::attention(const torch::Tensor& normed) {
  // torch::nn::MultiheadAttention's computation on its own parameters, batch-first (its forward takes
  // [N, B, D] and would need two transposes): one in-projection, q, k, v as [B, heads, N, head_dim], SDPA,
  // heads merged, out-projection. Its dropout applies to the attention weights in training only.
  const int64_t batch = normed.size(0);
  const int64_t tokens = normed.size(1);
  const int64_t dim = normed.size(2);
  const torch::Tensor qkv = torch::linear(normed, m_attn->in_proj_weight, m_attn->in_proj_bias)
                                .reshape({batch, tokens, 3, heads(), dim / heads()})
                                .permute({2, 0, 3, 1, 4});
  const double dropoutP = is_training() ? attentionDropout() : 0.0;
  const torch::Tensor context = scaledDotProductAttention(qkv[0], qkv[1], qkv[2], dropoutP);
  return torch::linear(context.transpose(1, 2).reshape({batch, tokens, dim}), m_attn->out_proj->weight,
                       m_attn->out_proj->bias);
}

torch::Tensor EncoderBlockImpl::forward(torch::Tensor x) {
  x = x + attention(m_norm1(x));
  return x + m_dropout(m_fc2(m_dropout(torch::gelu(m_fc1(m_norm2(x))))));
}

// token_pool
// --------------------------------------------------------------------------------------------------

LayerPtr TokenPoolLayer::parse(LayerParams& params) {
  const std::string mode = params.choice("mode", "cls", {"cls", "mean"});
  if (!params.finish()) return nullptr;
  return std::make_shared<TokenPoolLayer>(mode);
}

Shape TokenPoolLayer::outputShape(const Shape& input) const {
  requireTokens(input);
  return {input[1]};
}

torch::nn::AnyModule TokenPoolLayer::instantiate(const Shape&) const {
  return torch::nn::AnyModule(TokenPool(m_mode));
}

torch::Tensor TokenPoolImpl::forward(torch::Tensor x) {
  return m_mode == "cls" ? x.select(1, 0) : x.mean(1);
}

}  // namespace wb
