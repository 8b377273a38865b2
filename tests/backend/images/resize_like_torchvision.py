"""Writes what torchvision's Resize(size), CenterCrop(size), F.resized_crop and F.hflip give for test images, and
RandomResizedCrop's fallback box, for test_images to compare with, as raw bytes (HWC) and a .size file.
Usage: /usr/bin/python3 resize_like_torchvision.py FOLDER"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image
from torchvision import transforms
from torchvision.transforms import functional as F


def main(folder):
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:37, 0:53]
    base = np.stack([127 + 120 * np.sin(x / (2.0 + c) + y / 3.0) for c in range(3)], -1) + rng.normal(0, 20, (37, 53, 3))
    images = {"rgb": Image.fromarray(np.clip(base, 0, 255).astype(np.uint8), "RGB")}
    images["grey"] = images["rgb"].convert("L").transpose(Image.Transpose.TRANSPOSE)  # taller than wide
    cases = {
        "resize24": transforms.Resize(24),    # shrink: the filter widens (antialiasing)
        "resize7": transforms.Resize(7),      # shrink a lot
        "resize90": transforms.Resize(90),    # enlarge
        "resize37": transforms.Resize(37),    # the shorter side already 37 on one of them
        "crop20": transforms.CenterCrop(20),
        "crop_odd": transforms.CenterCrop((30, 44)),  # offsets 3.5 and 4.5: Python rounds halves to even
        "crop_pad": transforms.CenterCrop((41, 60)),  # larger than the image: zero padding first
    }
    for image_name, image in images.items():
        (out / (image_name + ".raw")).write_bytes(image.tobytes())
        (out / (image_name + ".size")).write_text("%d %d %d\n" % (image.size[0], image.size[1], len(image.getbands())))
        crops = {"rcrop_a": (3, 5, 20, 30, 16, 16), "rcrop_b": (0, 0, 29, 17, 40, 24), "rcrop_c": (10, 2, 7, 9, 32, 32)}
        for case, (top, left, h, w, out_h, out_w) in crops.items():
            if top + h > image.size[1] or left + w > image.size[0]:
                continue
            cases[case] = lambda im, a=(top, left, h, w, out_h, out_w): F.resized_crop(im, *a[:4], [a[4], a[5]])
        cases["hflip"] = F.hflip
        for case, transform in cases.items():
            result = transform(image)
            (out / ("%s-%s.raw" % (image_name, case))).write_bytes(result.tobytes())
            (out / ("%s-%s.size" % (image_name, case))).write_text("%d %d\n" % result.size)
    # RandomResizedCrop's fallback (no try fits: scale > 1): the central crop within the ratio range.
    boxes = []
    for height, width in [(37, 53), (53, 37), (100, 20), (20, 100), (40, 40)]:
        top, left, h, w = transforms.RandomResizedCrop.get_params(Image.new("L", (width, height)), [2.0, 3.0], [0.75, 4 / 3])
        boxes.append("%d %d %d %d %d %d" % (height, width, top, left, h, w))
    (out / "fallback_boxes.txt").write_text("\n".join(boxes) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
