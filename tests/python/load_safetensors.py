#!/usr/bin/env python3
"""Loads a .safetensors file with the safetensors library's own safe_open (PyPI's safetensors, in .venv/,
framework "numpy": no torch needed) and prints one JSON object: the metadata, and per tensor its name, dtype
(numpy's name), shape and the FNV-1a 64-bit hash of its bytes, for the caller to compare with what it wrote.

usage: load_safetensors.py FILE
"""
import json
import sys

from safetensors import safe_open


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def main():
    tensors = {}
    with safe_open(sys.argv[1], framework="numpy") as f:
        metadata = f.metadata() or {}
        for name in f.keys():
            t = f.get_tensor(name)
            tensors[name] = {"dtype": str(t.dtype), "shape": list(t.shape), "fnv1a64": fnv1a64(t.tobytes())}
    json.dump({"metadata": metadata, "tensors": tensors}, sys.stdout)


if __name__ == "__main__":
    main()
