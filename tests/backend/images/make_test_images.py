"""Writes the image files test_images decodes, and beside each the pixels Pillow decodes from it (what
torchvision's ImageFolder loader gives a model): NAME.rgb (convert("RGB")), NAME.l (convert("L")), NAME.size
("width height"). Textured so that decoding does real work; deterministic.

Usage: /usr/bin/python3 make_test_images.py FOLDER
"""
import struct
import sys
import zlib
from pathlib import Path

import numpy as np
from PIL import Image


def texture(h, w, channels, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    planes = []
    for c in range(channels):
        wave = 127 + 100 * np.sin(x / (3.0 + c) + y / (5.0 + 2 * c)) * np.cos(y / (7.0 + c))
        planes.append(np.clip(wave + rng.normal(0, 12, (h, w)), 0, 255))
    return np.stack(planes, axis=-1)


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_png16(path, values, color_type):
    """A 16-bit PNG written by hand (Pillow cannot write 16-bit RGB): values uint16 [h, w, c]."""
    h, w = values.shape[:2]
    raw = b"".join(b"\x00" + values[r].astype(">u2").tobytes() for r in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, 16, color_type, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(raw)) +
                     png_chunk(b"IEND", b""))


def main(folder):
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    rgb = Image.fromarray(texture(37, 53, 3, 1).astype(np.uint8), "RGB")
    grey = Image.fromarray(texture(41, 29, 1, 2)[..., 0].astype(np.uint8), "L")
    rgba = Image.fromarray(texture(23, 31, 4, 3).astype(np.uint8), "RGBA")
    files = {
        "baseline.jpg": lambda p: rgb.save(p, quality=90),
        "subsampling444.jpg": lambda p: rgb.save(p, quality=95, subsampling=0),
        "progressive.jpg": lambda p: rgb.save(p, quality=85, progressive=True),
        "grey.jpg": lambda p: grey.save(p, quality=90),
        "cmyk.jpg": lambda p: rgb.convert("CMYK").save(p, quality=90),
        "rgb.png": lambda p: rgb.save(p),
        "grey.png": lambda p: grey.save(p),
        "rgba.png": lambda p: rgba.save(p),
        "grey_alpha.png": lambda p: rgba.convert("LA").save(p),
        "palette.png": lambda p: rgb.quantize(64).save(p),
        "palette_transparent.png": lambda p: rgb.quantize(16).save(p, transparency=3),
        "bilevel.png": lambda p: grey.convert("1").save(p),
        "grey16.png": lambda p: write_png16(p, (texture(19, 17, 1, 4) * 3).astype(np.uint16), 0),
        "rgb16.png": lambda p: write_png16(p, (texture(19, 17, 3, 5) * 257).astype(np.uint16), 2),
        "rgba16.png": lambda p: write_png16(p, (texture(13, 11, 4, 6) * 257).astype(np.uint16), 6),
    }
    for name, write in files.items():
        path = out / name
        write(path)
        with Image.open(path) as image:
            (out / (name + ".rgb")).write_bytes(image.convert("RGB").tobytes())
            (out / (name + ".l")).write_bytes(image.convert("L").tobytes())
            (out / (name + ".size")).write_text("%d %d\n" % image.size)
    # Bad files: the decoder must refuse them, naming the file.
    data = (out / "baseline.jpg").read_bytes()
    (out / "bad-truncated.jpg").write_bytes(data[: len(data) // 2])
    png = (out / "rgb.png").read_bytes()
    (out / "bad-truncated.png").write_bytes(png[: len(png) // 2])
    broken = bytearray(png)
    broken[40] ^= 0xFF  # inside the first IDAT: the CRC no longer matches
    (out / "bad-crc.png").write_bytes(bytes(broken))
    (out / "bad-text.jpg").write_text("not an image\n")
    (out / "bad-empty.png").write_bytes(b"")


if __name__ == "__main__":
    main(sys.argv[1])
