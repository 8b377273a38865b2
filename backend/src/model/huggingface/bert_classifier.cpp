#include "model/huggingface/bert_classifier.h"

#include <string>

#include "model/huggingface/encoder_attention.h"
#include "model/huggingface/named_modules.h"

namespace wb {

BertClassifierImpl::BertClassifierImpl(const BertConfig& config) : m_config(config) {
  using hf::Holder, hf::holder, hf::linear;
  const BertConfig& c = m_config;
  Holder bert = holder(*this, "bert");
  Holder embeddings = holder(*bert, "embeddings");
  m_words = embeddings->register_module("word_embeddings", torch::nn::Embedding(c.vocab_size, c.hidden_size));
  m_positions = embeddings->register_module("position_embeddings",
                                            torch::nn::Embedding(c.max_position_embeddings, c.hidden_size));
  m_token_types = embeddings->register_module("token_type_embeddings",
                                              torch::nn::Embedding(c.type_vocab_size, c.hidden_size));
  m_embedding_norm = hf::layerNorm(*embeddings, "LayerNorm", c.hidden_size, c.layer_norm_eps);
  Holder encoder = holder(*bert, "encoder");
  Holder layers = holder(*encoder, "layer");
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    Holder layer = holder(*layers, std::to_string(i));
    Holder attention = holder(*layer, "attention");
    Holder self = holder(*attention, "self");
    Holder attentionOutput = holder(*attention, "output");
    Holder intermediate = holder(*layer, "intermediate");
    Holder output = holder(*layer, "output");
    Layer l;
    l.query = linear(*self, "query", c.hidden_size, c.hidden_size);
    l.key = linear(*self, "key", c.hidden_size, c.hidden_size);
    l.value = linear(*self, "value", c.hidden_size, c.hidden_size);
    l.attention_out = linear(*attentionOutput, "dense", c.hidden_size, c.hidden_size);
    l.attention_norm = hf::layerNorm(*attentionOutput, "LayerNorm", c.hidden_size, c.layer_norm_eps);
    l.intermediate = linear(*intermediate, "dense", c.hidden_size, c.intermediate_size);
    l.output = linear(*output, "dense", c.intermediate_size, c.hidden_size);
    l.output_norm = hf::layerNorm(*output, "LayerNorm", c.hidden_size, c.layer_norm_eps);
    m_layers.push_back(l);
  }
  m_pooler = linear(*holder(*bert, "pooler"), "dense", c.hidden_size, c.hidden_size);
  m_classifier = linear(*this, "classifier", c.hidden_size, static_cast<int64_t>(c.labels.size()));
}

torch::Tensor BertClassifierImpl::embed(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids) {
  const torch::Tensor positions = torch::arange(input_ids.size(1), input_ids.options());
  torch::Tensor x = m_words(input_ids) + m_token_types(token_type_ids) + m_positions(positions).unsqueeze(0);
  return torch::dropout(m_embedding_norm(x), m_config.hidden_dropout_prob, is_training());
}

torch::Tensor BertClassifierImpl::encodeLayer(Layer& l, const torch::Tensor& x, const torch::Tensor& keep) {
  const double attentionDropout = is_training() ? m_config.attention_probs_dropout_prob : 0.0;
  const torch::Tensor context = hf::encoderSelfAttention(
      l.query(x), l.key(x), l.value(x), m_config.num_attention_heads, attentionDropout, keep);
  const double dropout = m_config.hidden_dropout_prob;
  const torch::Tensor attended =
      l.attention_norm->forward(torch::dropout(l.attention_out(context), dropout, is_training()) + x);
  const torch::Tensor hidden = torch::gelu(l.intermediate(attended));  // exact (erf) GELU: BERT's "gelu"
  return l.output_norm->forward(torch::dropout(l.output(hidden), dropout, is_training()) + attended);
}

torch::Tensor BertClassifierImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                          const torch::Tensor& token_type_ids) {
  // [B, 1, 1, L]: every query may attend to the tokens, none to the padding.
  const torch::Tensor keep = hf::paddingKeep(attention_mask);
  torch::Tensor x = embed(input_ids, token_type_ids);
  for (Layer& layer : m_layers) x = encodeLayer(layer, x, keep);
  const torch::Tensor pooled = torch::tanh(m_pooler(x.select(1, 0)));
  const double dropout = m_config.classifier_dropout.value_or(m_config.hidden_dropout_prob);
  return m_classifier(torch::dropout(pooled, dropout, is_training()));
}

TextModelShape BertClassifierImpl::shape() const {
  const BertConfig& c = m_config;
  return {"bert",
          "bert.",
          c.vocab_size,
          c.max_position_embeddings,
          c.type_vocab_size,
          c.hidden_size,
          c.num_hidden_layers,
          c.intermediate_size,
          c.pad_token_id,
          c.labels};
}

}  // namespace wb
