"""SentencePiece's own Python binding (Debian's python3-sentencepiece, the same library version the workbench
loads) makes the ids our SentencePiece tokenizer is compared with.

usage: sentencepiece_reference.py train OUT_DIR
         the corpus (coreutils' messages in five languages, read from Debian's gettext catalogs) as
         OUT_DIR/corpus.txt, one text a line, half of it also as OUT_DIR/texts.json; unigram.model and
         bpe.model trained on the other half; OUT_DIR/cases.jsonl: each model's ids and pieces for each text
       sentencepiece_reference.py encode MODEL TEXTS_JSON OUT_JSONL
         the texts encoded with MODEL (one the workbench trained)
"""
import gettext
import json
import os
import sys

import sentencepiece

LANGUAGES = ["de", "fr", "es", "pl", "ru", "ja", "zh_CN"]


def corpus():
    texts = []
    for language in LANGUAGES:
        path = f"/usr/share/locale/{language}/LC_MESSAGES/coreutils.mo"
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            catalog = gettext.GNUTranslations(f)
        for msgid, msgstr in sorted(catalog._catalog.items(), key=lambda kv: str(kv[0])):
            if msgid:
                texts.append(msgstr.replace("\n", " ").strip())
    if not texts:
        sys.exit("no coreutils.mo catalogs under /usr/share/locale")
    return [t for t in texts if t]


def encode(model_file, name, texts):
    processor = sentencepiece.SentencePieceProcessor(model_file=model_file)
    return [{"tokenizer": name, "text": t, "ids": processor.encode(t), "tokens": processor.encode(t, out_type=str)}
            for t in texts]


def write_cases(path, cases):
    with open(path, "w", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")


def train(out_dir):
    texts = corpus()
    seen, unseen = texts[::2], texts[1::2]
    with open(os.path.join(out_dir, "corpus.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(seen) + "\n")
    sample = unseen[::3] + ["", " leading and  double  spaces ", "ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３", "e\u0301t\u00e9", "😀 emoji"]
    with open(os.path.join(out_dir, "texts.json"), "w", encoding="utf-8") as f:
        json.dump(sample, f, ensure_ascii=False)
    cases = []
    for model_type in ("unigram", "bpe"):
        prefix = os.path.join(out_dir, model_type)
        sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(seen), model_prefix=prefix, vocab_size=2000,
                                                 model_type=model_type, minloglevel=2)
        cases += encode(prefix + ".model", model_type, sample)
    write_cases(os.path.join(out_dir, "cases.jsonl"), cases)
    print(f"{len(cases)} encodings of {len(sample)} texts")


if __name__ == "__main__":
    if sys.argv[1] == "train":
        train(sys.argv[2])
    else:
        with open(sys.argv[3], encoding="utf-8") as f:
            write_cases(sys.argv[4], encode(sys.argv[2], "ours", json.load(f)))
