"""The peer of `workbench-cli bench --loader` on an image folder: torchvision's ImageFolder with the same
transforms (RandomResizedCrop, RandomHorizontalFlip, ToTensor, Normalize) through DataLoader(num_workers=N), one
epoch timed from the iterator's creation (worker start-up included, as a user's epoch pays it) to the last batch;
and the decode anchor: Pillow's (libjpeg-turbo's) decode alone, convert("RGB"), on one core.

Usage: /usr/bin/python3 bench/image_loader.py ROOT WORKERS BATCH CROP [anchor | train STEPS THREADS]
  CROP 0: no RandomResizedCrop and no flip, only ToTensor + Normalize (a folder of one size: decoding is the work).
  train: a training run's images/s instead of the loader's: the workbench's `resnet` preset (re-stated below with
  3 input channels), AdamW lr 1e-3, STEPS steps after 3 warm-up steps, THREADS intra-op threads in the main process.
Prints one JSON line.
"""
import json
import resource
import sys
import time

import torch
from PIL import Image, features
from torchvision import datasets, transforms

root, workers, batch, crop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
torch.manual_seed(0)
if sys.argv[5:6] == ["anchor"]:
    files = [path for path, _ in datasets.ImageFolder(root).samples]
    start = time.perf_counter()
    for path in files:
        with open(path, "rb") as f:
            Image.open(f).convert("RGB")
    seconds = time.perf_counter() - start
    print(json.dumps({"decoded_per_sec": len(files) / seconds, "files": len(files),
                      "libjpeg_turbo": features.version("libjpeg_turbo"), "pillow": Image.__version__}))
    sys.exit(0)

if sys.argv[5:6] == ["train"]:
    import os
    import torch.nn as nn
    import torch.nn.functional as F
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from python_reference import Basic
    steps, threads = int(sys.argv[6]), int(sys.argv[7])
    torch.set_num_threads(threads)
    transform = transforms.Compose([transforms.RandomResizedCrop(crop), transforms.RandomHorizontalFlip(),
                                    transforms.ToTensor(), transforms.Normalize([0.5] * 3, [0.25] * 3)])
    data = datasets.ImageFolder(root, transform=transform)
    loader = torch.utils.data.DataLoader(data, batch_size=batch, shuffle=True, num_workers=workers, drop_last=True,
                                         persistent_workers=workers > 0)
    model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                          Basic(32, 32, 1), Basic(32, 64, 2), Basic(64, 128, 2), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(128, len(data.classes)))
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    done, start = 0, None
    while done < steps + 3:
        for x, y in loader:
            if done == 3:
                start = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(model(x), y).backward()
            opt.step()
            done += 1
            if done == steps + 3:
                break
    seconds = time.perf_counter() - start
    print(json.dumps({"samples_per_sec": steps * batch / seconds, "seconds": seconds,
                      "parameters": sum(p.numel() for p in model.parameters()), "torch": torch.__version__}))
    sys.exit(0)

steps = [transforms.RandomResizedCrop(crop), transforms.RandomHorizontalFlip()] if crop > 0 else []
transform = transforms.Compose(steps + [transforms.ToTensor(), transforms.Normalize([0.5, 0.5, 0.5], [0.25, 0.25, 0.25])])
data = datasets.ImageFolder(root, transform=transform)
loader = torch.utils.data.DataLoader(data, batch_size=batch, shuffle=True, num_workers=workers)
start = time.perf_counter()
samples = 0
for x, y in loader:
    samples += y.shape[0]
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"samples_per_sec": samples / seconds, "samples": samples, "seconds": seconds,
                  "peak_rss_mib": peak / 1024.0, "torch": torch.__version__}))
