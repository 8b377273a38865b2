#!/usr/bin/env python3
"""Writes tests/fixtures/huggingface/tiny-bert/ and tiny-distilbert/: sequence classifiers as transformers writes
their folders, small and random, and what transformers computes with them, for the C++ models
(backend/src/model/huggingface/).

Re-run from the repository root with a Python that has torch and transformers (pinned below), e.g.
    .venv/bin/pip install transformers==5.25.0 && .venv/bin/python scripts/make_bert_fixtures.py
Writes, for each:
  config.json, model.safetensors   *ForSequenceClassification.save_pretrained: 2 layers, hidden 32, 4 heads,
                                   3 labels, vocabulary 99, seeded
  vocab.txt                        a BERT vocabulary of the model's 99 ids ([PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3,
                                   [MASK] 4, the letters and their ##pieces, common words): any lowercase
                                   English text tokenizes, so the folder trains on texts as a user's does
  expected.json                    input_ids, attention_mask (the second row padded), token_type_ids (a pair in
                                   the first row) and transformers' logits for them in eval mode, with its
                                   default attention (SDPA) and with "eager"; and in train mode with every
                                   dropout 0 ("train": labels, the cross-entropy loss, each parameter's gradient
                                   norm and the classifier's gradient)
"""
import json
import os

import torch
import transformers

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "huggingface")

INPUT_IDS = torch.tensor([[2, 17, 33, 45, 3, 60, 71, 3], [2, 12, 98, 3, 0, 0, 0, 0], [2, 5, 6, 7, 8, 9, 10, 3]])
TOKEN_TYPE_IDS = torch.tensor([[0, 0, 0, 0, 0, 1, 1, 1], [0] * 8, [0] * 8])
LABELS = torch.tensor([2, 0, 1])

MODELS = {
    "tiny-bert": (transformers.BertConfig, transformers.BertForSequenceClassification,
                  dict(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                       intermediate_size=37, max_position_embeddings=64, type_vocab_size=2, num_labels=3,
                       hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1),
                  dict(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, classifier_dropout=0.0)),
    "tiny-distilbert": (transformers.DistilBertConfig, transformers.DistilBertForSequenceClassification,
                        dict(vocab_size=99, dim=32, n_layers=2, n_heads=4, hidden_dim=37,
                             max_position_embeddings=64, num_labels=3),
                        dict(dropout=0.0, attention_dropout=0.0, seq_classif_dropout=0.0)),
}


WORDS = ["the", "of", "and", "to", "in", "is", "was", "it", "for", "on", "with", "as", "not", "this", "that",
         "film", "movie", "good", "bad", "great", "awful", "plot", "very", "story", "acting", "boring", "fun",
         "love", "hate", "best", "worst", "slow", "fine", "poor", "nice", "dull", "an", "a", "be", "at", "by", "or", "but"]


def vocabulary():
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + letters + ["##" + c for c in letters]
    pieces += [w for w in WORDS if w not in pieces]
    assert len(pieces) == 99, len(pieces)
    return pieces


def inputs(model_class):
    attention_mask = (INPUT_IDS != 0).long()
    kwargs = {"input_ids": INPUT_IDS, "attention_mask": attention_mask}
    if model_class is not transformers.DistilBertForSequenceClassification:  # DistilBERT has no segments
        kwargs["token_type_ids"] = TOKEN_TYPE_IDS
    return kwargs


def write(name, config_class, model_class, sizes, no_dropout):
    out = os.path.join(FIXTURES, name)
    torch.manual_seed(0)
    model = model_class(config_class(**sizes)).eval()
    os.makedirs(out, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    with open(os.path.join(out, "vocab.txt"), "w") as f:
        f.write("\n".join(vocabulary()) + "\n")
    kwargs = inputs(model_class)
    expected = {"transformers": transformers.__version__, "torch": torch.__version__,
                "input_ids": INPUT_IDS.tolist(), "attention_mask": kwargs["attention_mask"].tolist(),
                "token_type_ids": TOKEN_TYPE_IDS.tolist()}
    with torch.no_grad():
        expected["logits"] = model(**kwargs).logits.tolist()
        eager = model_class.from_pretrained(out, attn_implementation="eager").eval()
        expected["logits_eager"] = eager(**kwargs).logits.tolist()
    trained = model_class.from_pretrained(out, **no_dropout).train()
    result = trained(**kwargs, labels=LABELS)
    result.loss.backward()
    expected["train"] = {
        "dropout_zero": no_dropout, "labels": LABELS.tolist(), "logits": result.logits.tolist(),
        "loss": result.loss.item(),
        "grad_norms": {n: p.grad.norm().item() for n, p in trained.named_parameters() if p.grad is not None},
        "classifier_weight_grad": trained.classifier.weight.grad.tolist()}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
    print("wrote", out, sorted(model.state_dict().keys())[:3])


def main():
    for name, (config_class, model_class, sizes, no_dropout) in MODELS.items():
        write(name, config_class, model_class, sizes, no_dropout)


if __name__ == "__main__":
    main()
