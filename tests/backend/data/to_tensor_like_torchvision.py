"""For each raw HWC uint8 image in FOLDER (NAME.raw, with NAME.size "width height channels" and NAME.norm
"mean,..;std,.."), applies torchvision's ToTensor and Normalize(mean, std) and writes the float32 CHW result as
NAME.float, for test_data to compare with. Usage: /usr/bin/python3 to_tensor_like_torchvision.py FOLDER"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image
from torchvision import transforms

folder = Path(sys.argv[1])
for raw in sorted(folder.glob("*.raw")):
    name = raw.stem
    width, height, channels = (int(v) for v in (folder / (name + ".size")).read_text().split())
    mean, std = ([float(v) for v in part.split(",")] for part in (folder / (name + ".norm")).read_text().split(";"))
    image = Image.frombytes("RGB" if channels == 3 else "L", (width, height), raw.read_bytes())
    tensor = transforms.Normalize(mean, std)(transforms.ToTensor()(image))
    (folder / (name + ".float")).write_bytes(tensor.numpy().astype(np.float32).tobytes())
