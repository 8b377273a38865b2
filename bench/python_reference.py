#!/usr/bin/python3
"""The same training step in Python torch, for side-by-side throughput against `workbench-cli bench`.

Same data (Fashion-MNIST from Debian's dataset-fashion-mnist, normalized once, batches gathered with one
index_select from a seeded permutation), same model (built from the same layer list the engine uses, read
from `workbench-cli` presets re-stated here), same optimizer (AdamW, lr 1e-3, weight decay 0.05 on weights
only), same threads and BLAS (the same libtorch and libblas.so.3, OpenBLAS given the same thread count),
same precision (torch.autocast around forward and loss; fp16 with torch.cuda.amp.GradScaler's defaults) and the
same CUDA switches as the engine's experiment keys (cudnn_benchmark, tf32, channels_last, data on the device).
--cuda-graphs captures the whole step (forward, backward, AdamW(capturable=True)) in one CUDA graph, as in
PyTorch's "whole network capture" recipe (not with fp16: GradScaler's step reads the device). Prints one JSON
object, with the model's parameter count so the caller can check it builds what the engine builds.

usage: bench/python_reference.py --model cnn|mlp|resnet|vit --batch 128 --steps 50 --warmup 10 --threads N
         [--blas-threads N] [--device cpu|cuda] [--amp off|bf16|fp16] [--channels-last] [--tf32 0|1]
         [--cudnn-benchmark 0|1] [--data-on-device auto|on|off] [--cuda-graphs] [--data synthetic]
         [--pinned-memory 0|1]
"""
import ctypes
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


def set_blas_threads(n):
    """OpenBLAS's own pool, as the engine's configureThreads sets it (same count as intra-op by default)."""
    try:
        lib = ctypes.CDLL("libblas.so.3")
        lib.openblas_set_num_threads(ctypes.c_int(n))
        return lib.openblas_get_num_threads()
    except (OSError, AttributeError):
        return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="cnn")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--limit", type=int, default=60000)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--blas-threads", type=int, default=0, help="0 = as many as --threads (the engine's rule)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--amp", default="off", choices=["off", "bf16", "fp16"])
    ap.add_argument("--channels-last", action="store_true")
    ap.add_argument("--tf32", type=int, default=1)
    ap.add_argument("--cudnn-benchmark", type=int, default=1)
    ap.add_argument("--data-on-device", default="auto", choices=["auto", "on", "off"])
    ap.add_argument("--cuda-graphs", action="store_true")
    ap.add_argument("--pinned-memory", type=int, default=1)
    ap.add_argument("--mkldnn", type=int, default=1,
                    help="0: oneDNN off, so bf16 matmuls and convolutions run on LibTorch's reference loops, the "
                         "kernels a CPU without AVX-512 gets (its bf16 cost, measured on any CPU)")
    ap.add_argument("--data", default="fashion-mnist", choices=["fashion-mnist", "synthetic"],
                    help="synthetic: random 1x28x28 images, for machines without the dataset (throughput only)")
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    torch.backends.mkldnn.enabled = bool(a.mkldnn)
    blas_threads = set_blas_threads(a.blas_threads or a.threads)
    device = torch.device(a.device)
    cuda = device.type == "cuda"
    if cuda:
        torch.backends.cudnn.benchmark = bool(a.cudnn_benchmark)
        torch.backends.cuda.matmul.allow_tf32 = bool(a.tf32)
        torch.backends.cudnn.allow_tf32 = bool(a.tf32)
    if a.amp == "fp16" and not cuda:
        raise SystemExit("fp16 needs --device cuda")
    torch.manual_seed(a.seed)
    if a.data == "synthetic":
        x, y = torch.randn(a.limit, 1, 28, 28), torch.randint(0, 10, (a.limit,))
    else:
        x, y = load_train(a.limit)
    # As the engine's train.data_on_device "auto": the split fits in a quarter of the GPU easily.
    on_device = cuda and a.data_on_device != "off"
    if on_device:
        x, y = x.to(device), y.to(device)
    model = build(a.model).to(device)
    channels_last = a.channels_last and a.model != "mlp"
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    model.train()
    decay = [p for p in model.parameters() if p.dim() > 1]
    no_decay = [p for p in model.parameters() if p.dim() <= 1]
    groups = [{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}]
    graphs = a.cuda_graphs and cuda and a.amp != "fp16"
    opt = torch.optim.AdamW(groups, lr=1e-3, capturable=True) if graphs else torch.optim.AdamW(groups, lr=1e-3)
    amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(a.amp)
    scaler = torch.cuda.amp.GradScaler(enabled=a.amp == "fp16")
    g = torch.Generator().manual_seed(a.seed)
    state = {"perm": torch.randperm(x.size(0), generator=g), "pos": 0}

    def next_batch():
        if state["pos"] + a.batch > x.size(0):
            state["perm"] = torch.randperm(x.size(0), generator=g)
            state["pos"] = 0
        idx = state["perm"][state["pos"]:state["pos"] + a.batch].to(x.device)
        state["pos"] += a.batch
        xb, yb = x.index_select(0, idx), y.index_select(0, idx)
        if cuda and not on_device:
            if a.pinned_memory:
                xb, yb = xb.pin_memory(), yb.pin_memory()
            xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
        if channels_last:
            xb = xb.contiguous(memory_format=torch.channels_last)
        return xb, yb

    def step(xb, yb):
        opt.zero_grad(set_to_none=not graphs)
        with torch.autocast(device.type, dtype=amp_dtype or torch.bfloat16, enabled=amp_dtype is not None):
            loss = F.cross_entropy(model(xb), yb)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss

    if graphs:
        static_x, static_y = next_batch()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):  # warm-up on a side stream before capture, as the recipe asks
                step(static_x, static_y)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step(static_x, static_y)

    start = None
    for i in range(a.warmup + a.steps):
        if i == a.warmup:
            if cuda:
                torch.cuda.synchronize()
            start = time.perf_counter()
        xb, yb = next_batch()
        if graphs:
            static_x.copy_(xb)
            static_y.copy_(yb)
            graph.replay()
        else:
            step(xb, yb)
    if cuda:
        torch.cuda.synchronize()
    total = time.perf_counter() - start
    print(json.dumps({"model": a.model, "batch_size": a.batch, "steps": a.steps, "threads": a.threads,
                      "blas_threads": blas_threads, "device": a.device, "amp": a.amp,
                      "channels_last": channels_last, "cuda_graphs": graphs,
                      "parameters": sum(p.numel() for p in model.parameters()),
                      "samples_per_sec": a.steps * a.batch / total, "step_ms": 1000 * total / a.steps,
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
