#!/usr/bin/python3
"""The same training step in Python torch, for side-by-side throughput against `workbench-cli bench`.

Same data (Fashion-MNIST from Debian's dataset-fashion-mnist, normalized once, batches gathered with one
index_select from a seeded permutation), same model (built from the same layer list the engine uses, read
from `workbench-cli` presets re-stated here), same optimizer (AdamW, lr 1e-3, weight decay 0.05 on weights
only), same threads and BLAS (the same libtorch and libblas.so.3). Prints one JSON object.

usage: bench/python_reference.py --model cnn|mlp|resnet|vit --batch 128 --steps 50 --warmup 10 --threads N
"""
import argparse
import gzip
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_train(limit):
    x = read_idx(os.path.join(DATA, "train-images-idx3-ubyte.gz"))[:limit]
    y = read_idx(os.path.join(DATA, "train-labels-idx1-ubyte.gz"))[:limit]
    x = torch.from_numpy(x.copy()).float().unsqueeze(1)
    mean, std = x.mean(), x.std()
    return (x - mean) / std, torch.from_numpy(y.astype(np.int64))


class EncoderBlock(nn.Module):
    def __init__(self, dim, heads, mlp_ratio):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * mlp_ratio), nn.GELU(), nn.Linear(dim * mlp_ratio, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class Vit(nn.Module):
    def __init__(self, classes, patch=7, dim=64, depth=4, heads=4, mlp_ratio=2):
        super().__init__()
        self.embed = nn.Conv2d(1, dim, patch, stride=patch)
        tokens = (28 // patch) ** 2
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, tokens + 1, dim) * 0.02)
        self.blocks = nn.Sequential(*[EncoderBlock(dim, heads, mlp_ratio) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.size(0), -1, -1), x], 1) + self.pos
        return self.head(self.norm(self.blocks(x))[:, 0])


class Basic(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                                  nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
        self.short = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                      if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x):
        return F.relu(self.body(x) + self.short(x))


def build(name, classes=10):
    if name == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Dropout(0.2), nn.Linear(256, 128),
                             nn.ReLU(), nn.Linear(128, classes))
    if name == "cnn":
        return nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                             nn.Linear(3136, 1024), nn.ReLU(), nn.Dropout(0.5), nn.Linear(1024, classes))
    if name == "resnet":
        return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                             Basic(32, 32, 1), Basic(32, 64, 2), Basic(64, 128, 2), nn.AdaptiveAvgPool2d(1),
                             nn.Flatten(), nn.Linear(128, classes))
    if name == "vit":
        return Vit(classes)
    raise SystemExit("unknown model " + name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="cnn")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--limit", type=int, default=60000)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    x, y = load_train(a.limit)
    model = build(a.model)
    model.train()
    decay = [p for p in model.parameters() if p.dim() > 1]
    no_decay = [p for p in model.parameters() if p.dim() <= 1]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-3)
    g = torch.Generator().manual_seed(a.seed)
    perm = torch.randperm(x.size(0), generator=g)
    pos = 0
    start = None
    for i in range(a.warmup + a.steps):
        if i == a.warmup:
            start = time.perf_counter()
        if pos + a.batch > x.size(0):
            perm = torch.randperm(x.size(0), generator=g)
            pos = 0
        idx = perm[pos:pos + a.batch]
        pos += a.batch
        xb, yb = x.index_select(0, idx), y.index_select(0, idx)
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
    total = time.perf_counter() - start
    print(json.dumps({"model": a.model, "batch_size": a.batch, "steps": a.steps, "threads": a.threads,
                      "samples_per_sec": a.steps * a.batch / total, "step_ms": 1000 * total / a.steps,
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
