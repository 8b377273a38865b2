"""Pillow's draft decoding of a JPEG (JpegImageFile.draft: libjpeg's DCT scaling to the smallest scale that keeps
the image at least SIZE x SIZE), written as FILE.draftSIZE.rgb with FILE.draftSIZE.size ("width height"), and the
full decode's size, for test_images to compare with. Usage: /usr/bin/python3 draft_like_pillow.py SIZE FILE..."""
import sys

from PIL import Image

size = int(sys.argv[1])
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        image = Image.open(f)
        image.draft("RGB", (size, size))
        rgb = image.convert("RGB")
    stem = "%s.draft%d" % (path, size)
    open(stem + ".rgb", "wb").write(rgb.tobytes())
    open(stem + ".size", "w").write("%d %d\n" % rgb.size)
