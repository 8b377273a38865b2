#!/usr/bin/env python3
"""An exported image-folder model run the way a user deploys it, from the file alone: ONNX Runtime (PyPI) and
Pillow, the preprocessing and normalization read from the model's own metadata (get_modelmeta), no workbench code.

usage: onnx_image_folder.py MODEL.onnx LIST
LIST: one test sample a line, "label<TAB>path". Prints one JSON line {"accuracy", "samples", "preprocessing"}.
"""
import json
import sys

import numpy as np
import onnxruntime as ort
from PIL import Image


def prepare(path, pre, mean, std):
    with open(path, "rb") as f:
        image = Image.open(f).convert(pre["convert"])
    if pre["resize"] > 0:  # torchvision's Resize(int): the shorter side becomes `resize`, the other truncated
        w, h = image.size
        short, long = (w, h) if w <= h else (h, w)
        other = int(pre["resize"] * long / short)
        size = (pre["resize"], other) if w <= h else (other, pre["resize"])
        image = image.resize(size, Image.BILINEAR)
    x = np.asarray(image, dtype=np.uint8)
    if x.ndim == 2:
        x = x[:, :, None]
    crop = pre["center_crop"]
    if crop > 0:  # torchvision's CenterCrop: offsets round((H - h) / 2) (no padding needed here)
        top = int(round((x.shape[0] - crop) / 2.0))
        left = int(round((x.shape[1] - crop) / 2.0))
        x = x[top:top + crop, left:left + crop]
    x = x.transpose(2, 0, 1).astype(np.float32) / np.float32(255)
    return (x - mean[:, None, None]) / std[:, None, None]


def main():
    model, listing = sys.argv[1], sys.argv[2]
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    meta = session.get_modelmeta().custom_metadata_map
    pre = json.loads(meta["preprocessing"])
    norm = json.loads(meta["normalization"])
    mean = np.array(norm["mean"], dtype=np.float32)
    std = np.array(norm["std"], dtype=np.float32)
    labels, batch = [], []
    for line in open(listing).read().splitlines():
        label, path = line.split("\t", 1)
        labels.append(int(label))
        batch.append(prepare(path, pre, mean, std))
    logits = session.run(None, {session.get_inputs()[0].name: np.stack(batch)})[0]
    correct = int((logits.argmax(1) == np.array(labels)).sum())
    print(json.dumps({"accuracy": correct / len(labels), "samples": len(labels), "preprocessing": pre}))


if __name__ == "__main__":
    main()
