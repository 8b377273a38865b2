"""Labelled texts written by Python's own csv and json modules, for the text reader to read back.

usage: write_text_table.py OUT_DIR

coreutils' messages in five languages (Debian's gettext catalogs: commas, quotes, tabs and line breaks inside
texts), the language as the label, written as OUT_DIR/texts.csv (csv.writer, minimal quoting), texts.tsv
(csv.writer with a tab), texts.jsonl (json.dumps per line) and, for comparing, OUT_DIR/expected.json: the
records in order, as [text, label].
"""
import csv
import gettext
import json
import os
import sys

out = sys.argv[1]
records = []
for language in ("de", "fr", "ru", "ja", "pl"):
    path = f"/usr/share/locale/{language}/LC_MESSAGES/coreutils.mo"
    with open(path, "rb") as f:
        catalog = gettext.GNUTranslations(f)
    for msgid, msgstr in sorted(catalog._catalog.items(), key=lambda kv: str(kv[0]))[:300]:
        if msgid and msgstr.strip():
            records.append([msgstr, language])
for name, delimiter in (("texts.csv", ","), ("texts.tsv", "\t")):
    with open(os.path.join(out, name), "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter=delimiter)
        writer.writerow(["text", "label"])
        writer.writerows(records)
with open(os.path.join(out, "texts.jsonl"), "w", encoding="utf-8") as f:
    for text, label in records:
        f.write(json.dumps({"label": label, "text": text}, ensure_ascii=False) + "\n")
with open(os.path.join(out, "expected.json"), "w", encoding="utf-8") as f:
    json.dump(records, f, ensure_ascii=False)
print(len(records), "records")
