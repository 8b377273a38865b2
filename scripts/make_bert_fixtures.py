#!/usr/bin/env python3
"""Writes tests/fixtures/huggingface/tiny-bert/: a BERT sequence classifier as transformers writes its folder,
small and random, and what transformers computes with it, for the C++ BERT (backend/src/model/huggingface/).

Re-run from the repository root with a Python that has torch and transformers (pinned below), e.g.
    .venv/bin/pip install transformers==5.25.0 && .venv/bin/python scripts/make_bert_fixtures.py
Writes:
  tiny-bert/config.json, model.safetensors   BertForSequenceClassification.save_pretrained: 2 layers, hidden 32,
                                             4 heads, 3 labels, vocabulary 99, seeded
  tiny-bert/expected.json                    input_ids, attention_mask (the second row padded), token_type_ids
                                             (a pair in the first row) and transformers' logits for them, in
                                             eval mode, with its default attention (SDPA) and with "eager"
"""
import json
import os

import torch
import transformers

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "huggingface", "tiny-bert")


def main():
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=37, max_position_embeddings=64, type_vocab_size=2,
                                     num_labels=3, hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1)
    model = transformers.BertForSequenceClassification(config).eval()
    os.makedirs(OUT, exist_ok=True)
    model.save_pretrained(OUT, safe_serialization=True)
    input_ids = torch.tensor([[2, 17, 33, 45, 3, 60, 71, 3], [2, 12, 98, 3, 0, 0, 0, 0], [2, 5, 6, 7, 8, 9, 10, 3]])
    attention_mask = (input_ids != 0).long()
    token_type_ids = torch.tensor([[0, 0, 0, 0, 0, 1, 1, 1], [0] * 8, [0] * 8])
    expected = {"transformers": transformers.__version__, "torch": torch.__version__,
                "input_ids": input_ids.tolist(), "attention_mask": attention_mask.tolist(),
                "token_type_ids": token_type_ids.tolist()}
    with torch.no_grad():
        expected["logits"] = model(input_ids=input_ids, attention_mask=attention_mask,
                                   token_type_ids=token_type_ids).logits.tolist()
        eager = transformers.BertForSequenceClassification.from_pretrained(OUT, attn_implementation="eager").eval()
        expected["logits_eager"] = eager(input_ids=input_ids, attention_mask=attention_mask,
                                         token_type_ids=token_type_ids).logits.tolist()
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
    print("wrote", OUT, sorted(model.state_dict().keys())[:6])


if __name__ == "__main__":
    main()
