#include "model/huggingface/bert_classifier.h"

#include <memory>
#include <string>

#include "model/layers/attention.h"

namespace wb {
namespace {

using Holder = std::shared_ptr<torch::nn::Module>;

// A module that only names its children ("attention", "self"), as transformers' nesting does.
Holder holder(torch::nn::Module& parent, const std::string& name) {
  return parent.register_module(name, std::make_shared<torch::nn::Module>());
}

torch::nn::LayerNorm layerNorm(torch::nn::Module& parent, const std::string& name, const BertConfig& c) {
  return parent.register_module(
      name, torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.hidden_size}).eps(c.layer_norm_eps)));
}

torch::nn::Linear linear(torch::nn::Module& parent, const std::string& name, int64_t in, int64_t out) {
  return parent.register_module(name, torch::nn::Linear(in, out));
}

}  // namespace

BertClassifierImpl::BertClassifierImpl(const BertConfig& config) : m_config(config) {
  const BertConfig& c = m_config;
  Holder bert = holder(*this, "bert");
  Holder embeddings = holder(*bert, "embeddings");
  m_words = embeddings->register_module("word_embeddings", torch::nn::Embedding(c.vocab_size, c.hidden_size));
  m_positions = embeddings->register_module("position_embeddings",
                                            torch::nn::Embedding(c.max_position_embeddings, c.hidden_size));
  m_token_types = embeddings->register_module("token_type_embeddings",
                                              torch::nn::Embedding(c.type_vocab_size, c.hidden_size));
  m_embedding_norm = layerNorm(*embeddings, "LayerNorm", c);
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
    l.attention_norm = layerNorm(*attentionOutput, "LayerNorm", c);
    l.intermediate = linear(*intermediate, "dense", c.hidden_size, c.intermediate_size);
    l.output = linear(*output, "dense", c.intermediate_size, c.hidden_size);
    l.output_norm = layerNorm(*output, "LayerNorm", c);
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
  const int64_t batch = x.size(0), tokens = x.size(1), heads = m_config.num_attention_heads;
  const int64_t headSize = m_config.hidden_size / heads;
  const auto split = [&](const torch::Tensor& t) {
    return t.view({batch, tokens, heads, headSize}).transpose(1, 2);
  };
  const double attentionDropout = is_training() ? m_config.attention_probs_dropout_prob : 0.0;
  const torch::Tensor context =
      scaledDotProductAttention(split(l.query(x)), split(l.key(x)), split(l.value(x)), attentionDropout, keep)
          .transpose(1, 2)
          .reshape({batch, tokens, m_config.hidden_size});
  const double dropout = m_config.hidden_dropout_prob;
  const torch::Tensor attended =
      l.attention_norm->forward(torch::dropout(l.attention_out(context), dropout, is_training()) + x);
  const torch::Tensor hidden = torch::gelu(l.intermediate(attended));  // exact (erf) GELU: BERT's "gelu"
  return l.output_norm->forward(torch::dropout(l.output(hidden), dropout, is_training()) + attended);
}

torch::Tensor BertClassifierImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                          const torch::Tensor& token_type_ids) {
  // [B, 1, 1, L]: every query may attend to the tokens, none to the padding.
  const torch::Tensor keep = attention_mask.to(torch::kBool).unsqueeze(1).unsqueeze(2);
  torch::Tensor x = embed(input_ids, token_type_ids);
  for (Layer& layer : m_layers) x = encodeLayer(layer, x, keep);
  const torch::Tensor pooled = torch::tanh(m_pooler(x.select(1, 0)));
  const double dropout = m_config.classifier_dropout.value_or(m_config.hidden_dropout_prob);
  return m_classifier(torch::dropout(pooled, dropout, is_training()));
}

}  // namespace wb
