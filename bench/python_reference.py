#!/usr/bin/python3
"""The same training step in Python torch, for side-by-side throughput against `workbench-cli bench`.

Same data (Fashion-MNIST from Debian's dataset-fashion-mnist, normalized once, batches gathered with one
index_select from a seeded permutation), same model (built from the same layer list the engine uses, read
from `workbench-cli` presets re-stated here), same optimizer (AdamW, lr 1e-3, weight decay 0.05 on weights
only), same threads and BLAS (the same libtorch and libblas.so.3, OpenBLAS given the same thread count),
same precision (torch.autocast around forward and loss; fp16 with torch.cuda.amp.GradScaler's defaults) and the
same CUDA switches as the engine's experiment keys (cudnn_benchmark, tf32, channels_last, data on the device).
--cuda-graphs captures the whole step (forward, backward, AdamW(capturable=True)) in one CUDA graph, as in
PyTorch's "whole network capture" recipe (not with fp16: GradScaler's step reads the device). --compile MODE
runs the model through torch.compile(model, mode=MODE) (the optimizer step stays eager, as in the usual
twenty-line script); the first warm-up step, which compiles forward and backward, is timed on its own
(compile_s), and the warm-up is at least 3 steps so recompilation is behind it too.

The standard models, resnet50 and vit_b_16, are torchvision's (torchvision.models.resnet50() / vit_b_16(),
num_classes from --classes) on synthetic images of --shape (default 3,224,224); without torchvision installed,
the same architectures re-stated below (the same parameters, names and shapes: checked against torchvision 0.26
with --check-torchvision). The JSON says which ("definition").

--modes runs several of these one after another in one process (each on a fresh model from the same seed, the
GPU's cache emptied between them), one JSON object a line: eager, graphs, compile (default mode),
max-autotune (compile with mode="max-autotune"). Each object has the model's parameter count (so the caller can
check it builds what the engine builds), its forward FLOPs per sample (torch.utils.flop_counter on a meta-device
copy; 0 where it cannot count), the step time and, on CUDA, the timed steps' peak memory
(torch.cuda.max_memory_allocated from the end of the first warm-up step; for graphs from before the capture)
and the GPU's name.

usage: bench/python_reference.py --model cnn|mlp|resnet|vit|resnet50|vit_b_16 --batch 128 --steps 50 --warmup 10
         --threads N [--blas-threads N] [--device cpu|cuda] [--amp off|bf16|fp16] [--channels-last] [--tf32 0|1]
         [--cudnn-benchmark 0|1] [--data-on-device auto|on|off] [--cuda-graphs] [--data synthetic]
         [--shape C,H,W] [--classes N] [--pinned-memory 0|1] [--compile default|max-autotune]
         [--modes eager,graphs,compile,max-autotune]
"""
import ctypes
import argparse
import gc
import gzip
import json
import os
import sys
import time
from collections import OrderedDict

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


# The standard models as torchvision 0.26 defines them (torchvision/models/resnet.py, vision_transformer.py),
# for a machine without torchvision: the same modules, names and parameter shapes (--check-torchvision), the same
# initialization where it matters for speed (none does: the weights' values do not change a step's time).
class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, width, stride, downsample):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, width * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(width * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        return self.relu(self.bn3(self.conv3(out)) + identity)


class ResNet50(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        cin = 64
        for i, (width, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]):
            layers = []
            for b in range(blocks):
                s = stride if b == 0 else 1
                down = (nn.Sequential(nn.Conv2d(cin, width * 4, 1, s, bias=False), nn.BatchNorm2d(width * 4))
                        if b == 0 else None)
                layers.append(Bottleneck(cin, width, s, down))
                cin = width * 4
            setattr(self, "layer%d" % (i + 1), nn.Sequential(*layers))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(2048, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class TvEncoderBlock(nn.Module):
    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim, eps=1e-6)
        self.self_attention = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.dropout = nn.Dropout(0.0)
        self.ln_2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(0.0), nn.Linear(hidden, dim),
                                 nn.Dropout(0.0))

    def forward(self, x):
        h = self.ln_1(x)
        x = x + self.dropout(self.self_attention(h, h, h, need_weights=False)[0])
        return x + self.mlp(self.ln_2(x))


