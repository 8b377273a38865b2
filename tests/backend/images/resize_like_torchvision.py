"""Writes what torchvision's Resize(size) and CenterCrop(size) give for test images, for test_images to compare
with, as raw bytes (HWC) and a .size file. Usage: /usr/bin/python3 resize_like_torchvision.py FOLDER"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image
from torchvision import transforms


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
        for case, transform in cases.items():
            result = transform(image)
            (out / ("%s-%s.raw" % (image_name, case))).write_bytes(result.tobytes())
            (out / ("%s-%s.size" % (image_name, case))).write_text("%d %d\n" % result.size)


if __name__ == "__main__":
    main(sys.argv[1])
