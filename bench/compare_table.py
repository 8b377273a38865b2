#!/usr/bin/env python3
"""bench/compare.sh's tables, from the cells it records (one tab-separated line per model, batch, precision and
runner: samples/s, step ms, peak bytes, forward FLOPs per sample, GPU name, compile seconds, parameters).

  compare_table.py header                       the summary table's header (engine against Python, one row a cell)
  compare_table.py row RECORDS MODEL BATCH PREC  that cell's summary row
  compare_table.py summary RECORDS               the summary table of every cell recorded
  compare_table.py detail RECORDS                one row per cell and runner: samples/s, step time, peak memory,
                                                 achieved TFLOP/s and its share of the GPU's peak, against Python eager

Columns follow bench/compare.sh's switches, passed in the environment: CT_GRAPHS=1 (Python with the step in one
CUDA graph), CT_ENGINE_GRAPHS=1 (the engine with train.cuda_graphs=on), CT_COMPILE ("default max-autotune": Python
through torch.compile), CT_TF32=0 (fp32 cells count against the fp32 peak, not TF32's), CT_FLOPS_MODELS (models
whose TFLOP/s is printed; default "resnet50 vit_b_16").
"""
import os
import sys

# Dense (no sparsity) tensor-core peaks in TFLOP/s, by GPU name: NVIDIA's H100 and H200 datasheets
# (nvidia.com/en-us/data-center/h100/ and /h200/, "Tensor Core" rows, whose figures are "with sparsity": halved
# here). H200 has H100 SXM's compute (more and faster memory). "fp32" is the CUDA cores' non-tensor FP32.
PEAK_TFLOPS = [
    ("H200", {"bf16": 989, "fp16": 989, "tf32": 494, "fp32": 67}),
    ("H100 NVL", {"bf16": 835, "fp16": 835, "tf32": 418, "fp32": 60}),
    ("H100 PCIe", {"bf16": 756, "fp16": 756, "tf32": 378, "fp32": 51}),
    ("H100", {"bf16": 989, "fp16": 989, "tf32": 494, "fp32": 67}),  # H100 SXM5 ("NVIDIA H100 80GB HBM3")
]
RUNNERS = ["engine", "engine+graphs", "python", "python+graphs", "compile", "max-autotune"]
RUNNER_NAMES = {"engine": "engine eager", "engine+graphs": "engine, train.cuda_graphs=on",
                "python": "Python eager", "python+graphs": "Python, step in one CUDA graph",
                "compile": "Python torch.compile", "max-autotune": "Python compile max-autotune"}


def env_flag(name):
    return os.environ.get(name, "0") == "1"


def compile_modes():
    return os.environ.get("CT_COMPILE", "").split()


def read(path):
    cells = {}
    if not os.path.exists(path):
        return cells
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 11:
                continue
            model, batch, prec, runner, sps, ms, peak, flops, gpu, compile_s, params = parts[:11]
            cells[(model, batch, prec, runner)] = {"sps": num(sps), "ms": num(ms), "peak": num(peak),
                                                   "flops": num(flops), "gpu": gpu, "compile_s": num(compile_s),
                                                   "params": params}
    return cells


def num(text):
    try:
        return float(text)
    except ValueError:
        return None


def fmt(value, digits=1):
    return "-" if value is None else "%.*f" % (digits, value)


def ratio(a, b):
    return "%.2fx" % (a / b) if a and b else "-"


def summary_columns():
    cols = [("model", 8), ("batch", 5), ("precision", 9), ("engine [s/s]", 12), ("python [s/s]", 12),
            ("engine/python", 13), ("engine vs fp32", 14), ("python vs fp32", 14)]
    if env_flag("CT_GRAPHS"):
        cols += [("python+graphs", 13), ("engine/graphs", 13)]
    if env_flag("CT_ENGINE_GRAPHS"):
        cols += [("engine+graphs", 13), ("graphs/graphs", 13)]
    if "default" in compile_modes():
        cols += [("compile", 9), ("engine/compile", 14)]
    if "max-autotune" in compile_modes():
        cols += [("max-autotune", 12), ("engine/autotune", 15)]
    return cols


def line(values, widths, left):
    cells = [("%-*s" if i < left else "%*s") % (w, v) for i, (v, w) in enumerate(zip(values, widths))]
    return "| " + " | ".join(cells) + " |"


def header():
    cols = summary_columns()
    widths = [w for _, w in cols]
    print(line([n for n, _ in cols], widths, 3))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def sps(cells, model, batch, prec, runner):
    c = cells.get((model, batch, prec, runner))
    return c["sps"] if c else None


