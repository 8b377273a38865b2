#!/usr/bin/python3
"""Writes tests/fixtures/weights/: small weights files for the readers in backend/src/weights (issue 40).

Re-run from the repository root with both Pythons (Debian's torch 1.13, then the .venv's torch 2.x):
    /usr/bin/python3 scripts/make_weights_fixtures.py
    .venv/bin/python scripts/make_weights_fixtures.py
Each run writes files named after its torch's major version (torch1_*, torch2_*):
  *_dtypes.pt          torch.save of a plain dict: one tensor per dtype, plus "view" (a transposed slice of
                       "base": two tensors sharing one storage, at an offset, not contiguous)
  *_dtypes.safetensors the same tensors (contiguous copies), written by this script's own writer from the
                       specification; the C++ test checks every .pt tensor equals its safetensors copy
  *_wrapped.pt         {"state_dict": a module's state_dict (with its _metadata), "epoch": 3, "optimizer": {...}}
  *_model_key.pt       {"model": the same state_dict}
  *_legacy.pt          the pre-1.6 format (_use_new_zipfile_serialization=False): refused
  torch1_scripted.pt   a TorchScript archive of the same module (torch 1.13 only: 2.x loads it too)
  *_evil_*.pt          pickles that would run code (os.system, builtins.eval, subprocess.Popen) or build another
                       module's object (numpy); each would touch wb_weights_pwned_* in the working directory
The module's values are seeded; its state_dict is also written as *_module.safetensors for comparison.
"""

import collections
import json
import os
import struct
import subprocess
import sys

import torch

OUT = os.environ.get("WB_FIXTURES_OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                                         "fixtures", "weights")
PREFIX = "torch%d_" % int(torch.__version__.split(".")[0])

ST_DTYPES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
             torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
             torch.bool: "BOOL"}


def path(name):
    return os.path.join(OUT, PREFIX + name)


def write_safetensors(file, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        t = t.contiguous()
        data = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": ST_DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"written_by": "make_weights_fixtures.py"}
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(file, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def dtype_tensors():
    g = torch.Generator().manual_seed(40)
    base = torch.randn(4, 5, generator=g)
    out = collections.OrderedDict()
    out["f64"] = torch.randn(3, generator=g, dtype=torch.float64)
    out["f32"] = torch.randn(2, 3, generator=g)
    out["f16"] = torch.randn(5, generator=g).half()
    out["bf16"] = torch.randn(5, generator=g).bfloat16()
    out["i64"] = torch.tensor([-(2 ** 40), 7, 2 ** 62])
    out["i32"] = torch.tensor([-(2 ** 31), 5, 2 ** 31 - 1], dtype=torch.int32)
    out["i16"] = torch.tensor([-32768, 3, 32767], dtype=torch.int16)
    out["i8"] = torch.tensor([[-128, 1], [2, 127]], dtype=torch.int8)
    out["u8"] = torch.tensor([0, 1, 255], dtype=torch.uint8)
    out["bool"] = torch.tensor([True, False, True])
    out["scalar"] = torch.tensor(2.5)
    out["empty"] = torch.zeros(0, 3)
    out["base"] = base
    out["view"] = base[1:, 1:4].t()  # shares base's storage: offset 6, strides (1, 5)
    return out


class Evil:
    def __init__(self, call, args):
        self.call, self.args = call, args

    def __reduce__(self):
        return (self.call, self.args)


def module():
    torch.manual_seed(40)
    m = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    m[1].running_mean.fill_(0.25)
    m[1].num_batches_tracked.fill_(7)
    return m


def main():
    os.makedirs(OUT, exist_ok=True)
    tensors = dtype_tensors()
    torch.save(tensors, path("dtypes.pt"))
    write_safetensors(path("dtypes.safetensors"), tensors)
    m = module()
    sd = m.state_dict()
    write_safetensors(path("module.safetensors"), sd)
    torch.save({"state_dict": sd, "epoch": 3, "optimizer": {"lr": 0.1}}, path("wrapped.pt"))
    torch.save({"model": sd}, path("model_key.pt"))
    torch.save(sd, path("legacy.pt"), _use_new_zipfile_serialization=False)
    if PREFIX == "torch1_":  # ~10 KB: one TorchScript file, which both LibTorch versions load
        torch.jit.script(m.eval()).save(path("scripted.pt"))
    torch.save({"w": torch.ones(2), "x": Evil(os.system, ("touch wb_weights_pwned_os",))}, path("evil_os_system.pt"))
    torch.save({"x": Evil(eval, ("open('wb_weights_pwned_eval', 'w')",))}, path("evil_eval.pt"))
    torch.save({"x": Evil(subprocess.Popen, (["touch", "wb_weights_pwned_subprocess"],))}, path("evil_subprocess.pt"))
    try:
        import numpy
        torch.save({"w": numpy.zeros(2)}, path("evil_numpy.pt"))
    except ImportError:
        pass
    print("wrote", PREFIX + "* to", os.path.normpath(OUT), file=sys.stderr)


if __name__ == "__main__":
    main()
