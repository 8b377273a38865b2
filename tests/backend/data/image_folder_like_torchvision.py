"""What torchvision makes of an image folder, for test_data to compare with: the classes ImageFolder finds, each
listed file through ImageFolder's loader and Resize / CenterCrop / ToTensor / Normalize, and the per-channel mean
and std of the training files (ToTensor units, population std, float64).

Usage: /usr/bin/python3 image_folder_like_torchvision.py ROOT FOLDER
  FOLDER/settings: "resize crop channels"; FOLDER/eval.txt: files to transform; FOLDER/train.txt: files measured;
  FOLDER/norm: "mean,..;std,.." to normalize with. Writes FOLDER/classes.txt, FOLDER/eval.float (float32 CHW, one
  file after the other) and FOLDER/stats.txt ("mean,..;std,..", repr precision).
"""
import sys
from pathlib import Path

import numpy as np
import torch
from torchvision import datasets, transforms

root, folder = Path(sys.argv[1]), Path(sys.argv[2])
resize, crop, channels = (int(v) for v in (folder / "settings").read_text().split())
mode = "RGB" if channels == 3 else "L"
steps = []
if resize > 0:
    steps.append(transforms.Resize(resize))
if crop > 0:
    steps.append(transforms.CenterCrop(crop))
geometry = transforms.Compose(steps)
(folder / "classes.txt").write_text("\n".join(datasets.ImageFolder(str(root)).classes) + "\n")


def load(path):
    with open(path, "rb") as f:
        from PIL import Image
        return Image.open(f).convert(mode)


total, squares, count = np.zeros(channels), np.zeros(channels), 0
for line in (folder / "train.txt").read_text().split("\n"):
    if line:
        x = transforms.ToTensor()(geometry(load(line))).double().numpy()
        total += x.sum(axis=(1, 2))
        squares += (x * x).sum(axis=(1, 2))
        count += x.shape[1] * x.shape[2]
mean = total / count
std = np.sqrt(squares / count - mean * mean)
(folder / "stats.txt").write_text(",".join(repr(v) for v in mean) + ";" + ",".join(repr(v) for v in std))

norm_mean, norm_std = ([float(v) for v in part.split(",")] for part in (folder / "norm").read_text().split(";"))
normalize = transforms.Compose([geometry, transforms.ToTensor(), transforms.Normalize(norm_mean, norm_std)])
with open(folder / "eval.float", "wb") as out:
    for line in (folder / "eval.txt").read_text().split("\n"):
        if line:
            out.write(normalize(load(line)).numpy().astype(np.float32).tobytes())