def row(path, model, batch, prec):
    cells = read(path)
    get = lambda runner, p=prec: sps(cells, model, batch, p, runner)
    e, p = get("engine"), get("python")
    values = [model, batch, prec, fmt(e), fmt(p), ratio(e, p), ratio(e, get("engine", "fp32")),
              ratio(p, get("python", "fp32"))]
    best_engine = max([v for v in (e, get("engine+graphs")) if v] or [0]) or None
    if env_flag("CT_GRAPHS"):
        values += [fmt(get("python+graphs")), ratio(e, get("python+graphs"))]
    if env_flag("CT_ENGINE_GRAPHS"):
        values += [fmt(get("engine+graphs")), ratio(get("engine+graphs"), get("python+graphs"))]
    if "default" in compile_modes():
        values += [fmt(get("compile")), ratio(best_engine, get("compile"))]
    if "max-autotune" in compile_modes():
        values += [fmt(get("max-autotune")), ratio(best_engine, get("max-autotune"))]
    print(line(values, [w for _, w in summary_columns()], 3))


def peak_for(gpu, prec):
    key = prec if prec != "fp32" else ("fp32" if os.environ.get("CT_TF32", "1") == "0" else "tf32")
    for name, peaks in PEAK_TFLOPS:
        if name in gpu:
            return peaks[key], key
    return None, key


def detail(path):
    cells = read(path)
    flops_models = os.environ.get("CT_FLOPS_MODELS", "resnet50 vit_b_16").split()
    cols = [("model", 8), ("batch", 5), ("precision", 9), ("runner", 30), ("samples/s", 10), ("step ms", 8),
            ("peak MiB", 8), ("TFLOP/s", 7), ("% of peak", 14), ("vs Python eager", 15)]
    widths = [w for _, w in cols]
    print(line([n for n, _ in cols], widths, 4))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    keys = []
    for model, batch, prec, _ in cells:
        if (model, batch, prec) not in keys:
            keys.append((model, batch, prec))
    notes = []
    for model, batch, prec in keys:
        base = sps(cells, model, batch, prec, "python")
        flops = max([c["flops"] or 0 for k, c in cells.items() if k[0] == model and k[1] == batch] or [0])
        gpu = next((c["gpu"] for k, c in cells.items() if k[0] == model and c["gpu"]), "")
        for runner in RUNNERS:
            c = cells.get((model, batch, prec, runner))
            if not c:
                continue
            tflops = 3 * flops * c["sps"] / 1e12 if flops and c["sps"] and model in flops_models else None
            peak, kind = peak_for(gpu, prec)
            share = "%.1f %% of %s" % (100 * tflops / peak, kind) if tflops and peak else "-"
            mib = c["peak"] / 2**20 if c["peak"] else None
            print(line([model, batch, prec, RUNNER_NAMES[runner], fmt(c["sps"]), fmt(c["ms"], 2), fmt(mib, 0),
                        fmt(tflops, 1 if tflops and tflops >= 10 else 3), share, ratio(c["sps"], base)], widths, 4))
            if c["compile_s"]:
                notes.append("%s/%s/%s %s: compiled in %.1f s (the first warm-up step: forward and backward)"
                             % (model, batch, prec, RUNNER_NAMES[runner], c["compile_s"]))
    for model in dict.fromkeys(k[0] for k in keys):
        flops = max([c["flops"] or 0 for k, c in cells.items() if k[0] == model] or [0])
        if flops and model in flops_models:
            notes.append("%s: %.2f GFLOP forward per sample (torch.utils.flop_counter; x3 for forward + backward)"
                         % (model, flops / 1e9))
    if gpu:
        peaks = next((p for name, p in PEAK_TFLOPS if name in gpu), None)
        known = ("bf16/fp16 %(bf16)s, tf32 %(tf32)s, fp32 %(fp32)s TFLOP/s dense (NVIDIA's datasheets; "
                 "bench/compare_table.py)" % peaks if peaks else "unknown to bench/compare_table.py: no share of peak")
        notes.append("GPU %s: peak %s" % (gpu, known))
    for n in notes:
        print("note: " + n)


def main():
    what = sys.argv[1]
    if what == "header":
        header()
    elif what == "row":
        row(*sys.argv[2:6])
    elif what == "summary":
        header()
        seen = []
        for model, batch, prec, _ in read(sys.argv[2]):
            if (model, batch, prec) not in seen:
                seen.append((model, batch, prec))
                row(sys.argv[2], model, batch, prec)
    elif what == "detail":
        detail(sys.argv[2])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
