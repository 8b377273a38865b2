#pragma once
// Vision-transformer layers. An image becomes tokens [N, D] (patch_embed), gains a class token and positions
// (position_embedding), passes pre-norm encoder blocks (encoder_block) and is pooled back to [D]
// (token_pool). Submodule and parameter names follow timm's ViT (proj, cls_token, pos_embed, norm1, attn,
// norm2, fc1, fc2) so weights map onto the Python models people already know.

#include <vector>

#include "model/layer.h"
#include "model/layer_params.h"
#include "model/layer_registry.h"
#include "model/layers/step_dropout.h"

namespace wb {

void addTransformerLayerTypes(std::vector<LayerType>& types);

// [C, H, W] -> [(H/p)*(W/p), dim]: a conv with kernel = stride = patch_size, its output read as one token per
// patch.
class PatchEmbedLayer : public Layer {
 public:
  PatchEmbedLayer(int64_t patchSize, int64_t dim) : m_patchSize(patchSize), m_dim(dim) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "patch_embed"; }
  nlohmann::json toJson() const override;
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape& input) const override;
  int64_t flopsPerSample(const Shape& input) const override;
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  int64_t patchSize() const { return m_patchSize; }
  int64_t dim() const { return m_dim; }

 private:
  int64_t m_patchSize;
  int64_t m_dim;
};

// [N, D] -> [N + 1, D] with a learned class token in front (or [N, D] without one), plus a learned position
// embedding per token.
class PositionEmbeddingLayer : public Layer {
 public:
  explicit PositionEmbeddingLayer(bool clsToken) : m_clsToken(clsToken) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "position_embedding"; }
  nlohmann::json toJson() const override { return {{"type", type()}, {"cls_token", m_clsToken}}; }
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape& input) const override;
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  bool clsToken() const { return m_clsToken; }

 private:
  bool m_clsToken;
};

// Pre-norm transformer encoder block on tokens [N, D]: x + MHA(LN(x)), then x + MLP(LN(x)) with a GELU MLP of
// hidden size int(D * mlp_ratio). `dropout` applies to the attention weights and after each MLP linear. `eps`
// is both layer norms' (nn.LayerNorm's 1e-5 by default; torchvision's ViT uses 1e-6).
class EncoderBlockLayer : public Layer {
 public:
  static constexpr double kDefaultEps = 1e-5;
  EncoderBlockLayer(int64_t heads, double mlpRatio, double dropout, double eps = kDefaultEps)
      : m_heads(heads), m_mlpRatio(mlpRatio), m_dropout(dropout), m_eps(eps) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "encoder_block"; }
  nlohmann::json toJson() const override;
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape& input) const override;
  // Q/K/V and output projections, the two attention matmuls (N x N x D each) and the two MLP linears.
  int64_t flopsPerSample(const Shape& input) const override;
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  int64_t heads() const { return m_heads; }
  double mlpRatio() const { return m_mlpRatio; }
  double dropout() const { return m_dropout; }
  double eps() const { return m_eps; }
  int64_t hiddenSize(int64_t dim) const;

 private:
  int64_t m_heads;
  double m_mlpRatio;
  double m_dropout;
  double m_eps;
};

// [N, D] -> [D]: the first (class) token, or the mean over tokens.
class TokenPoolLayer : public Layer {
 public:
  explicit TokenPoolLayer(std::string mode) : m_mode(std::move(mode)) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "token_pool"; }
  nlohmann::json toJson() const override { return {{"type", type()}, {"mode", m_mode}}; }
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape&) const override { return 0; }
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  const std::string& mode() const { return m_mode; }

 private:
  std::string m_mode;
};

class PatchEmbedImpl : public torch::nn::Module {
 public:
  PatchEmbedImpl(int64_t inChannels, int64_t dim, int64_t patchSize);
  torch::Tensor forward(torch::Tensor x);  // [B, C, H, W] -> [B, N, D]

 private:
  torch::nn::Conv2d m_proj;
};
TORCH_MODULE(PatchEmbed);

class PositionEmbeddingImpl : public torch::nn::Module {
 public:
  PositionEmbeddingImpl(int64_t tokens, int64_t dim, bool clsToken);
  torch::Tensor forward(torch::Tensor x);  // [B, N, D] -> [B, N (+1), D]

 private:
  torch::Tensor m_clsToken;  // undefined without a class token
  torch::Tensor m_posEmbed;
};
TORCH_MODULE(PositionEmbedding);

// The attention keeps a registered torch::nn::MultiheadAttention for its parameters only
// (attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias: the names of every
// weights file and export so far); forward computes it batch-first through scaledDotProductAttention
// (model/layers/attention.h) instead of that module's forward. `tokens` (N) is only for describeAttention's
// question about the kernel.
class EncoderBlockImpl : public torch::nn::Module {
 public:
  EncoderBlockImpl(int64_t dim, int64_t heads, int64_t hidden, double dropout, int64_t tokens = 1,
                   double eps = EncoderBlockLayer::kDefaultEps);
  torch::Tensor forward(torch::Tensor x);  // [B, N, D] -> [B, N, D]
  // The attention half without its residual: normed tokens [B, N, D] -> [B, N, D].
  torch::Tensor attention(const torch::Tensor& normed);

  int64_t dim() const { return m_attn->options.embed_dim(); }
  int64_t heads() const { return m_attn->options.num_heads(); }
  int64_t tokens() const { return m_tokens; }
  double attentionDropout() const { return m_attn->options.dropout(); }

 private:
  int64_t m_tokens;
  torch::nn::LayerNorm m_norm1;
  torch::nn::MultiheadAttention m_attn;
  torch::nn::LayerNorm m_norm2;
  torch::nn::Linear m_fc1;
  torch::nn::Linear m_fc2;
  StepDropout m_dropout;
};
TORCH_MODULE(EncoderBlock);

class TokenPoolImpl : public torch::nn::Module {
 public:
  explicit TokenPoolImpl(std::string mode) : m_mode(std::move(mode)) {}
  torch::Tensor forward(torch::Tensor x);  // [B, N, D] -> [B, D]

 private:
  std::string m_mode;
};
TORCH_MODULE(TokenPool);

}  // namespace wb
