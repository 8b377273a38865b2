#!/usr/bin/python3
"""One model of a run through every runtime, on all 10,000 Fashion-MNIST test images: the engine
(`workbench-cli eval`), its TorchScript export in Python's torch.jit, and its ONNX export in ONNX Runtime
(PyPI's onnxruntime in .venv/, which scripts/setup.sh makes; tests/python/run_onnx.py). Prints each one's test
accuracy, the largest logit difference between TorchScript and ONNX Runtime, and how often their top-1 classes
agree.

    /usr/bin/python3 bench/cross_check_exports.py RUN_DIR [ARTIFACT] [--cli build/cli/workbench-cli]

ARTIFACT is "" (the run's model) or compressed/NN-<pass>. The input is normalized with the mean and std the
export carries in its metadata, as a user of the file would.
"""
import gzip, json, os, subprocess, sys, tempfile

import numpy as np
import torch

args = [a for a in sys.argv[1:]]
cli = "build/cli/workbench-cli"
if "--cli" in args:
    i = args.index("--cli")
    cli = args[i + 1]
    del args[i:i + 2]
run = args[0]
art = args[1] if len(args) > 1 else ""
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
work = tempfile.mkdtemp(prefix="wb-cross-check-")
tag = os.path.join(work, "model")
imgs = np.frombuffer(gzip.open("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz").read()[16:], np.uint8).reshape(-1,1,28,28)
labels = np.frombuffer(gzip.open("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz").read()[8:], np.uint8)
model = ["--model", art] if art else []
subprocess.run([cli, "export", run, *model, "--format", "torchscript", "--out", tag + ".pt"], check=True, capture_output=True)
subprocess.run([cli, "export", run, *model, "--format", "onnx", "--out", tag + ".onnx"], check=True, capture_output=True)
extra = {"metadata.json": ""}
m = torch.jit.load(tag + ".pt", _extra_files=extra)
meta = json.loads(extra["metadata.json"])
norm = json.loads(meta["normalization"]) if isinstance(meta.get("normalization"), str) else meta["normalization"]
if "quantized_engine" in meta: torch.backends.quantized.engine = meta["quantized_engine"]
mean = np.array(norm["mean"], np.float32).reshape(1,-1,1,1); std = np.array(norm["std"], np.float32).reshape(1,-1,1,1)
x = ((imgs.astype(np.float32)/255.0 - mean)/std).astype(np.float32)
with torch.no_grad(): ts = m(torch.from_numpy(x)).numpy()
x.tofile(os.path.join(work, "in.f32"))
subprocess.run([os.path.join(root, ".venv", "bin", "python"), os.path.join(root, "tests", "python", "run_onnx.py"), tag + ".onnx", os.path.join(work, "in.f32"), ",".join(map(str,x.shape)), os.path.join(work, "out.f32")], check=True, capture_output=True)
ort = np.fromfile(os.path.join(work, "out.f32"), np.float32).reshape(ts.shape)
ev = json.loads(subprocess.run([cli, "eval", run, *model, "--json"], check=True, capture_output=True, text=True).stdout)
acc = lambda o: float((o.argmax(1) == labels).mean())
print(f"{art or 'model'}: engine acc {ev['test_accuracy']:.4f} | torch.jit (Python) acc {acc(ts):.4f} | ORT acc {acc(ort):.4f} | max|TS-ORT| {np.abs(ts-ort).max():.3g} | top-1 agreement {float((ts.argmax(1)==ort.argmax(1)).mean()):.4f}")
