"""Hugging Face's own tokenizers make the fixtures our C++ tokenizers are compared with, id for id.

usage: tokenizer_reference.py OUT_DIR

The corpus is what Debian ships in every language it is translated into: coreutils' messages (coreutils is
essential) and the country names of iso-codes (scripts/setup.sh installs it), read from their gettext catalogs
(.mo) with Python's own gettext reader. Nothing is downloaded. Writes into OUT_DIR:
  <name>/tokenizer.json   WordPiece tokenizers trained here on half of the corpus (so the other half meets
                          pieces and characters they never saw): uncased (BERT's lowercase + strip accents),
                          cased, cased with accents stripped, and one with BertProcessing instead of a template
  <name>/vocab.txt        the same vocabularies as BERT's vocab.txt
  gpt2/, roberta/         byte-level BPE tokenizers trained likewise: GPT-2's (no special tokens around a text,
                          <|endoftext|>) and RoBERTa's (a prefix space, <s> $A </s></s> $B </s>, <mask> taking
                          the spaces before it)
  cases.jsonl             one encoding per line: which tokenizer, text, pair, max_length, and what
                          tokenizers gives (ids, tokens, type_ids, attention_mask)
"""
import gettext
import glob
import json
import os
import sys

from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from tokenizers.implementations import BertWordPieceTokenizer

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
LANGUAGES = ["de", "fr", "es", "pl", "ru", "el", "vi", "tr", "zh_CN", "ja", "ko", "uk", "cs", "sv"]


def catalog_texts(domain):
    texts = []
    for language in LANGUAGES:
        path = f"/usr/share/locale/{language}/LC_MESSAGES/{domain}.mo"
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            catalog = gettext.GNUTranslations(f)
        for msgid, msgstr in sorted(catalog._catalog.items(), key=lambda kv: str(kv[0])):
            if isinstance(msgid, tuple):  # plural forms
                msgid = msgid[0]
            if msgid:
                texts.append(msgstr)
                if language == "de":
                    texts.append(msgid)
    return texts


def corpus():
    texts = []
    for domain in ("coreutils", "iso_3166-1"):
        found = catalog_texts(domain)
        if not found:
            sys.exit(f"no {domain}.mo catalogs under /usr/share/locale: install "
                     f"{'iso-codes' if domain != 'coreutils' else 'coreutils'} (scripts/setup.sh does)")
        texts += found
    return texts


def train(texts, lowercase, strip_accents, bert_processing):
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=lowercase, strip_accents=strip_accents)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=4000, special_tokens=SPECIALS, limit_alphabet=400)
    tokenizer.train_from_iterator(texts, trainer)
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    if bert_processing:
        tokenizer.post_processor = processors.BertProcessing(("[SEP]", sep), ("[CLS]", cls))
    else:
        tokenizer.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return tokenizer


def train_byte_level(texts, roberta):
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=roberta)
    tokenizer.decoder = decoders.ByteLevel()
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"] if roberta else ["<|endoftext|>"]
    trainer = trainers.BpeTrainer(vocab_size=4000, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(texts, trainer)
    if roberta:
        tokenizer.add_special_tokens([AddedToken("<mask>", lstrip=True)])
        tokenizer.post_processor = processors.RobertaProcessing(
            ("</s>", tokenizer.token_to_id("</s>")), ("<s>", tokenizer.token_to_id("<s>")), add_prefix_space=True)
    else:
        tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    return tokenizer


# Beside the catalogs: what the corpus lacks but users' files have (control characters, odd spaces, special
# tokens typed in the text, a word longer than WordPiece's 100 characters, combining marks, an empty text).
EXTRA = [
    "", "   ", "tab\there\r\nnew line\u00a0nbsp\u2003em space", "zero\u200bwidth\u0000nul\ufffdreplacement",
    "[CLS] typed [SEP] in the [MASK] text[SEP]", "[mask] lower and [UNK]", "x" * 120, "e\u0301t\u00e9 Cafe\u0301",
    "İstanbul ΣΑΣ ǅ ß ﬁ", "𠀀𠀁 CJK extension B and 😀 emoji", "a$b+c<d=e>f^g`h|i~j", "¿Qué? ¡Sí! «guillemets» „Zitat“",
    "it's they'll I'M we'd 'twas 'x rock'n'roll", "two  spaces,   three and trailing   ", "  leading", "\n\n\tindented",
    "12345 ½ ② ٣ 3.14", "a <|endoftext|> b<|endoftext|>c", "the <mask> and  <mask>x", "<s>typed</s>",
]


def encode_cases(name, tokenizer, texts, out):
    pairs = list(zip(texts[::2], texts[1::2]))
    for text in texts:
        out.append(case(name, tokenizer, text, None, None, True))
    for max_length in (16, 7):
        for text in texts[::7]:
            out.append(case(name, tokenizer, text, None, max_length, True))
    for first, second in pairs[::5]:
        out.append(case(name, tokenizer, first, second, None, True))
        out.append(case(name, tokenizer, first, second, 24, True))
        out.append(case(name, tokenizer, second, first, 9, True))
    for text in texts[::11]:
        out.append(case(name, tokenizer, text, None, None, False))


def case(name, tokenizer, text, pair, max_length, add_special_tokens):
    if max_length is None:
        tokenizer.no_truncation()
    else:
        tokenizer.enable_truncation(max_length=max_length)
    encoding = tokenizer.encode(text, pair, add_special_tokens=add_special_tokens)
    return {"tokenizer": name, "text": text, "pair": pair, "max_length": max_length,
            "add_special_tokens": add_special_tokens, "ids": encoding.ids, "tokens": encoding.tokens,
            "type_ids": encoding.type_ids, "attention_mask": encoding.attention_mask}


def main(out_dir):
    texts = corpus()
    seen, unseen = texts[::2], texts[1::2]
    sample = unseen[::6] + seen[::40] + EXTRA
    cases = []
    for name, lowercase, strip_accents, bert_processing in (
            ("uncased", True, None, False), ("cased", False, None, False),
            ("cased_stripped", False, True, False), ("bert_processing", True, None, True)):
        tokenizer = train(seen, lowercase, strip_accents, bert_processing)
        folder = os.path.join(out_dir, name)
        os.makedirs(folder, exist_ok=True)
        tokenizer.save(os.path.join(folder, "tokenizer.json"))
        tokenizer.model.save(folder)  # vocab.txt
        encode_cases(name, tokenizer, sample, cases)
        if name in ("uncased", "cased"):
            # BERT's vocab.txt as transformers' BertTokenizerFast reads it (tokenizers' BertWordPieceTokenizer).
            from_vocab = BertWordPieceTokenizer(os.path.join(folder, "vocab.txt"), lowercase=lowercase)
            with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
                json.dump({"do_lower_case": lowercase, "tokenizer_class": "BertTokenizer"}, f)
            encode_cases(name + "/vocab.txt", from_vocab, sample[::3], cases)
    for name, roberta in (("gpt2", False), ("roberta", True)):
        tokenizer = train_byte_level(seen, roberta)
        folder = os.path.join(out_dir, name)
        os.makedirs(folder, exist_ok=True)
        tokenizer.save(os.path.join(folder, "tokenizer.json"))
        encode_cases(name, tokenizer, sample, cases)
    with open(os.path.join(out_dir, "cases.jsonl"), "w", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(f"{len(cases)} encodings of {len(sample)} texts ({len(texts)} in the corpus)")


if __name__ == "__main__":
    main(sys.argv[1])
