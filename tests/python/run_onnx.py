#!/usr/bin/env python3
"""The tests' independent runtime for exported .onnx files: ONNX Runtime from PyPI (the pinned `onnxruntime`
of the test environment, .venv/, made by scripts/setup.sh), on the CPU.

usage: run_onnx.py MODEL.onnx INPUT.f32 DIMS OUTPUT.f32 [--no-optimization]

INPUT.f32 holds the input "input" as raw little-endian float32 in C order, DIMS its shape ("37,1,28,28").
Writes the first output ("logits") as raw float32 to OUTPUT.f32 and prints one JSON line
{"output", "dims", "inputs", "outputs", "metadata", "onnxruntime"} so the caller can check the shape and the
file's metadata as ONNX Runtime reads it (get_modelmeta). Graph optimizations stay at ORT's default ("all"):
the int8 QDQ graphs are meant to be fused into QLinear*/integer kernels the way a deployment runs them;
--no-optimization runs every node as written (DequantizeLinear, float op, QuantizeLinear), which is ONNX's own
reference semantics.
"""
import json
import sys

import numpy as np
import onnxruntime as ort


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 4:
        sys.exit("usage: run_onnx.py MODEL.onnx INPUT.f32 DIMS OUTPUT.f32 [--no-optimization]")
    model, input_path, dims_text, output_path = args
    dims = [int(d) for d in dims_text.split(",")]
    data = np.fromfile(input_path, dtype="<f4")
    if data.size != int(np.prod(dims)):
        sys.exit("%s holds %d floats, dims %s need %d" % (input_path, data.size, dims_text, int(np.prod(dims))))
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    if "--no-optimization" in sys.argv:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    inputs = [i.name for i in session.get_inputs()]
    outputs = [o.name for o in session.get_outputs()]
    result = session.run([outputs[0]], {inputs[0]: data.reshape(dims)})[0]
    if result.dtype != np.float32:
        sys.exit("output %s is %s, not float32" % (outputs[0], result.dtype))
    np.ascontiguousarray(result).astype("<f4").tofile(output_path)
    meta = session.get_modelmeta()
    print(json.dumps({"output": outputs[0], "dims": list(result.shape), "inputs": inputs, "outputs": outputs,
                      "metadata": dict(meta.custom_metadata_map), "producer": meta.producer_name,
                      "onnxruntime": ort.__version__}))


if __name__ == "__main__":
    main()
