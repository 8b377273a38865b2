#!/usr/bin/env python3
"""Writes tests/fixtures/weights_load/resnet18_state_dict.json: the name, shape and dtype of every tensor of
torchvision's resnet18 (ImageNet's 1000 classes), in state-dict order. The window's File ▸ New from Pretrained…
test (tests/gui/window/new_from_pretrained_test.cpp) writes a safetensors file of these at run time, so a 47 MB
weights file need not be committed and nothing is downloaded.

    /usr/bin/python3 scripts/make_pretrained_dialog_fixture.py
"""
import json
import os

import torchvision

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "weights_load",
                   "resnet18_state_dict.json")
DTYPES = {"torch.float32": "F32", "torch.int64": "I64"}


def main():
    state = torchvision.models.resnet18(num_classes=1000).state_dict()
    tensors = [{"name": k, "shape": list(v.shape), "dtype": DTYPES[str(v.dtype)]} for k, v in state.items()]
    lines = ",\n".join("  " + json.dumps(t) for t in tensors)
    with open(OUT, "w") as f:
        f.write('{"architecture": "resnet18", "tensors": [\n' + lines + "\n]}\n")


if __name__ == "__main__":
    main()
