"""Writes an image folder in torchvision's ImageFolder layout made from Fashion-MNIST (Debian's
dataset-fashion-mnist): one subfolder per class, each image the garment enlarged to a colour picture with
texture (so decoding costs what a photo costs), sizes that differ from file to file, as JPEG (baseline,
progressive, grey) and PNG (RGB, grey, palette). Deterministic.

Usage: /usr/bin/python3 make_image_folder.py OUT PER_CLASS [CLASSES] [SIZE] [jpeg | jpeg-square]
  SIZE: the shorter side around which the sizes vary (default 40); jpeg: colour JPEG files only (baseline and
  progressive, as photo collections are), for the loader benchmark; jpeg-square: the same, every file SIZE x SIZE
  (a folder that needs no resize, where decoding is all the work).
"""
import gzip
import sys
from pathlib import Path

import numpy as np
from PIL import Image

NAMES = ["T-shirt_top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle_boot"]
FASHION = Path("/usr/share/datasets/fashion-mnist")


def read_idx(name):
    data = gzip.open(FASHION / name).read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)


def picture(garment, height, width, rng):
    """The garment scaled to height x width, tinted per class, over a textured background."""
    base = Image.fromarray(garment).resize((width, height), Image.BILINEAR)
    g = np.asarray(base, np.float64) / 255.0
    y, x = np.mgrid[0:height, 0:width]
    tint = rng.uniform(0.3, 1.0, 3)
    out = []
    for c in range(3):
        background = 60 + 40 * np.sin(x / (2.0 + c) + y / (3.0 + c))
        out.append(background * (1 - g) + 255 * tint[c] * g + rng.normal(0, 6, (height, width)))
    return np.clip(np.stack(out, -1), 0, 255).astype(np.uint8)


def main(out, per_class, classes=10, size=40, jpeg_only=False, square=False):
    images = read_idx("t10k-images-idx3-ubyte.gz")
    labels = read_idx("t10k-labels-idx1-ubyte.gz")
    rng = np.random.default_rng(7)
    root = Path(out)
    for c in range(classes):
        folder = root / NAMES[c]
        folder.mkdir(parents=True, exist_ok=True)
        for k, index in enumerate(np.flatnonzero(labels == c)[:per_class]):
            height = size + int(rng.integers(0, size // 2))
            width = size + int(rng.integers(0, size // 2))
            if square:
                height = width = size
            rgb = Image.fromarray(picture(images[index], height, width, rng), "RGB")
            kind = k % 2 if jpeg_only else k % 6
            name = folder / f"{c}_{k:05d}"
            if kind == 0:
                rgb.save(f"{name}.jpg", quality=90)
            elif kind == 1:
                rgb.save(f"{name}.jpeg", quality=85, progressive=True)
            elif kind == 2:
                rgb.save(f"{name}.png")
            elif kind == 3:
                rgb.convert("L").save(f"{name}.JPG", quality=90)
            elif kind == 4:
                rgb.quantize(64).save(f"{name}.png")
            else:
                rgb.convert("L").save(f"{name}.png")


if __name__ == "__main__":
    numbers = [int(v) for v in sys.argv[3:5]]
    kind = sys.argv[5:6]
    main(sys.argv[1], int(sys.argv[2]), *numbers, jpeg_only=kind in (["jpeg"], ["jpeg-square"]),
         square=kind == ["jpeg-square"])
