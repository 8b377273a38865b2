#!/usr/bin/python3
"""Writes tests/fixtures/observers.json: scales and zero points of python3-torch's observers.

Re-run from the repository root with Debian's Python (torch 1.13):
    /usr/bin/python3 scripts/make_observer_fixtures.py
Data come from a seeded numpy generator and are written out as float32 numbers. Cases:
  minmax     torch.ao.quantization.MinMaxObserver(quint8, per_tensor_affine) over several batches
  histogram  HistogramObserver(quint8, per_tensor_affine, 2048 bins, upsample 128): its histogram, min/max
             and qparams after one or more batches
  weight     PerChannelMinMaxObserver(qint8, per_channel_symmetric, axis 0, reduce_range: [-64, 63], the
             workbench's 7-bit weights) and torch.fake_quantize_per_channel_affine onto that range
activations each with reduce_range False ([0, 255]) and True ([0, 127]).
PyTorch 1.13's HistogramObserver.forward calls torch.histc(x, bins, min=int(min_val), max=int(max_val)); the
int() truncates the range (later releases pass the floats). The workbench follows the later releases, so
single-batch cases use data whose extremes are whole numbers (there int() changes nothing), and multi-batch
cases run the same forward with the int() taken out (the subclass below; the rest is 1.13's own code).
"""

import json
import os

import numpy as np
import torch
from torch.ao.quantization.observer import HistogramObserver, MinMaxObserver, PerChannelMinMaxObserver

# WB_FIXTURES_OUT: another folder (scripts/compare_fixtures.sh regenerates them with torch 2.x there).
OUTPUT = os.path.join(os.environ.get("WB_FIXTURES_OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"),
                      "observers.json")


class FloatRangeHistogramObserver(HistogramObserver):
    def forward(self, x_orig):
        x = x_orig.detach()
        min_val, max_val = self.min_val, self.max_val
        same_values = min_val.item() == max_val.item()
        is_uninitialized = min_val == float("inf") and max_val == float("-inf")
        if is_uninitialized or same_values:
            min_val, max_val = torch.aminmax(x)
            self.min_val.resize_(min_val.shape)
            self.min_val.copy_(min_val)
            self.max_val.resize_(max_val.shape)
            self.max_val.copy_(max_val)
            torch.histc(x, self.bins, min=min_val.item(), max=max_val.item(), out=self.histogram)
        else:
            new_min, new_max = torch.aminmax(x)
            combined_min = torch.min(new_min, min_val)
            combined_max = torch.max(new_max, max_val)
            combined_min, combined_max, downsample_rate, start_idx = self._adjust_min_max(
                combined_min, combined_max, self.upsample_rate)
            combined_histogram = torch.histc(x, self.bins, min=combined_min.item(), max=combined_max.item())
            if combined_min == min_val and combined_max == max_val:
                combined_histogram += self.histogram
            else:
                combined_histogram = self._combine_histograms(
                    combined_histogram, self.histogram, self.upsample_rate, downsample_rate, start_idx, self.bins)
            self.histogram.detach_().resize_(combined_histogram.shape)
            self.histogram.copy_(combined_histogram)
            self.min_val.detach_().resize_(combined_min.shape)
            self.min_val.copy_(combined_min)
            self.max_val.detach_().resize_(combined_max.shape)
            self.max_val.copy_(combined_max)
        return x_orig


if not hasattr(HistogramObserver, "_adjust_min_max"):
    # torch 2.x passes the float range to histc already, and combines batches by another method (it re-bins the
    # old histogram onto the new range instead of upsampling it): its own observer is what 2.x users get.
    # scripts/compare_fixtures.sh names what that changes against 1.13's fixtures.
    FloatRangeHistogramObserver = HistogramObserver


def f32(a):
    return np.asarray(a, dtype=np.float32)


def batches_for(rng, kind):
    if kind == "normal_outliers":  # activations with a few outliers, whole-number extremes
        b = rng.normal(0.3, 1.0, 1000)
        b[:3] = [-4.0, 9.0, 7.5]
        return [f32(b)]
    if kind == "relu":  # one-sided, min exactly 0
        b = np.maximum(rng.normal(0.5, 1.5, 1000), 0)
        b[0] = 6.0
        return [f32(b)]
    if kind == "uniform":
        b = rng.uniform(-2, 3, 800)
        b[:2] = [-2.0, 3.0]
        return [f32(b)]
    if kind == "far_outliers":  # the search clips these
        b = rng.normal(0, 0.5, 1500)
        b[:2] = [-20.0, 40.0]
        return [f32(b)]
    if kind == "laplace_batches":  # several batches with growing ranges
        return [f32(rng.laplace(0.1 * i, 0.5 + 0.4 * i, 600)) for i in range(3)]
    if kind == "shrinking_batches":
        return [f32(rng.normal(0, 2.0 / (i + 1), 600)) for i in range(3)]
    raise ValueError(kind)


def floats(a):
    # 9 significant digits give back the exact float32, in half the characters of json's 17
    return [float("%.9g" % v) for v in np.asarray(a, dtype=np.float32).reshape(-1)]


def qp(scale, zp):
    return {"scale": float(scale.reshape(-1)[0]), "zero_point": int(zp.reshape(-1)[0])}


def main():
    rng = np.random.default_rng(20241204)
    cases = []
    for kind in ["normal_outliers", "relu", "uniform", "far_outliers", "laplace_batches", "shrinking_batches"]:
        batches = batches_for(rng, kind)
        results = []
        for reduce_range in (False, True):
            mm = MinMaxObserver(dtype=torch.quint8, qscheme=torch.per_tensor_affine, reduce_range=reduce_range)
            cls = HistogramObserver if len(batches) == 1 else FloatRangeHistogramObserver
            hist = cls(dtype=torch.quint8, qscheme=torch.per_tensor_affine, reduce_range=reduce_range)
            for b in batches:
                mm(torch.from_numpy(b))
                hist(torch.from_numpy(b))
            new_min, new_max = hist._non_linear_param_search()
            results.append({
                "reduce_range": reduce_range,
                "minmax": qp(*mm.calculate_qparams()),
                "histogram": dict(qp(*hist.calculate_qparams()), min=hist.min_val.item(), max=hist.max_val.item(),
                                  histogram_sum=hist.histogram.sum().item(),
                                  search_min=new_min.item(), search_max=new_max.item()),
            })
        cases.append({"kind": kind, "batches": [floats(b) for b in batches], "results": results})
    weights = []
    for shape in [(6, 5), (4, 3, 3, 3)]:
        w = torch.from_numpy(f32(rng.normal(0, 0.2, shape)))
        w[1] = 0.0  # an all-zero channel: scale falls back to eps
        obs = PerChannelMinMaxObserver(ch_axis=0, dtype=torch.qint8, qscheme=torch.per_channel_symmetric,
                                       reduce_range=True)
        obs(w)
        scales, zps = obs.calculate_qparams()
        assert (obs.quant_min, obs.quant_max) == (-64, 63)
        fq = torch.fake_quantize_per_channel_affine(w, scales.float(), zps.int(), 0, obs.quant_min, obs.quant_max)
        per_channel = [-1] + [1] * (w.dim() - 1)
        q = torch.round(fq / scales.float().view(per_channel)).to(torch.int64)
        weights.append({"shape": list(shape), "weight": floats(w.numpy()), "scales": scales.tolist(),
                        "zero_points": zps.tolist(), "int8": q.reshape(-1).tolist()})
    with open(OUTPUT, "w") as f:
        json.dump({"torch_version": torch.__version__, "cases": cases, "weights": weights}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
