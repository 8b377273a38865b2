#include "model/huggingface/distilbert_classifier.h"

#include <string>

#include "model/huggingface/encoder_attention.h"
#include "model/huggingface/named_modules.h"

namespace wb {
namespace {

// transformers hard-codes DistilBERT's LayerNorm epsilon (it is not in config.json).
constexpr double kDistilBertNormEps = 1e-12;

}  // namespace

DistilBertClassifierImpl::DistilBertClassifierImpl(const DistilBertConfig& config) : m_config(config) {
  using hf::Holder, hf::holder, hf::linear;
  const DistilBertConfig& c = m_config;
  Holder distilbert = holder(*this, "distilbert");
  Holder embeddings = holder(*distilbert, "embeddings");
  m_words = hf::embedding(*embeddings, "word_embeddings", c.vocab_size, c.dim);
  m_positions = hf::embedding(*embeddings, "position_embeddings", c.max_position_embeddings, c.dim);
  m_embedding_norm = hf::layerNorm(*embeddings, "LayerNorm", c.dim, kDistilBertNormEps);
  Holder layers = holder(*holder(*distilbert, "transformer"), "layer");
  for (int64_t i = 0; i < c.n_layers; ++i) {
    Holder layer = holder(*layers, std::to_string(i));
    Holder attention = holder(*layer, "attention");
    Holder ffn = holder(*layer, "ffn");
    Block b;
    b.q = linear(*attention, "q_lin", c.dim, c.dim);
    b.k = linear(*attention, "k_lin", c.dim, c.dim);
    b.v = linear(*attention, "v_lin", c.dim, c.dim);
    b.out = linear(*attention, "out_lin", c.dim, c.dim);
    b.attention_norm = hf::layerNorm(*layer, "sa_layer_norm", c.dim, kDistilBertNormEps);
    b.lin1 = linear(*ffn, "lin1", c.dim, c.hidden_dim);
    b.lin2 = linear(*ffn, "lin2", c.hidden_dim, c.dim);
    b.output_norm = hf::layerNorm(*layer, "output_layer_norm", c.dim, kDistilBertNormEps);
    m_blocks.push_back(b);
  }
  m_pre_classifier = linear(*this, "pre_classifier", c.dim, c.dim);
  m_classifier = linear(*this, "classifier", c.dim, static_cast<int64_t>(c.labels.size()));
}

torch::Tensor DistilBertClassifierImpl::block(Block& b, const torch::Tensor& x, const torch::Tensor& keep) {
  const double attentionDropout = is_training() ? m_config.attention_dropout : 0.0;
  const torch::Tensor context =
      hf::encoderSelfAttention(b.q(x), b.k(x), b.v(x), m_config.n_heads, attentionDropout, keep);
  // No dropout after out_lin: transformers' DistilBERT has none there.
  const torch::Tensor attended = b.attention_norm->forward(b.out(context) + x);
  torch::Tensor hidden = b.lin1(attended);
  hidden = m_config.activation == DistilBertActivation::Gelu ? torch::gelu(hidden) : torch::relu(hidden);
  return b.output_norm->forward(torch::dropout(b.lin2(hidden), m_config.dropout, is_training()) + attended);
}

torch::Tensor DistilBertClassifierImpl::forward(const torch::Tensor& input_ids,
                                                const torch::Tensor& attention_mask,
                                                const torch::Tensor& /*token_type_ids*/) {
  const torch::Tensor keep = hf::paddingKeep(attention_mask);
  const torch::Tensor positions = torch::arange(input_ids.size(1), input_ids.options());
  torch::Tensor x = m_embedding_norm(m_words(input_ids) + m_positions(positions).unsqueeze(0));
  x = torch::dropout(x, m_config.dropout, is_training());
  for (Block& b : m_blocks) x = block(b, x, keep);
  const torch::Tensor pooled = torch::relu(m_pre_classifier(x.select(1, 0)));
  return m_classifier(torch::dropout(pooled, m_config.seq_classif_dropout, is_training()));
}

TextModelShape DistilBertClassifierImpl::shape() const {
  const DistilBertConfig& c = m_config;
  return {"distilbert", "distilbert.",  c.vocab_size, c.max_position_embeddings, 0, c.dim, c.n_layers,
          c.hidden_dim, c.pad_token_id, c.labels};
}

}  // namespace wb