class TvEncoder(nn.Module):
    def __init__(self, tokens, dim, heads, hidden, depth):
        super().__init__()
        self.pos_embedding = nn.Parameter(torch.empty(1, tokens, dim).normal_(std=0.02))
        self.dropout = nn.Dropout(0.0)
        self.layers = nn.Sequential(OrderedDict(("encoder_layer_%d" % i, TvEncoderBlock(dim, heads, hidden))
                                                for i in range(depth)))
        self.ln = nn.LayerNorm(dim, eps=1e-6)

    def forward(self, x):
        return self.ln(self.layers(self.dropout(x + self.pos_embedding)))


class VitB16(nn.Module):
    def __init__(self, image_size, num_classes, patch=16, dim=768, depth=12, heads=12, hidden=3072):
        super().__init__()
        self.patch, self.dim = patch, dim
        self.conv_proj = nn.Conv2d(3, dim, patch, patch)
        self.class_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.encoder = TvEncoder((image_size // patch) ** 2 + 1, dim, heads, hidden, depth)
        self.heads = nn.Sequential()
        self.heads.add_module("head", nn.Linear(dim, num_classes))

    def forward(self, x):
        x = self.conv_proj(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.class_token.expand(x.size(0), -1, -1), x], 1)
        return self.heads(self.encoder(x)[:, 0])


def build_standard(name, classes, image_size, restated=False):
    """(model, definition): torchvision's where it is installed, else the re-statement above."""
    why = "no torchvision"
    if not restated:
        try:
            import torchvision
            from torchvision.models import resnet50, vit_b_16
            model = resnet50(num_classes=classes) if name == "resnet50" else vit_b_16(image_size=image_size,
                                                                                       num_classes=classes)
            return model, "torchvision " + torchvision.__version__
        except ImportError:
            pass
        except Exception as e:  # a torchvision built for another torch fails on import with other errors
            why = "torchvision failed: %s" % type(e).__name__
    model = ResNet50(classes) if name == "resnet50" else VitB16(image_size, classes)
    return model, "re-stated (%s)" % why


STANDARD = ("resnet50", "vit_b_16")


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
                    help="synthetic: random images of --shape, for machines without the dataset (throughput only)")
    ap.add_argument("--shape", default="",
                    help="synthetic images' C,H,W (default 1,28,28; 3,224,224 for resnet50 and vit_b_16)")
    ap.add_argument("--classes", type=int, default=0, help="default 10; 1000 for resnet50 and vit_b_16")
    ap.add_argument("--compile", default="", choices=["", "default", "max-autotune"],
                    help="torch.compile(model, mode=...): one more mode (see --modes)")
    ap.add_argument("--modes", default="", help="comma-separated: eager, graphs, compile, max-autotune")
    ap.add_argument("--check-torchvision", action="store_true",
                    help="compare the re-stated resnet50 and vit_b_16 with torchvision's (names, shapes) and exit")
    a = ap.parse_args()
    if a.check_torchvision:
        return check_torchvision()
    standard = a.model in STANDARD
    a.classes = a.classes or (1000 if standard else 10)
    a.shape = [int(v) for v in a.shape.split(",")] if a.shape else ([3, 224, 224] if standard else [1, 28, 28])
    if standard and a.data != "synthetic":
        raise SystemExit(a.model + " trains on --data synthetic")
    modes = [m for m in a.modes.split(",") if m] if a.modes else \
        ["graphs" if a.cuda_graphs else {"default": "compile", "max-autotune": "max-autotune"}.get(a.compile, "eager")]
    for m in modes:
        if m not in ("eager", "graphs", "compile", "max-autotune"):
            raise SystemExit("unknown mode " + m)

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
        x, y = torch.randn(a.limit, *a.shape), torch.randint(0, a.classes, (a.limit,))
    else:
        x, y = load_train(a.limit)
    # As the engine's train.data_on_device "auto": the split fits in a quarter of the GPU easily.
    on_device = cuda and a.data_on_device != "off"
    if on_device:
        x, y = x.to(device), y.to(device)
    flops = forward_flops(a)
    for mode in modes:
        try:
            result = run_mode(a, mode, device, x, y, on_device)
        except Exception as e:  # one mode failing (out of memory, a compiler error) leaves the others' figures
            result = {"error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")}
        result.update({"model": a.model, "mode": mode, "batch_size": a.batch, "steps": a.steps,
                       "threads": a.threads, "blas_threads": blas_threads, "device": a.device, "amp": a.amp,
                       "flops_per_sample_fwd": flops, "torch": torch.__version__,
                       "gpu": torch.cuda.get_device_name(device) if cuda else ""})
        print(json.dumps(result), flush=True)
        if cuda:
            gc.collect()
            torch.cuda.empty_cache()
        if mode in ("compile", "max-autotune"):
            torch._dynamo.reset()


