#!/usr/bin/env python3
"""Compares two folders of the tests' fixtures (tests/fixtures/*.json, made by the scripts/make_*_fixtures.py
scripts): every number within a relative tolerance (1e-5 of its magnitude, or 1e-6 absolute near zero), every
other value exactly. Prints, per file, whether it agrees and, where not, the first differing paths with both
values; exits 1 when a file differs beyond what `--expected FILE` names (a JSON object {"file": {"path prefix":
"why"}}: a difference under a named prefix is reported with its reason and does not fail).

usage: compare_fixtures.py REFERENCE_DIR OTHER_DIR [--expected tests/fixtures/torch2x-differences.json]
"""
import json
import math
import os
import sys


def walk(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append((path + "/" + k, a.get(k, "<missing>"), b.get(k, "<missing>")))
            else:
                walk(a[k], b[k], path + "/" + k, out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append((path, "%d items" % len(a), "%d items" % len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, "%s/%d" % (path, i), out)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if math.isnan(a) and math.isnan(b):
            return
        if abs(a - b) > max(1e-5 * max(abs(a), abs(b)), 1e-6):
            out.append((path, a, b))
    elif a != b:
        out.append((path, a, b))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    expected = {}
    if "--expected" in sys.argv:
        expected = json.load(open(sys.argv[sys.argv.index("--expected") + 1]))
        args = [a for a in args if a != sys.argv[sys.argv.index("--expected") + 1]]
    ref_dir, other_dir = args
    failed = False
    for name in sorted(os.listdir(ref_dir)):
        if not name.endswith(".json") or not os.path.exists(os.path.join(other_dir, name)):
            continue
        ref = json.load(open(os.path.join(ref_dir, name)))
        other = json.load(open(os.path.join(other_dir, name)))
        diffs = []
        # The torch version each was made with differs by design.
        ref.pop("torch_version", None)
        other.pop("torch_version", None)
        walk(ref, other, "", diffs)
        named = expected.get(name, {})
        unexplained = [d for d in diffs if not any(d[0].startswith(p) for p in named)]
        explained = {p: why for p, why in named.items() if any(d[0].startswith(p) for d in diffs)}
        if not diffs:
            print("%s: agrees" % name)
            continue
        print("%s: %d values differ" % (name, len(diffs)))
        for prefix, why in explained.items():
            count = sum(1 for d in diffs if d[0].startswith(prefix))
            print("  expected, %d under %s: %s" % (count, prefix, why))
        for path, a, b in unexplained[:12]:
            print("  UNEXPLAINED %s: %r vs %r" % (path, a, b))
        if unexplained:
            failed = True
            if len(unexplained) > 12:
                print("  ... %d more" % (len(unexplained) - 12))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
