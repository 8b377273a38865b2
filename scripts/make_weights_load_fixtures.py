#!/usr/bin/env python3
"""Writes tests/fixtures/weights_load/: weights files torch wrote for a tiny network, for loading them into the
workbench's model (model.weights, issue 40; tests/backend/weights/weights_loading_test.cpp).

    /usr/bin/python3 scripts/make_weights_load_fixtures.py

The network is the layer list the tests build, in PyTorch's terms:
    [conv2d 4 (3x3), batchnorm2d, relu, flatten, linear 5]  on inputs [1, 4, 4]   ->  keys layers.0.*, layers.1.*,
    layers.4.*  (batch norm's running statistics and num_batches_tracked included)

  tiny.pt                 torch.save(model.state_dict()) (zip)
  tiny.safetensors        the same tensors
  tiny_fp16.safetensors   the same in float16
  tiny_module.pt          the state dict as DistributedDataParallel saves it: every name prefixed "module."
  tiny_scripted.pt        torch.jit.script(model)
  tiny_expected.safetensors  "input" [4, 1, 4, 4] and "output": the model's logits in eval mode
  tiny_named.safetensors  the same tensors under torchvision-style names: conv1.*, bn1.*, fc.* (the layer list with
                          "name"s gives these outside names)
  other_arch.safetensors  an MLP's state dict (fc1, fc2): weights of another architecture
"""
import json
import os
import struct

import torch
from torch import nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "weights_load")
ST_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.int64: "I64"}


def write_safetensors(name, tensors):
    header, blobs, offset = {}, [], 0
    for key, t in tensors.items():
        t = t.contiguous()
        data = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[key] = {"dtype": ST_DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


class Tiny(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.layers = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                                    nn.Linear(16, classes))

    def forward(self, x):
        return self.layers(x)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(40)
    model = Tiny(5)
    model.train()
    with torch.no_grad():
        for _ in range(3):  # running statistics away from their initial 0 and 1
            model(torch.randn(8, 1, 4, 4) * 2 + 0.5)
    model.eval()
    sd = model.state_dict()
    torch.save(sd, os.path.join(OUT, "tiny.pt"))
    write_safetensors("tiny.safetensors", sd)
    write_safetensors("tiny_fp16.safetensors",
                      {k: v.half() if v.is_floating_point() else v for k, v in sd.items()})
    torch.save({"module." + k: v for k, v in sd.items()}, os.path.join(OUT, "tiny_module.pt"))
    names = {"layers.0.": "conv1.", "layers.1.": "bn1.", "layers.4.": "fc."}
    write_safetensors("tiny_named.safetensors", {names[k[:9]] + k[9:]: v for k, v in sd.items()})
    torch.jit.script(model).save(os.path.join(OUT, "tiny_scripted.pt"))
    x = torch.randn(4, 1, 4, 4)
    with torch.no_grad():
        write_safetensors("tiny_expected.safetensors", {"input": x, "output": model(x)})
    mlp = nn.Sequential()
    mlp.add_module("fc1", nn.Linear(16, 8))
    mlp.add_module("fc2", nn.Linear(8, 5))
    write_safetensors("other_arch.safetensors", mlp.state_dict())


if __name__ == "__main__":
    main()