def make_model(a, device):
    torch.manual_seed(a.seed)
    if a.model in STANDARD:
        return build_standard(a.model, a.classes, a.shape[-1])
    return build(a.model, a.classes), "bench/python_reference.py"


def forward_flops(a):
    """Forward FLOPs of one sample (a multiply-add counts 2), counted by torch's FlopCounterMode on a meta-device
    copy of the model (matmuls, convolutions, attention): 0 where this torch cannot."""
    try:
        from torch.utils.flop_counter import FlopCounterMode
        with torch.device("meta"):
            model, _ = make_model(a, "meta")
            batch = torch.empty(2, *a.shape)  # two: batch norm in training mode needs more than one value
        counter = FlopCounterMode(display=False)
        with counter:
            model(batch)
        return int(counter.get_total_flops()) // 2
    except Exception:
        return 0


def check_torchvision():
    import torchvision
    worst = 0
    for name in STANDARD:
        ours = build_standard(name, 1000, 224, restated=True)[0].state_dict()
        theirs = build_standard(name, 1000, 224)[0].state_dict()
        same = [k for k in theirs if k in ours and ours[k].shape == theirs[k].shape]
        print("%s: torchvision %s has %d tensors (%d values), the re-statement %d (%d values); %d the same name and "
              "shape" % (name, torchvision.__version__, len(theirs), sum(t.numel() for t in theirs.values()),
                         len(ours), sum(t.numel() for t in ours.values()), len(same)))
        worst = max(worst, len(theirs) - len(same), len(ours) - len(same))
    return 1 if worst else 0


def run_mode(a, mode, device, x, y, on_device):
    cuda = device.type == "cuda"
    model, definition = make_model(a, device)
    model = model.to(device)
    channels_last = a.channels_last and a.model != "mlp"
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    model.train()
    decay = [p for p in model.parameters() if p.dim() > 1]
    no_decay = [p for p in model.parameters() if p.dim() <= 1]
    groups = [{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}]
    graphs = mode == "graphs" and cuda and a.amp != "fp16"
    if mode == "graphs" and not graphs:
        raise RuntimeError("graphs: CUDA only, and not with fp16 (GradScaler's step reads the device)")
    compiled = mode in ("compile", "max-autotune")
    run_model = torch.compile(model, mode="max-autotune" if mode == "max-autotune" else None) if compiled else model
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
            loss = F.cross_entropy(run_model(xb), yb)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss

    # The peak memory of a step: from the end of the first warm-up step (past compilation, autotuning and cuDNN's
    # benchmark try-outs) to the end; for the hand-captured graph from before its warm-up and capture, whose
    # activations live in the graph's private pool (replays allocate nothing, so a later reset would miss them).
    if graphs:
        torch.cuda.reset_peak_memory_stats(device)
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

    warmup = max(a.warmup, 3) if compiled else a.warmup
    start = None
    compile_s = 0.0
    for i in range(warmup + a.steps):
        if cuda and not graphs and i == min(1, warmup):
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats(device)
        if i == warmup:
            if cuda:
                torch.cuda.synchronize()
            start = time.perf_counter()
        xb, yb = next_batch()
        if compiled and i == 0:
            t0 = time.perf_counter()
            step(xb, yb)
            if cuda:
                torch.cuda.synchronize()
            compile_s = time.perf_counter() - t0
            continue
        if graphs:
            static_x.copy_(xb)
            static_y.copy_(yb)
            graph.replay()
        else:
            step(xb, yb)
    if cuda:
        torch.cuda.synchronize()
    total = time.perf_counter() - start
    return {"definition": definition, "channels_last": channels_last, "cuda_graphs": graphs,
            "compile": (mode if mode == "max-autotune" else "default") if compiled else "", "compile_s": compile_s,
            "parameters": sum(p.numel() for p in model.parameters()),
            "samples_per_sec": a.steps * a.batch / total, "step_ms": 1000 * total / a.steps,
            "peak_bytes": torch.cuda.max_memory_allocated(device) if cuda else 0}


if __name__ == "__main__":
    sys.exit(main())
