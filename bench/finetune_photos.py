"""Makes the fine-tuning benchmark's image folders from real photographs: the 16 photographs that Debian's
python3-skimage package ships in skimage/data (scikit-image's sample images; the package is only downloaded and
unpacked, never installed or imported).

Why this source: Debian and PyPI ship no labelled photo collection of useful size (the torchvision, Keras and
Hugging Face datasets are downloaded from their own hosts at run time, which this machine cannot reach), while
scikit-image's sample images are real photographs (a camera, a telescope, microscopes, a scanner), 20 MB to fetch.
How classes are formed: each photograph is one class and its samples are square crops of it (side 22-32 % of the
photo's shorter side, at random places), so the task is recognizing which scene a partial view comes from — a
texture, an object's part, a colour — as instance recognition. The test crops come from a strip across the long
side of each photo (32 % of it, at one end chosen by the seed) that no training crop touches, so no test pixel was
seen in training. The pictures that are not photographs (rendered text, a logo, a phantom, colour charts) and two
photos that are mostly flat background (cell, clock_motion) are left out; motorcycle_right is the stereo twin of
motorcycle_left.

The two halves: A (pretraining, 9 classes) and B (fine-tuning, 7 classes) each mix colour and grey, textures,
objects and close-ups; the counts differ so that the pretrained head does not fit B and a new one is made, as when
fine-tuning ImageNet weights on one's own classes:
  A: astronaut brick coffee coins grass hubble_deep_field motorcycle_left page text
  B: camera chelsea gravel ihc moon retina rocket

Usage: /usr/bin/python3 bench/finetune_photos.py SKIMAGE_DATA_DIR OUT_DIR [TRAIN_A TRAIN_B TEST SIZE SEED]
  writes OUT_DIR/{A,B}/{train,test}/<photo>/NNNN.jpg: TRAIN_A (default 256) and TRAIN_B (default 128) training
  crops per class, TEST (default 128) test crops per class, each SIZE x SIZE pixels (default 80), JPEG quality 90.
"""
import os
import random
import sys

from PIL import Image

HALVES = {
    "A": ["astronaut", "brick", "coffee", "coins", "grass", "hubble_deep_field", "motorcycle_left", "page",
          "text"],
    "B": ["camera", "chelsea", "gravel", "ihc", "moon", "retina", "rocket"],
}
TEST_STRIP = 0.32
CROP_SIDE = (0.22, 0.32)


def open_photo(data_dir, name):
    for ext in (".png", ".jpg"):
        path = os.path.join(data_dir, name + ext)
        if os.path.exists(path):
            return Image.open(path).convert("RGB")
    sys.exit(f"error: {name}.png/.jpg not in {data_dir} (is it python3-skimage's skimage/data folder?)")


def regions(photo, rng):
    """The training and test boxes (x0, y0, x1, y1): the test strip across the long side, at one end."""
    w, h = photo.size
    along_x = w > h or (w == h and rng.random() < 0.5)
    at_start = rng.random() < 0.5
    if along_x:
        cut = round(w * TEST_STRIP)
        test, train = ((0, 0, cut, h), (cut, 0, w, h)) if at_start else ((w - cut, 0, w, h), (0, 0, w - cut, h))
    else:
        cut = round(h * TEST_STRIP)
        test, train = ((0, 0, w, cut), (0, cut, w, h)) if at_start else ((0, h - cut, w, h), (0, 0, w, h - cut))
    return train, test


def write_crops(photo, box, count, size, rng, folder):
    os.makedirs(folder, exist_ok=True)
    x0, y0, x1, y1 = box
    short = min(photo.size)
    for i in range(count):
        side = min(round(short * rng.uniform(*CROP_SIDE)), x1 - x0, y1 - y0)
        x = rng.randint(x0, x1 - side)
        y = rng.randint(y0, y1 - side)
        crop = photo.crop((x, y, x + side, y + side)).resize((size, size), Image.BICUBIC)
        crop.save(os.path.join(folder, f"{i:04d}.jpg"), quality=90)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    data_dir, out = sys.argv[1], sys.argv[2]
    train_a, train_b, test, size, seed = (int(v) for v in (sys.argv[3:8] + ["256", "128", "128", "80", "0"][len(sys.argv[3:8]):]))
    rng = random.Random(seed)
    for half, names in HALVES.items():
        for name in names:
            photo = open_photo(data_dir, name)
            train_box, test_box = regions(photo, rng)
            write_crops(photo, train_box, train_a if half == "A" else train_b, size, rng,
                        os.path.join(out, half, "train", name))
            write_crops(photo, test_box, test, size, rng, os.path.join(out, half, "test", name))
    print(f"{out}: A {len(HALVES['A'])} classes x {train_a} training crops, B {len(HALVES['B'])} x {train_b}; "
          f"{test} test crops per class from a strip no training crop touches; {size} px JPEG")


if __name__ == "__main__":
    main()
